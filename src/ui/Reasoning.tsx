import { Box, Text } from 'ink';
import { formatSeconds } from './text/format.js';
import { thinkingRows } from './text/live-rows.js';
import { wrapPlain } from './text/markdown.js';

/** The folded line (`▸ Thought for 8.2s · 612 tokens`) or, unfolded, the whole reasoning, dim. */
export function ReasoningBlock({ text, ms, tokens, open, width }: { text: string; ms: number; tokens: number; open: boolean; width: number }) {
  const title = `Thought for ${formatSeconds(ms)} · ${tokens} token${tokens === 1 ? '' : 's'}`;
  if (!open) {
    return (
      <Text dimColor>
        ▸ {title} <Text italic>(Ctrl+O to show)</Text>
      </Text>
    );
  }
  return (
    <Box flexDirection="column">
      <Text dimColor>▾ {title}</Text>
      <Text dimColor>{wrapPlain(text, width - 2).split('\n').map((l) => `│ ${l}`).join('\n')}</Text>
    </Box>
  );
}

/**
 * While reasoning streams: `Thinking… 8s` and its last few lines, in a block of fixed height.
 * With `marker`, the frame writer draws those lines (see LiveRows).
 */
export function ThinkingBlock({ text, elapsedMs, width, marker }: { text: string; elapsedMs: number; width: number; marker?: string }) {
  return (
    <Box flexDirection="column">
      <Text color="magenta">Thinking… {Math.floor(elapsedMs / 1000)}s</Text>
      {marker ? <Text>{marker}</Text> : <Text dimColor>{thinkingRows(text, width).map((l) => `  ${l}`).join('\n')}</Text>}
    </Box>
  );
}
