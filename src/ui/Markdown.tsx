import { Text } from 'ink';
import { memo } from 'react';
import chalk from 'chalk';
import { terminalHyperlinks } from '../core/hyperlinks.js';
import { renderMarkdown } from './text/markdown.js';

/** A finished block of answer text, rendered once (it lives in the printed transcript). */
export const Markdown = memo(function Markdown({ text, width }: { text: string; width: number }) {
  return <Text>{renderMarkdown(text, { width, colour: chalk.level > 0, hyperlinks: chalk.level > 0 && terminalHyperlinks() })}</Text>;
});
