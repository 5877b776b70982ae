import { lastTokenStart, LineWrap, wrapLine } from '../../core/text/width.js';

/** How many rows of streaming reasoning the "Thinking…" block shows. */
const THINKING_LINES = 4;

/** Rows of finished lines kept by a `WrappedText` (more than any terminal is tall). */
const KEEP_ROWS = 400;

const expandTabs = (line: string) => (line.includes('\t') ? line.replace(/\t/g, '    ') : line);

/**
 * A growing text wrapped to rows, updated in the time it takes to wrap what was added: finished
 * lines are wrapped once and kept (the last few hundred rows), and so are the finished rows of the
 * line still being written (only its last word is wrapped again, see LineWrap). While an answer
 * streams this runs once per frame, so a long answer, even one line that never ends, costs no
 * more per frame than a short one. Given a text that does not extend the last one (a paragraph
 * moved out, a new turn) or another width, it starts over. `key`: the caller's word that the text
 * only grew while the key stays the same (then it is not compared with the last one, which costs
 * its length).
 */
export class WrappedText {
  private width = -1;
  private key: string | undefined;
  /** The last text given. */
  private text = '';
  /** Where the last line (the one still being written) starts: after the text's last newline. */
  private end = 0;
  private done: string[] = [];
  private dropped = false;
  private started = false;
  /** The last line so far, its whole tokens wrapped (all but its last one, which may still grow). */
  private line!: LineWrap;
  /** How much of the last line `line` holds, and whether it holds anything but white space. */
  private fed = 0;
  private filled = false;

  /** `skipBlank`: drop blank lines everywhere (the thinking preview); otherwise only leading ones. */
  constructor(private readonly skipBlank: boolean) {}

  /** The last `max` rows of `text` wrapped to `width` cells. */
  rows(text: string, width: number, max: number, key?: string): string[] {
    const grew = key !== undefined ? key === this.key && text.length >= this.text.length : text.startsWith(this.text);
    if (width !== this.width || !grew || (this.dropped && max > KEEP_ROWS)) this.reset(width);
    this.key = key;
    const from = this.text.length;
    this.text = text;
    // The last newline, looked for only in what was added (those before were seen last time).
    let nl = -1;
    for (let i = text.indexOf('\n', from); i >= 0; i = text.indexOf('\n', i + 1)) nl = i;
    if (nl >= 0) {
      for (const line of text.slice(this.end, nl).split('\n')) this.add(line);
      this.end = nl + 1;
      this.newLine();
      if (this.done.length > 2 * KEEP_ROWS) {
        this.done = this.done.slice(-KEEP_ROWS);
        this.dropped = true;
      }
    }
    // The last line: its whole tokens wrapped once, its last token (which may still grow) each time.
    const rest = text.slice(this.end + this.fed);
    const last = lastTokenStart(rest);
    if (last > 0) {
      const whole = rest.slice(0, last);
      this.line.add(expandTabs(whole));
      this.fed += last;
      this.filled ||= !this.blank(whole);
    }
    const tail = expandTabs(rest.slice(last));
    const rows = this.done.length > max ? this.done.slice(-max) : [...this.done];
    if (this.filled || !this.blank(tail) || (!this.skipBlank && this.started)) rows.push(...this.lastRows(tail, max));
    return rows.length > max ? rows.slice(-max) : rows;
  }

  /** The last line's last `max` rows, as `wrap` would give them for the whole line. */
  private lastRows(tail: string, max: number): string[] {
    const t = this.skipBlank ? tail.trimEnd() : tail;
    const rows = this.line.peek(t, max);
    // Nothing finished yet: the line is short, and a line that fits is `wrapLine`'s to answer.
    if (this.line.finished === 0 && this.line.peek(t, 2).length <= 1) return this.wrap(this.text.slice(this.end));
    this.line.forget(max);
    return rows;
  }

  private newLine(): void {
    this.line = new LineWrap(Math.max(20, this.width));
    this.fed = 0;
    this.filled = false;
  }

  private reset(width: number): void {
    this.width = width;
    this.text = '';
    this.end = 0;
    this.done = [];
    this.dropped = false;
    this.started = false;
    this.newLine();
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
export function answerRows(tail: string, width: number, maxRows: number, wrapped = new WrappedText(false), key?: string): string[] {
  const rows = wrapped.rows(tail, width, maxRows, key);
  return rows.length ? rows : [''];
}

/** The thinking preview: the last rows of the reasoning (blank lines dropped), always `THINKING_LINES` of them. */
export function thinkingRows(reasoning: string, width: number, wrapped = new WrappedText(true), key?: string): string[] {
  const rows = wrapped.rows(reasoning, width - 2, THINKING_LINES, key);
  while (rows.length < THINKING_LINES) rows.push('');
  return rows;
}
