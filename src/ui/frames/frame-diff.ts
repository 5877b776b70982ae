import { SOFT_WRAPPED } from './reflow.js';
import { clusterEnd, clusterStart, textWidth } from '../../core/text/width.js';

/** `line` has a grapheme cluster boundary at `at`. */
const endsCluster = (line: string, at: number) => clusterEnd(line, clusterStart(line, at)) === at;

/**
 * Ink's frames as the frame writer reads them, and the line diff it writes instead (pure: no
 * state, no I/O). A frame is Ink's "erase the N lines I wrote last time" followed by new content.
 */
export const SYNC_ON = '\x1b[?2026h';
export const SYNC_OFF = '\x1b[?2026l';
const ERASE_LINE_UP = '\x1b[2K\x1b[1A';
const ERASE_LAST = '\x1b[2K\x1b[G';
/** Erase the whole row the cursor is on (the cursor stays). */
const ERASE_ROW = '\x1b[2K';
export const CURSOR_CODES = /\x1b\[\?25[lh]/g;
/** Cursor show/hide and synchronized-output marks: writes of only these carry no content. */
export const MODE_CODES = /\x1b\[\?(?:25|2026)[lh]/g;
/** Only colour codes (and cursor show/hide) may appear inside diffable content. */
const FOREIGN_ESCAPE = /\x1b(?!\[[0-9;]*m)|\r/;

interface Frame {
  /** Lines erased before the content (Ink's eraseLines count), 0 when none. */
  erase: number;
  content: string;
  sync: boolean;
}

/**
 * Ink's writes of one tick as a frame, or undefined when they are something else. Cursor show/hide
 * and synchronized-update marks may be anywhere (after a resize Ink erases first, then writes its
 * frame inside the marks): they are dropped, and `sync` says whether there were any.
 */
export function parseFrame(data: string): Frame | undefined {
  const sync = data.includes(SYNC_ON);
  let s = data.replace(MODE_CODES, '');
  let erase = 0;
  while (s.startsWith(ERASE_LINE_UP)) {
    erase++;
    s = s.slice(ERASE_LINE_UP.length);
  }
  if (s.startsWith(ERASE_LAST)) {
    erase++;
    s = s.slice(ERASE_LAST.length);
  } else if (erase > 0) return undefined;
  if (FOREIGN_ESCAPE.test(s)) return undefined;
  return { erase, content: s, sync };
}

/** Where the terminal's cursor is, relative to the frame's first line; `col` undefined when not known. */
export interface Cursor {
  row: number;
  col: number | undefined;
}

/**
 * Moves of the real cursor within (and just below) what the terminal shows. Rows up to `exist`
 * are on screen; rows below it are made with a newline (which scrolls at the bottom; CUD does not).
 */
export class CursorMoves {
  readonly out: string[] = [];
  moved = false;
  constructor(
    public row: number,
    public col: number | undefined,
    private exist: number,
  ) {}

  toRow(r: number): void {
    if (r === this.row) return;
    this.moved = true;
    if (r < this.row) {
      this.out.push(this.row - r === 1 ? '\x1b[A' : `\x1b[${this.row - r}A`);
      this.row = r;
      return;
    }
    const within = Math.min(r, this.exist) - this.row;
    if (within > 0) {
      this.out.push(within === 1 ? '\x1b[B' : `\x1b[${within}B`);
      this.row += within;
    }
    if (r > this.row) {
      this.out.push('\n'.repeat(r - this.row));
      this.row = r;
      this.col = 0;
      this.exist = Math.max(this.exist, r);
    }
  }

  /** The terminal's own wrap took the cursor to the start of row `r` (the row after it). */
  wrappedTo(r: number): void {
    this.row = r;
    this.col = 0;
    this.exist = Math.max(this.exist, r);
  }

  toCol(c: number): void {
    if (c === this.col) return;
    this.out.push(c === 0 ? '\r' : `\x1b[${c + 1}G`);
    this.col = c;
  }
}

interface Diff {
  bytes: string;
  cursor: Cursor;
  /** Only the end of one line was written, with no cursor moves between lines. */
  smallOnly: boolean;
  /** How many lines were written (or cleared). */
  touched: number;
}

/**
 * The bytes that turn `prev` into `next` on the terminal, starting with the cursor at `from`
 * (default: the start of prev's last line, where Ink leaves it). Both arrays are lines as split on
 * "\n" and end with the (empty) line the cursor sits on under the output.
 */
export function diffFrames(prev: readonly string[], next: readonly string[], columns: number, from?: Cursor): Diff {
  const start: Cursor = from ?? { row: prev.length - 1, col: 0 };
  const m = new CursorMoves(start.row, start.col, prev.length - 1);
  let touched = 0;
  const last = next.length - 1;
  /** The row written last: a row that continues it by the terminal's wrap is written right after it. */
  let written = -2;
  for (let i = 0; i <= last; i++) {
    const was = prev[i];
    let line = next[i]!;
    if (was === line) continue;
    if (i === last && line === '' && was === undefined) continue; // made below, if needed
    touched++;
    if (line.startsWith(SOFT_WRAPPED) && written === i - 1) {
      // The rest of a line wider than the window: the terminal wraps onto this row by itself, so a
      // copy or a click takes the line whole. What the row held before is erased after the text
      // (the cursor is then after it, not waiting to wrap, unless the text fills the row).
      const text = line.slice(SOFT_WRAPPED.length);
      const nw = textWidth(text);
      m.wrappedTo(i);
      m.out.push(text, nw < columns && was !== '' ? '\x1b[K' : '');
      m.col = nw < columns ? nw : undefined;
      written = i;
      continue;
    }
    written = i;
    m.toRow(i);
    let cut: ChangedSpan | undefined;
    const w = was ? textWidth(was) : 0;
    const nw = textWidth(line);
    if (was !== undefined && was !== '' && w < columns && line.startsWith(was) && endsCluster(line, was.length)) {
      // The rest of that row is blank already: just the new end (unless it goes on with the
      // glyph the row ends with, a ZWJ sequence or a mark that came in two parts: a terminal
      // would draw the second part as a glyph of its own).
      m.toCol(w);
      m.out.push(line.slice(was.length));
    } else if (was !== undefined && was !== '' && nw >= w && (cut = changedSpan(was, line, nw === w)) !== undefined && cut.col < columns) {
      // The same start (and, as wide as before, the same end), something else between (a clock's
      // seconds, a count): only what differs, from its first glyph, with the styles in effect
      // there. It is at least as wide as what it replaces, so nothing needs erasing (and nothing
      // is erased after a full row).
      m.toCol(cut.col);
      const span = cut.styles + line.slice(cut.at, cut.end);
      m.out.push(span);
      if (cut.end < line.length) {
        // Left in the middle of the row: styles opened there are closed (the next write starts plain).
        if (span.includes('\x1b[')) m.out.push(RESET);
        m.col = cut.endCol < columns ? cut.endCol : undefined;
        continue;
      }
    } else {
      m.toCol(0);
      if (line.startsWith(SOFT_WRAPPED)) line = line.slice(SOFT_WRAPPED.length);
      // The row is erased first, then written: never text + CSI K. A row as wide as the window
      // leaves the cursor waiting to wrap on its last cell, and xterm, urxvt and GNU screen erase
      // that cell on CSI K ("below 150" showed as "below 15"). Erased first, the terminal also
      // takes the row to be as long as its new text (tmux counts cells blanked by a CSI K after
      // text as used, and wraps them onto a row of their own when the window narrows: reflow.ts).
      m.out.push(was === '' ? '' : ERASE_ROW, line);
    }
    m.col = nw < columns ? nw : undefined; // at the last column the terminal waits to wrap: position unknown
  }
  if (next.length > prev.length) {
    m.toRow(last);
  } else if (next.length < prev.length) {
    m.toRow(last);
    m.toCol(0);
    m.out.push('\x1b[J');
    touched += 2;
  }
  return { bytes: m.out.join(''), cursor: { row: m.row, col: m.col }, smallOnly: touched <= 1 && !m.moved, touched };
}

interface ChangedSpan {
  /** Where in the new line to write from, and to (the line's length: to its end). */
  at: number;
  end: number;
  /** Their columns. */
  col: number;
  endCol: number;
  /** The colour codes before it, to write first: the text from there on looks as it should. */
  styles: string;
}

const SGR = /\x1b\[[0-9;]*m/g;
const RESET = '\x1b[0m';
const ESCAPE_AT = /\x1b(?:\[[0-9;?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\))/y;
/** A rewrite of only what differs saves at least this many cells, or the row is written whole. */
const WORTH_CELLS = 8;

/** `at` moved back to the start of the escape sequence it is inside, if any. */
function outOfEscape(line: string, at: number): number {
  const esc = line.lastIndexOf('\x1b', at - 1);
  if (esc < 0) return at;
  ESCAPE_AT.lastIndex = esc;
  const m = ESCAPE_AT.exec(line);
  return !m || esc + m[0].length > at ? esc : at;
}

/**
 * What of `line` differs from `was`: from where they stop being the same, moved back to the start
 * of a glyph in both (a mark or a joiner that differs changes the glyph before it) and out of any
 * escape sequence; with `sameWidth`, up to where their ends start being the same again, when what
 * lies between takes as many cells in both. Undefined when that saves too little, or a link is open
 * at the start (colours are replayed, a link would not be).
 */
function changedSpan(was: string, line: string, sameWidth: boolean): ChangedSpan | undefined {
  let at = 0;
  const shorter = Math.min(was.length, line.length);
  while (at < shorter && was.charCodeAt(at) === line.charCodeAt(at)) at++;
  if (at < line.length) at = clusterStart(line, clusterEnd(line, at));
  if (at < was.length) at = Math.min(at, clusterStart(was, clusterEnd(was, at)));
  at = outOfEscape(line, at);
  const prefix = line.slice(0, at);
  if (prefix.includes('\x1b]')) return undefined;
  const col = textWidth(prefix);
  let end = line.length;
  let endCol = textWidth(line);
  if (sameWidth) {
    let tail = 0;
    while (tail < shorter - at && was.charCodeAt(was.length - 1 - tail) === line.charCodeAt(line.length - 1 - tail)) tail++;
    // The end moved forward to the end of a glyph in both, and past any escape sequence it cuts.
    let e = line.length - tail;
    let we = was.length - tail;
    const grow = Math.max(clusterEnd(line, Math.max(at, e - 1)) - e, clusterEnd(was, Math.max(at, we - 1)) - we, 0);
    e += grow;
    we += grow;
    const esc = outOfEscape(line, e);
    if (esc < e) {
      ESCAPE_AT.lastIndex = esc;
      const n = ESCAPE_AT.exec(line)![0].length;
      we += esc + n - e;
      e = esc + n;
    }
    // The end kept only where it looks the same in both: as wide between, and under the same styles.
    const sameStyles = () => (line.slice(0, e).match(SGR)?.join('') ?? '') === (was.slice(0, we).match(SGR)?.join('') ?? '');
    if (e <= line.length && we <= was.length && e >= at && textWidth(line.slice(at, e)) === textWidth(was.slice(at, we)) && !line.slice(at, e).includes('\x1b]') && sameStyles()) {
      end = e;
      endCol = col + textWidth(line.slice(at, e));
    }
  }
  if (col + (textWidth(line) - endCol) < WORTH_CELLS) return undefined;
  return { at, end, col, endCol, styles: prefix.match(SGR)?.join('') ?? '' };
}

/** `diffFrames` from Ink's cursor position, back there at the end (bytes only). */
export function diffLines(prev: readonly string[], next: readonly string[], columns: number): string {
  const d = diffFrames(prev, next, columns);
  const back = new CursorMoves(d.cursor.row, d.cursor.col, next.length - 1);
  back.toRow(next.length - 1);
  back.toCol(0);
  return d.bytes + back.out.join('');
}

/** Ink's eraseLines(n): n erased lines, ending at the start of the first. */
function eraseLines(n: number): string {
  return n > 0 ? ERASE_LINE_UP.repeat(n - 1) + ERASE_LAST : '';
}

const LEADING_ERASE = /^((?:\x1b\[\?25[lh]|\x1b\[\?2026[hl])*)((?:\x1b\[2K\x1b\[1A)*\x1b\[2K\x1b\[G)/;

/** `data` with the erase at its start (if any) widened by `extra` lines; undefined when it has none. */
export function widenErase(data: string, extra: number): string | undefined {
  const m = LEADING_ERASE.exec(data);
  if (!m) return undefined;
  const count = (m[2]!.length - ERASE_LAST.length) / ERASE_LINE_UP.length + 1;
  return m[1] + eraseLines(Math.max(0, count + extra)) + data.slice(m[0].length);
}
