import { clusterEnd, clusterStart, textWidth } from './text/width.js';

/** `line` has a grapheme cluster boundary at `at`. */
const endsCluster = (line: string, at: number) => clusterEnd(line, clusterStart(line, at)) === at;

/**
 * Ink redraws its live region by erasing it and writing it again, every frame. While an answer
 * streams, almost nothing changes between frames except the end of one line, so that costs
 * hundreds of bytes per byte of text. This sits between Ink and the terminal and turns each
 * "erase N lines + new content" frame into a line diff: untouched lines are skipped, a line
 * that only grew gets just its new end. Anything it does not recognise passes through as is
 * (and it stops diffing until it has seen a whole frame again).
 *
 * The terminal's cursor is hidden while Ink runs, so after a diff it is left where the last
 * change ended (usually just after the answer's last word): the next frame, which most often
 * only appends to that same line, then costs the new text and nothing else. Before anything
 * else is written (Ink's own frames, a screen clear, showing the cursor again) it is put back
 * where Ink expects it: at the start of the line under its output.
 *
 * While the input box has a caret (`setCaret`), the cursor rests there instead, shown, so input
 * methods open their window where the user types: each frame is drawn with it hidden, then it goes
 * back. The box reports no caret while an answer streams into an empty box (moving the cursor
 * there and back every frame would cost more bytes than the text).
 */
const SYNC_ON = '\x1b[?2026h';
const SYNC_OFF = '\x1b[?2026l';
const ERASE_LINE_UP = '\x1b[2K\x1b[1A';
const ERASE_LAST = '\x1b[2K\x1b[G';
const CURSOR_CODES = /\x1b\[\?25[lh]/g;
const HIDE_CURSOR = '\x1b[?25l';
const SHOW_CURSOR = '\x1b[?25h';
/** Cursor show/hide and synchronized-output marks: writes of only these carry no content. */
const MODE_CODES = /\x1b\[\?(?:25|2026)[lh]/g;
/** Terminal modes set before Ink's first frame (bracketed paste): they move nothing, so they go first, as they are. */
const LEADING_MODES = /^(?:\x1b\[\?(?!25[hl]|2026[hl])\d+[hl])+/;
/** Only colour codes (and cursor show/hide) may appear inside diffable content. */
const FOREIGN_ESCAPE = /\x1b(?!\[[0-9;]*m)|\r/;

export interface Frame {
  /** Lines erased before the content (Ink's eraseLines count), 0 when none. */
  erase: number;
  content: string;
  sync: boolean;
}

export function parseFrame(data: string): Frame | undefined {
  let s = data.replace(CURSOR_CODES, '');
  let sync = false;
  if (s.startsWith(SYNC_ON) && s.endsWith(SYNC_OFF)) {
    s = s.slice(SYNC_ON.length, -SYNC_OFF.length);
    sync = true;
  }
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
class CursorMoves {
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

  toCol(c: number): void {
    if (c === this.col) return;
    this.out.push(c === 0 ? '\r' : `\x1b[${c + 1}G`);
    this.col = c;
  }
}

export interface Diff {
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
  for (let i = 0; i <= last; i++) {
    const was = prev[i];
    const line = next[i]!;
    if (was === line) continue;
    if (i === last && line === '' && was === undefined) continue; // made below, if needed
    m.toRow(i);
    touched++;
    const w = was ? textWidth(was) : 0;
    if (was !== undefined && was !== '' && w < columns && line.startsWith(was) && endsCluster(line, was.length)) {
      // The rest of that row is blank already: just the new end (unless it goes on with the
      // glyph the row ends with, a ZWJ sequence or a mark that came in two parts: a terminal
      // would draw the second part as a glyph of its own).
      m.toCol(w);
      m.out.push(line.slice(was.length));
    } else {
      m.toCol(0);
      m.out.push(line, '\x1b[K');
    }
    const nw = textWidth(line);
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

/**
 * Rows drawn by the writer itself, in place of a marker line in Ink's output: the streaming
 * answer (or the thinking preview), which changes every frame while nothing else does. Ink lays
 * out and renders one marker line; the writer puts the current rows there each time it writes a
 * frame, and `repaint()` redraws them between Ink's frames without running React or Ink at all.
 */
export interface LiveRowsSource {
  /** A line of Ink's output equal to this is replaced by the rows. */
  readonly marker: string;
  /** The rows to show now (at least one). */
  rows(): string[];
}

/**
 * Where the input box's caret is: rows above the line under Ink's output (where Ink leaves the
 * cursor) and the column. Counted from the bottom, so rows the writer adds above (live rows,
 * printed paragraphs) do not move it.
 */
export interface Caret {
  up: number;
  col: number;
}

export class FrameWriter {
  /** What the terminal shows from the start of the last frame on, as lines; undefined when unknown. */
  private lines: string[] | undefined;
  /** Where the cursor was left; undefined means where Ink expects it (start of the last line). */
  private cursor: Cursor | undefined;
  private pending = '';
  private scheduled = false;
  private slot: LiveRowsSource | undefined;
  /** Ink's last frame as Ink wrote it (marker included), when it holds the marker; else undefined. */
  private template: string[] | undefined;
  /** Where that frame starts in `lines`. */
  private frameStart = 0;
  /** Lines the rows added to Ink's last frame: Ink's next erase must cover them too. */
  private extra = 0;
  /** Where in `pending` the last write with content began. */
  private lastWriteAt = 0;
  /** Where the cursor rests between frames, shown (see setCaret); undefined: hidden, left where drawing ended. */
  private caret: Caret | undefined;
  private caretShown = false;
  /** Ink showed the cursor (it is leaving): the caret is no longer placed. */
  private released = false;

  constructor(
    private readonly out: { write(data: string): unknown },
    private readonly columns: () => number,
  ) {}

  /** Bytes actually sent (for the benchmark and the tests). */
  bytesOut = 0;

  /** Draw `source`'s rows wherever its marker appears in Ink's output. */
  setLiveRows(source: LiveRowsSource | undefined): void {
    this.slot = source;
  }

  /**
   * Like `stream.write`: an optional encoding and callback. The callback runs once this write has
   * been flushed to the terminal (Ink's `stdout.write('', cb)` waits on it before exiting).
   */
  write = (data: string | Uint8Array, encOrCb?: unknown, cb?: unknown): boolean => {
    const done = typeof encOrCb === 'function' ? encOrCb : typeof cb === 'function' ? cb : undefined;
    const text = typeof data === 'string' ? data : Buffer.from(data).toString('utf8');
    // Ink writes its live region last (after any <Static> output): remember where that write began.
    if (text.replace(MODE_CODES, '') !== '') this.lastWriteAt = this.pending.length;
    this.pending += text;
    this.schedule();
    if (done) queueMicrotask(() => (done as (err?: Error | null) => void)());
    return true;
  };

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    queueMicrotask(this.tick);
  }

  /** Flush what Ink wrote; with nothing written, still move the cursor to a caret that moved. */
  private tick = (): void => {
    const idle = this.pending === '';
    this.flush();
    if (idle) this.send('');
  };

  /**
   * Rest the terminal's cursor on the input's caret between frames, shown, so an input method
   * opens its window where the user types; undefined hides it again (cheaper while text streams).
   */
  setCaret = (caret: Caret | undefined): void => {
    if (caret?.up === this.caret?.up && caret?.col === this.caret?.col) return;
    this.caret = caret;
    this.schedule();
  };

  /** The caret's cell in `lines`, when there is one and the frame is known. */
  private caretCell(): Cursor | undefined {
    if (!this.caret || this.released || !this.lines || this.caret.up < 0) return undefined;
    const row = this.lines.length - 1 - this.caret.up;
    return row < 0 ? undefined : { row, col: Math.max(0, Math.min(this.caret.col, this.columns() - 1)) };
  }

  /** `bytes` drawn with the cursor hidden, then the cursor moved to the caret and shown (or left hidden). */
  private aroundCaret(bytes: string): string {
    const target = this.caretCell();
    const hide = this.caretShown && (bytes !== '' || !target) ? HIDE_CURSOR : '';
    if (!target) {
      this.caretShown = false;
      return hide + bytes;
    }
    const from = this.cursor ?? { row: this.lines!.length - 1, col: 0 };
    const m = new CursorMoves(from.row, from.col, this.lines!.length - 1);
    m.toRow(target.row);
    m.toCol(target.col!);
    this.cursor = target;
    const show = hide || !this.caretShown ? SHOW_CURSOR : '';
    this.caretShown = true;
    return hide + bytes + m.out.join('') + show;
  }

  /** The bytes that put the cursor back where Ink expects it ('' when it is there). */
  private restore(): string {
    const c = this.cursor;
    this.cursor = undefined;
    if (!c || !this.lines) return '';
    const m = new CursorMoves(c.row, c.col, this.lines.length - 1);
    m.toRow(this.lines.length - 1);
    m.toCol(0);
    return m.out.join('');
  }

  /** Put the cursor back under Ink's output now (before something else uses the terminal). */
  settle = (): void => {
    this.flush();
    const b = (this.caretShown ? HIDE_CURSOR : '') + this.restore();
    this.caretShown = false;
    if (b) this.emit(b);
  };

  /** Send drawing bytes; the cursor then goes back to the caret, if one is set. */
  private send(bytes: string): void {
    this.emit(this.caret || this.caretShown ? this.aroundCaret(bytes) : bytes);
  }

  private emit(bytes: string): void {
    if (!bytes) return;
    this.bytesOut += Buffer.byteLength(bytes);
    this.out.write(bytes);
  }

  private liveRows(): string[] {
    const rows = this.slot!.rows();
    return rows.length ? rows : [''];
  }

  /** Ink's last frame with the current rows in place of the marker. */
  private expanded(template: string[]): string[] {
    return template.join('\n').replace(this.slot!.marker, this.liveRows().join('\n')).split('\n');
  }

  /** Draw `next` in place of Ink's last frame (from `frameStart` on), as a diff; `above` of its lines are printed for good. */
  private redraw(next: string[], above: number): void {
    const prev = this.lines!.slice(this.frameStart);
    const from = this.cursor && { row: this.cursor.row - this.frameStart, col: this.cursor.col };
    const d = diffFrames(prev, next, this.columns(), from);
    // Lines above Ink's frame are never drawn again: keep only the frame (and what was just printed).
    this.lines = next;
    this.cursor = d.cursor;
    this.frameStart = above;
    this.extra = next.length - above - this.template!.length;
    // One line changed is drawn as it comes; more at once as one synchronized update.
    if (d.bytes) this.send(d.touched <= 1 ? d.bytes : SYNC_ON + d.bytes + SYNC_OFF);
  }

  /**
   * Redraw the live rows now, as a diff against what the screen shows (usually: the new end of
   * the answer's last line). Does nothing unless Ink's last frame holds the marker.
   */
  repaint = (): void => {
    this.flush();
    if (!this.slot || !this.template || !this.lines) return;
    this.redraw(this.expanded(this.template), 0);
  };

  /**
   * Print `printed` (finished lines, already styled and wrapped to the width) above Ink's live
   * region, as Ink's <Static> would: the region moves down under them. Returns false, printing
   * nothing, when Ink's last frame is not known here (then let Ink print them).
   */
  print = (printed: string[]): boolean => {
    this.flush();
    if (!this.slot || !this.template || !this.lines || printed.length > 300) return false;
    this.redraw([...printed, ...this.expanded(this.template)], printed.length);
    return true;
  };

  flush = (): void => {
    this.scheduled = false;
    let data = this.pending;
    this.pending = '';
    if (!data) return;
    if (data.includes(SHOW_CURSOR)) this.released = true;
    const modes = LEADING_MODES.exec(data)?.[0] ?? '';
    if (modes) {
      this.emit(modes);
      data = data.slice(modes.length);
      this.lastWriteAt = Math.max(0, this.lastWriteAt - modes.length);
      if (!data) return;
    }
    // The lines of Ink's live region: its last write (anything before it was <Static> output).
    const liveLines = data.slice(this.lastWriteAt).split('\n').length;
    this.lastWriteAt = 0;
    // Ink erases as many lines as it wrote last time; the rows may have made that frame taller.
    const widened = widenErase(data, this.extra);
    if (widened !== undefined) {
      data = widened;
      this.extra = 0;
    }
    const marker = this.slot?.marker;
    const rows = marker !== undefined && data.includes(marker) ? this.liveRows() : undefined;
    const expand = (s: string) => (rows ? s.replace(marker!, rows.join('\n')) : s);
    if (rows) this.extra = rows.length - 1;
    else if (data.includes('\x1b[2J')) this.extra = 0; // Ink cleared the screen and wrote afresh
    this.template = undefined;
    const frame = parseFrame(data);
    let bytes: string;
    if (!frame || (!frame.content.endsWith('\n') && frame.content !== '')) {
      bytes = this.restore() + expand(data);
      this.lines = undefined;
    } else {
      const content = expand(frame.content);
      const next = content === '' ? [''] : content.split('\n');
      if (frame.erase === 0) {
        bytes = this.restore() + expand(data);
        if (content !== '') this.lines = [...(this.lines?.slice(0, -1) ?? []), ...next];
        if (this.lines && this.lines.length > 500) this.lines = this.lines.slice(-500);
      } else if (this.lines && this.lines.length >= frame.erase) {
        const prev = this.lines.slice(-frame.erase);
        const from = this.cursor && { row: this.cursor.row - (this.lines.length - prev.length), col: this.cursor.col };
        const d = diffFrames(prev, next, this.columns(), from);
        this.lines = next.length > 500 ? next.slice(-500) : next;
        this.cursor = next.length > 500 ? undefined : d.cursor;
        const codes = data.match(CURSOR_CODES)?.join('') ?? '';
        bytes = frame.sync && d.bytes && !d.smallOnly ? SYNC_ON + d.bytes + SYNC_OFF : d.bytes;
        // Showing the cursor again: it must be where Ink thinks it is.
        if (codes.includes('\x1b[?25h')) bytes += this.restore();
        bytes += codes;
      } else {
        bytes = this.restore() + expand(data);
        this.lines = next;
      }
      if (rows && this.lines) {
        const live = frame.content.split('\n').slice(-liveLines);
        const start = this.lines.length - (live.length + rows.length - 1);
        if (start >= 0 && live.some((l) => l.includes(marker!))) {
          this.template = live;
          this.frameStart = start;
        }
      }
    }
    if (bytes) this.send(bytes);
  };
}

/** A stdout for Ink whose writes go through a FrameWriter; everything else is the real stream. */
export function diffingStdout(stdout: NodeJS.WriteStream): { stream: NodeJS.WriteStream; writer: FrameWriter } {
  const writer = new FrameWriter(stdout, () => stdout.columns || 80);
  const stream = new Proxy(stdout, {
    get(target, prop) {
      if (prop === 'write') return writer.write;
      const v = Reflect.get(target, prop, target) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
  return { stream, writer };
}
