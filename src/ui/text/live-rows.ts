import { wrapLine } from './width.js';

/** How many rows of streaming reasoning the "Thinking…" block shows. */
const THINKING_LINES = 4;

/** Rows of finished lines kept by a `WrappedText` (more than any terminal is tall). */
const KEEP_ROWS = 400;

const expandTabs = (line: string) => (line.includes('\t') ? line.replace(/\t/g, '    ') : line);

/**
 * A growing text wrapped to rows, updated in the time it takes to wrap what was added: finished
 * lines are wrapped once and kept (the last few hundred rows), only the line still being written
 * is wrapped again. While an answer streams this runs once per frame, so a long answer costs no
 * more per frame than a short one. Given a text that does not extend the last one (a paragraph
 * moved out, a new turn) or another width, it starts over.
 */
export class WrappedText {
  private width = -1;
  /** The text up to and including its last newline, already wrapped into `done`. */
  private consumed = '';
  private done: string[] = [];
  private dropped = false;
  private started = false;

  /** `skipBlank`: drop blank lines everywhere (the thinking preview); otherwise only leading ones. */
  constructor(private readonly skipBlank: boolean) {}

  /** The last `max` rows of `text` wrapped to `width` cells. */
  rows(text: string, width: number, max: number): string[] {
    if (width !== this.width || !text.startsWith(this.consumed) || (this.dropped && max > KEEP_ROWS)) this.reset(width);
    const end = text.lastIndexOf('\n') + 1;
    if (end > this.consumed.length) {
      for (const line of text.slice(this.consumed.length, end - 1).split('\n')) this.add(line);
      this.consumed = text.slice(0, end);
      if (this.done.length > 2 * KEEP_ROWS) {
        this.done = this.done.slice(-KEEP_ROWS);
        this.dropped = true;
      }
    }
    const partial = text.slice(end);
    const rows = this.done.length > max ? this.done.slice(-max) : [...this.done];
    if (!this.blank(partial) || (!this.skipBlank && this.started)) rows.push(...this.wrap(partial));
    return rows.length > max ? rows.slice(-max) : rows;
  }

  private reset(width: number): void {
    this.width = width;
    this.consumed = '';
    this.done = [];
    this.dropped = false;
    this.started = false;
  }

  private blank(line: string): boolean {
    return line.trim() === '';
  }

  private add(line: string): void {
    if (this.blank(line) && (this.skipBlank || !this.started)) return;
    this.started = true;
    this.done.push(...this.wrap(line));
  }

  private wrap(line: string): string[] {
    const l = expandTabs(this.skipBlank ? line.trimEnd() : line);
    return wrapLine(l, Math.max(20, this.width));
  }
}

/** The streaming answer's rows: its unfinished paragraphs wrapped to `width`, the last `maxRows` of them. */
export function answerRows(tail: string, width: number, maxRows: number, wrapped = new WrappedText(false)): string[] {
  const rows = wrapped.rows(tail, width, maxRows);
  return rows.length ? rows : [''];
}

/** The thinking preview: the last rows of the reasoning (blank lines dropped), always `THINKING_LINES` of them. */
export function thinkingRows(reasoning: string, width: number, wrapped = new WrappedText(true)): string[] {
  const rows = wrapped.rows(reasoning, width - 2, THINKING_LINES);
  while (rows.length < THINKING_LINES) rows.push('');
  return rows;
}
