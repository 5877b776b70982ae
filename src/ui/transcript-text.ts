import chalk from 'chalk';
import type { LiveTurn, StaticItem } from './chat-controller.js';
import { formatDuration, formatSeconds, tokensWord } from '../core/text/format.js';
import { renderMarkdown, wrapPlain } from './text/markdown.js';
import { wrapLine } from './text/width.js';

/**
 * The transcript as styled lines, for the transcript viewer: each item as the chat screen prints
 * it (see Turn.tsx), but with the reasoning written out, and the streaming turn as it is so far.
 * Plain strings, no Ink: a long conversation is laid out in milliseconds.
 */

export const DISCLAIMER = 'medchat gives information, not a diagnosis. For medical decisions see a clinician; in an emergency call your local emergency number.';

/** `Thought for 8.2s · 612 tokens`: the title of a reasoning block, folded or not. */
export function reasoningTitle(ms: number, tokens: number): string {
  return `Thought for ${formatDuration(ms)} · ${tokensWord(tokens)}`;
}

/** What the folded reasoning line says after its title. */
export const FOLD_HINT = 'Ctrl+O to read';

const fit = (lines: string[], width: number, indent = ''): string[] => lines.flatMap((l) => wrapLine(l, width, indent));

/** One printed item as lines no wider than `width`, the blank line above it included. */
export function itemLines(item: StaticItem, width: number): string[] {
  const c = chalk;
  switch (item.kind) {
    case 'header':
      return fit(
        [
          c.bold.cyan(`medchat ${item.version}`) + c.dim(` · ${item.model} · thinking ${item.thinking ? 'on' : 'off'} · ${item.host}`),
          ...(item.disclaimer ? [c.dim(DISCLAIMER)] : []),
          c.dim('Type a question and press Enter · /help for commands and keys'),
        ],
        width,
      );
    case 'user': {
      const [first = '', ...rest] = item.text.split('\n');
      return ['', ...fit([c.cyan.bold('› ') + c.bold(first), ...rest.map((l) => `  ${c.bold(l)}`)], width, '  ')];
    }
    case 'reasoning':
      return ['', c.dim(`▾ ${reasoningTitle(item.ms, item.tokens)}`), ...reasoningBody(item.text, width)];
    case 'answer':
      return ['', ...fit(renderMarkdown(item.text, { width, colour: c.level > 0 }).split('\n'), width)];
    case 'status':
      return ['', ...fit(statusLines(item), width)];
    case 'notice': {
      const tone = item.tone === 'error' ? c.red : item.tone === 'warn' ? c.yellow : item.tone === 'info' ? c.dim : (s: string) => s;
      return ['', ...fit(item.text.split('\n').map((l) => tone(l)), width)];
    }
  }
}

function statusLines(item: Extract<StaticItem, { kind: 'status' }>): string[] {
  const c = chalk;
  switch (item.status) {
    case 'complete':
      return [item.stats ? c.dim(item.stats) : ''];
    case 'interrupted':
      return [c.yellow('■ interrupted ') + c.dim('· /retry asks again')];
    case 'incomplete':
      return [c.yellow(`⚠ ${item.error ?? 'the answer is incomplete'}`), c.dim('/retry asks again')];
    default:
      return [c.red(`✗ ${item.error ?? 'the question failed'}`), c.dim('your question is kept: /retry sends it again')];
  }
}

function reasoningBody(text: string, width: number): string[] {
  const body = wrapPlain(text, width - 2)
    .split('\n')
    .map((l) => chalk.dim(`│ ${l}`));
  return fit(body, width, chalk.dim('│ '));
}

/** The turn still streaming: its reasoning so far in full, or the answer's unfinished part. */
export function liveLines(live: Readonly<LiveTurn>, width: number, now = Date.now()): string[] {
  const c = chalk;
  if (live.phase === 'waiting') return ['', c.dim('Waiting for the answer…')];
  if (live.phase === 'reasoning') {
    const s = (now - (live.reasoningStartedAt ?? live.startedAt)) / 1000;
    return ['', c.magenta(`▾ Thinking… ${formatSeconds(s)}`), ...reasoningBody(live.reasoning, width)];
  }
  const tail = live.answerTail.replace(/\s+$/, '');
  return tail ? ['', ...fit(renderMarkdown(tail, { width, colour: c.level > 0 }).split('\n'), width)] : [];
}
