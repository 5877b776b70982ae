/**
 * The one renderer of what the chat screen prints: an item of the conversation (the header, a
 * question, the reasoning, an answer paragraph, how a turn ended, a notice) as styled lines no
 * wider than the width, the blank line above it included. The screen prints these lines (Ink's
 * <Static> through Turn.tsx, and the frame writer for answer paragraphs while an answer streams:
 * live-drawing.ts), and the transcript viewer (Ctrl+O) shows the same lines, with two
 * differences that are the viewer's job: the reasoning is written out instead of folded, and a
 * web address longer than the width is cut at the width (the viewer draws one row per line),
 * where the screen keeps it whole on a row of its own for the terminal to wrap, so copying or
 * clicking it gets it whole. Plain strings, no Ink: a long conversation is laid out in
 * milliseconds.
 */
import chalk from 'chalk';
import { formatDuration, tokensWord } from '../../core/text/format.js';
import { terminalHyperlinks } from '../../core/text/hyperlinks.js';
import type { StaticItem } from '../controller/screen-state.js';
import { renderMarkdown, wrapPlain } from './markdown.js';
import { textWidth, wrapLine, wrapText } from '../../core/text/width.js';
import { wrapAtSeparators } from './wrap-pieces.js';
import { uiScreenText } from '../../core/i18n/messages/ui-screen.js';

/** `Thought for 8.2s · 612 tokens`: the title of a reasoning block, folded or not. */
export function reasoningTitle(ms: number, tokens: number): string {
  return uiScreenText.reasoningTitle(formatDuration(ms), tokensWord(tokens));
}

export interface ItemLineOptions {
  /** `fold`: one line, `▸ Thought for … · Ctrl+O to read` (the screen); `open`: the title and the whole reasoning (the viewer). */
  reasoning: 'fold' | 'open';
  /** Keep a web address longer than the width whole, on a row wider than the width (the screen). */
  wholeUrls: boolean;
}

/** As the chat screen prints an item. */
export const SCREEN: ItemLineOptions = { reasoning: 'fold', wholeUrls: true };
/** As the transcript viewer shows it. */
export const VIEWER: ItemLineOptions = { reasoning: 'open', wholeUrls: false };

const fit = (lines: string[], width: number, indent = ''): string[] => lines.flatMap((l) => wrapLine(l, width, indent));

/** One printed item as lines, the blank line above it included (none above the header). */
export function itemLines(item: StaticItem, width: number, opts: ItemLineOptions): string[] {
  const c = chalk;
  switch (item.kind) {
    case 'header':
      return [
        ...fit([c.bold.cyan(`medchat ${item.version}`) + c.dim(` · ${item.model} · ${item.host}`) + (item.role ? c.magenta(` · ${uiScreenText.role(item.role)}`) : '')], width),
        ...(item.disclaimer ? fit([c.dim(uiScreenText.disclaimer)], width) : []),
        ...fit([c.dim(uiScreenText.startHint)], width),
      ];
    case 'user': {
      // The question in a column of its own after `› `: every line of it starts two cells in.
      const [first = '', ...rest] = wrapText(item.text, width - 2).split('\n');
      return ['', c.cyan.bold('› ') + c.bold(first), ...rest.map((l) => `  ${c.bold(l)}`)];
    }
    case 'reasoning': {
      const title = reasoningTitle(item.ms, item.tokens);
      if (opts.reasoning === 'fold') return ['', ...fit([c.dim(`▸ ${title} · ${uiScreenText.foldHint}`)], width)];
      return ['', ...fit([c.dim(`▾ ${title}`)], width), ...reasoningBody(item.text, width)];
    }
    case 'answer':
      return ['', ...answerBody(item.text, width, opts.wholeUrls)];
    case 'status':
      return ['', ...statusLines(item, width)];
    case 'notice': {
      const tone = item.tone === 'error' ? c.red : item.tone === 'warn' ? c.yellow : item.tone === 'info' ? c.dim : (s: string) => s;
      const rows = item.breakAt ? wrapAtSeparators(item.text, item.breakAt, width, { indent: '  ', keepSeparator: true }) : wrapText(item.text, width).split('\n');
      return ['', ...rows.map((l) => tone(l))];
    }
  }
}

/** An answer's Markdown at `width`; with `wholeUrls`, a longer address keeps its own, wider, row. */
export function answerBody(text: string, width: number, wholeUrls: boolean): string[] {
  const colour = chalk.level > 0;
  const rendered = renderMarkdown(text, { width, colour, hyperlinks: colour && terminalHyperlinks(), wholeUrls }).split('\n');
  return rendered.flatMap((l) => (textWidth(l) > width ? wrapLine(l, width, '', wholeUrls) : [l]));
}

function statusLines(item: Extract<StaticItem, { kind: 'status' }>, width: number): string[] {
  const c = chalk;
  const hanging = (text: string, colour: (s: string) => string) => wrapLine(text, width, '  ').map((l) => colour(l));
  switch (item.status) {
    case 'complete':
      return item.stats ? fit([c.dim(item.stats)], width) : [];
    case 'interrupted':
      return fit([c.yellow(uiScreenText.interrupted) + c.dim(`· ${uiScreenText.retryHint}`)], width);
    case 'incomplete':
      return [...hanging(`⚠ ${item.error ?? uiScreenText.incomplete}`, c.yellow), c.dim(uiScreenText.retryHint)];
    default:
      return [...hanging(`✗ ${item.error ?? uiScreenText.failed}`, c.red), ...fit([c.dim(uiScreenText.questionKept)], width)];
  }
}

/** Reasoning written out, dim, behind a `│ ` rule. */
export function reasoningBody(text: string, width: number): string[] {
  const body = wrapPlain(text, width - 2)
    .split('\n')
    .map((l) => chalk.dim(`│ ${l}`));
  return fit(body, width, chalk.dim('│ '));
}
