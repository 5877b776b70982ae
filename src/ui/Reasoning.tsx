import { Box, Text } from 'ink';
import { formatSeconds } from './text/format.js';
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

export const THINKING_LINES = 4;

/** While reasoning streams: `Thinking… 8s` and its last few lines, in a block of fixed height. */
export function ThinkingBlock({ text, elapsedMs, width }: { text: string; elapsedMs: number; width: number }) {
  const rows = wrapPlain(text.trim().replace(/\n{2,}/g, '\n'), width - 2).split('\n');
  const tail = rows.slice(-THINKING_LINES);
  while (tail.length < THINKING_LINES) tail.push('');
  return (
    <Box flexDirection="column">
      <Text color="magenta">Thinking… {Math.floor(elapsedMs / 1000)}s</Text>
      <Text dimColor>{tail.map((l) => `  ${l}`).join('\n')}</Text>
    </Box>
  );
}
