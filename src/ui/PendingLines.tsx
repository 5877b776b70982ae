import { Box, Text } from 'ink';
import { memo } from 'react';
import { sanitizeForTerminal } from '../core/sanitize.js';
import type { PendingView } from './chat/screen-state.js';

/**
 * Under the streaming answer: what waits for it to end, each queued question or command on its
 * own line (`queued: … (sent when this answer ends; Esc to cancel)`).
 */
export const PendingLines = memo(function PendingLines({ pending }: { pending: PendingView }) {
  return (
    <Box marginTop={1} flexDirection="column">
      {pending.queued.map((q, i) => (
        <Text key={i} wrap="truncate-end">
          <Text color="cyan">queued: </Text>
          {oneLine(q.text)}
          <Text dimColor> ({q.command ? 'runs' : 'sent'} {i === 0 ? 'when this answer ends' : 'after the one above'}{i === pending.queued.length - 1 ? '; Esc to cancel' : ''})</Text>
        </Text>
      ))}
    </Box>
  );
});

/** The rows it takes (App keeps the live answer short enough for it). */
export function pendingRows(pending: PendingView | undefined): number {
  if (!pending) return 0;
  return 1 + pending.queued.length;
}

function oneLine(text: string): string {
  const lines = sanitizeForTerminal(text).split('\n');
  return lines.length > 1 ? `${lines[0]} … (+${lines.length - 1} lines)` : lines[0]!;
}
