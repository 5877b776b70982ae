import { Box, Text } from 'ink';
import { memo } from 'react';
import chalk from 'chalk';
import { terminalHyperlinks } from '../core/hyperlinks.js';
import { renderMarkdown } from './text/markdown.js';
import { textWidth } from './text/width.js';

/**
 * A finished block of answer text, rendered once (it lives in the printed transcript). A web address longer than
 * the width keeps a row of its own, uncut: Ink is given room for it (it would cut it again), and the terminal wraps
 * it, so copying or clicking it gets it whole.
 */
export const Markdown = memo(function Markdown({ text, width }: { text: string; width: number }) {
  const rendered = renderMarkdown(text, { width, colour: chalk.level > 0, hyperlinks: chalk.level > 0 && terminalHyperlinks(), wholeUrls: true });
  const widest = rendered.split('\n').reduce((w, l) => Math.max(w, textWidth(l)), width);
  return widest > width ? (
    <Box width={widest} flexShrink={0}>
      <Text>{rendered}</Text>
    </Box>
  ) : (
    <Text>{rendered}</Text>
  );
});
