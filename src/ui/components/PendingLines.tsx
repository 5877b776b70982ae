import { Box, Text } from 'ink';
import { memo } from 'react';
import { sanitizeForTerminal } from '../../core/text/sanitize.js';
import type { PendingView } from '../controller/screen-state.js';
import { shorten } from '../text/format.js';
import { textWidth, wrapLine } from '../../core/text/width.js';
import { uiScreenText } from '../../core/i18n/messages/ui-screen.js';

/** A queued question keeps at least this many cells beside its hint before the hint goes on a row of its own. */
const MIN_TEXT = 20;

/** One queued line as the screen lays it out: the question (shortened to fit) and its hint, beside it or under it. */
interface QueuedRows {
  text: string;
  hint: string;
  /** The hint's rows under the question (hanging under it), when it does not fit beside it. */
  below?: string[];
}

/**
 * Under the streaming answer: what waits for it to end, each queued question or command on its
 * own line (`queued: … (sent when this answer ends; Esc to cancel)`), laid out for `width`: the
 * question is shortened before the hint is, and at a narrow width the hint goes under it.
 */
export const PendingLines = memo(function PendingLines({ pending, width }: { pending: PendingView; width: number }) {
  return (
    <Box marginTop={1} flexDirection="column">
      {pendingLayout(pending, width).map((q, i) => (
        <Box key={i} flexDirection="column">
          <Text wrap="truncate-end">
            <Text color="cyan">{uiScreenText.queued}</Text>
            {q.text}
            {q.below ? null : <Text dimColor> {q.hint}</Text>}
          </Text>
          {q.below?.map((row, j) => (
            <Text key={j} dimColor wrap="truncate-end">
              {' '.repeat(textWidth(uiScreenText.queued)) + row}
            </Text>
          ))}
        </Box>
      ))}
    </Box>
  );
});

function pendingLayout(pending: PendingView, width: number): QueuedRows[] {
  return pending.queued.map((q, i) => {
    const label = textWidth(uiScreenText.queued);
    const hint = uiScreenText.queuedHint(q.command, i === 0, i === pending.queued.length - 1);
    const text = oneLine(q.text);
    const room = width - label - 1 - textWidth(hint);
    if (room >= Math.min(textWidth(text), MIN_TEXT)) return { text: shorten(text, room), hint };
    return { text: shorten(text, width - label), hint, below: wrapLine(hint, width - label, '') };
  });
}

/** The rows it takes (App keeps the live answer short enough for it). */
export function pendingRows(pending: PendingView | undefined, width: number): number {
  if (!pending) return 0;
  return 1 + pendingLayout(pending, width).reduce((n, q) => n + 1 + (q.below?.length ?? 0), 0);
}

/**
 * The line that says what Esc (or Ctrl+C) took back from the queue, fitted to `width`: back in the
 * box when it was empty, else not sent and in the prompt history (Up).
 */
export function takenBackLine(text: string, inBox: boolean, width: number): string {
  const room = width - 2 - textWidth(uiScreenText.takenBack('', inBox)); // the line has a cell of padding each side
  return uiScreenText.takenBack(shorten(oneLine(text), Math.max(8, room)), inBox);
}

function oneLine(text: string): string {
  const lines = sanitizeForTerminal(text).split('\n');
  return lines.length > 1 ? lines[0] + uiScreenText.moreLines(lines.length - 1) : lines[0]!;
}
