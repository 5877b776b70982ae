/**
 * What screen-reader mode prints for each item of the conversation: plain lines, no colour, no box
 * drawing, no symbols a speech synthesiser reads out as names, nothing laid out for a width (the
 * terminal wraps; a screen reader reads a line as one). Each turn is labelled (`you:`, `medchat:`),
 * the reasoning is one line, a table is `column: value` lines. The chat screen's own renderer is
 * printed-lines.ts; this is the same items, for the ear.
 */
import { parseBlocks, splitRow, type Block } from '../../core/text/markdown/blocks.js';
import { screenReaderText as t } from '../../core/i18n/messages/ui-screen-reader.js';
import type { StaticItem } from '../controller/screen-state.js';
import { renderInline } from '../text/markdown-inline.js';
import { uiScreenText } from '../../core/i18n/messages/ui-screen.js';

/** Whole seconds, at least 1: `thought for 8 seconds` (a tenth of a second is noise read aloud). */
export const wholeSeconds = (ms: number): number => Math.max(1, Math.round(ms / 1000));

/** Symbols at the start of medchat's own lines that a screen reader names aloud ("warning sign", "ballot x"). */
const LEADING_SYMBOL = /^[⚠✗✓■▸▾›•]\uFE0F?\s*/u;

/**
 * The lines of one item. `firstAnswer`: this answer item is the first of its turn, so it carries the
 * `medchat:` label. A blank line stands before each question and between an answer's paragraphs.
 */
export function linearItemLines(item: StaticItem, firstAnswer: boolean): string[] {
  switch (item.kind) {
    case 'header':
      return [
        t.header(item.version, item.model, item.host),
        ...(item.role ? [t.role(item.role)] : []),
        ...(item.disclaimer ? [uiScreenText.disclaimer] : []),
        t.startHint,
      ];
    case 'user': {
      const [first = '', ...rest] = item.text.split('\n');
      return ['', `${t.you} ${first}`, ...rest];
    }
    case 'reasoning':
      return [t.thought(wholeSeconds(item.ms))];
    case 'answer': {
      const lines = answerLines(item.text);
      if (firstAnswer && lines.length) lines[0] = `${t.medchat} ${lines[0]}`;
      return firstAnswer ? lines : ['', ...lines];
    }
    case 'status':
      return [statusLine(item)];
    case 'notice': {
      // A `plain` notice of several lines is a picture drawn in characters: nothing to read aloud.
      if (item.tone === 'plain' && item.text.includes('\n')) return [t.pictureLeftOut];
      const text = item.text.replace(LEADING_SYMBOL, '');
      const lines = text.split('\n');
      if (item.tone === 'warn') lines[0] = t.warning(lines[0] ?? '');
      if (item.tone === 'error') lines[0] = t.error(lines[0] ?? '');
      return lines;
    }
  }
}

function statusLine(item: Extract<StaticItem, { kind: 'status' }>): string {
  switch (item.status) {
    case 'complete':
      // How long it took, the first of the figures: the rest (speed, tokens) is noise read after every answer; /status has the window.
      return t.endOfAnswer(item.stats?.split(' · ')[0] ?? '');
    case 'interrupted':
      return t.interrupted;
    case 'incomplete':
      return t.incomplete(item.error ?? '');
    default:
      return t.failed(item.error ?? '');
  }
}

/** An answer's Markdown as plain lines: inline marks dropped, a blank line between blocks, tables as `column: value`. */
export function answerLines(markdown: string): string[] {
  const out: string[] = [];
  for (const block of parseBlocks(markdown)) {
    if (block.kind === 'blank' || block.kind === 'rule') continue;
    if (out.length) out.push('');
    out.push(...blockLines(block));
  }
  return out;
}

const plain = (s: string) => renderInline(s, false);

function blockLines(block: Block): string[] {
  switch (block.kind) {
    case 'table':
      return tableLines(block.lines);
    case 'code':
      return [t.code(block.lang ?? ''), ...block.lines, t.codeEnd];
    case 'quote':
      return block.lines.map(plain);
    case 'heading':
      return [plain(block.lines[0] ?? '')];
    case 'list':
      return block.lines.map((l) => plain(l.trim()));
    default:
      // A paragraph is one line: its soft line breaks were the writer's, not a pause.
      return [block.lines.map((l) => plain(l.trim())).join(' ')];
  }
}

/** A table as one group of `column: value` lines per row (the header row names the columns). */
export function tableLines(rows: readonly string[]): string[] {
  const head = splitRow(rows[0] ?? '').map(plain);
  const body = rows.slice(2).map((r) => splitRow(r).map(plain));
  const out = [t.table(body.length)];
  body.forEach((cells, i) => {
    out.push(t.row(i + 1));
    cells.forEach((cell, c) => out.push(`${head[c] || String(c + 1)}: ${cell}`));
  });
  out.push(t.tableEnd);
  return out;
}
