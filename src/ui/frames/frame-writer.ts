import { CURSOR_CODES, CursorMoves, diffFrames, MODE_CODES, parseFrame, SYNC_OFF, SYNC_ON, widenErase, type Cursor } from './frame-diff.js';
import { clipLine, eraseNarrowed, terminalReflows, wrappedRows } from './reflow.js';
import { pinClusters, textWidth } from '../../core/text/width.js';

const HIDE_CURSOR = '\x1b[?25l';
/** The most printed lines drawn in one redraw (see print). */
const PRINT_LINES = 300;
const SHOW_CURSOR = '\x1b[?25h';
/** Terminal modes set before Ink's first frame (bracketed paste): they move nothing, so they go first, as they are. */
const LEADING_MODES = /^(?:\x1b\[\?(?!25[hl]|2026[hl])\d+[hl])+/;

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
 *
 * When the terminal narrows, it re-wraps the lines it shows; Ink then erases its region by the
 * count of lines it wrote, which no longer covers them. The writer knows those lines, so that
 * erase is replaced by one over the rows they take now (see reflow.ts). With `diff: false`
 * (MEDCHAT_PLAIN_FRAMES=1) that is all it does: Ink's frames pass as written.
 */

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
  /** The terminal's width when `lines` were drawn: narrower now means they were re-wrapped. */
  private drawnAt = 0;
  private readonly diffing: boolean;
  private readonly reflows: boolean;
  private readonly homeAfterMs: number | undefined;
  private homeTimer: NodeJS.Timeout | undefined;

  /**
   * `diff: false`: pass Ink's frames as written (only the erase after a narrowing is changed).
   * `homeAfterMs`: put the cursor back under the output once nothing was written for that long
   * (unless it rests on the input's caret).
   * Where a terminal puts a cursor left inside the region when it re-wraps differs (most keep it
   * on its cell, xterm.js keeps its distance from the bottom); at the start of the line under
   * the output all agree, so a narrowing while nothing streams is always erased right.
   */
  constructor(
    private readonly out: { write(data: string): unknown },
    private readonly columns: () => number,
    opts: { diff?: boolean; reflows?: boolean; homeAfterMs?: number } = {},
  ) {
    this.diffing = opts.diff ?? true;
    this.reflows = opts.reflows ?? terminalReflows();
    this.homeAfterMs = opts.homeAfterMs;
  }

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

  /** Show the caret again where it was (after the transcript viewer gave the screen back). */
  showCaret = (): void => this.schedule();

  /** The caret's cell in `lines`, when there is one and the frame is known. */
  private caretCell(): Cursor | undefined {
    if (!this.caret || this.released || !this.lines || this.caret.up < 0 || this.narrowed()) return undefined;
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
    const hide = this.caretShown ? HIDE_CURSOR : '';
    this.caretShown = false;
    // Narrowed: the moves back would be wrong, and Ink's next erase puts the cursor right.
    const b = hide + (this.narrowed() ? '' : this.restore());
    if (b) this.emit(b);
  };

  /**
   * Forget what the terminal shows (after settling the cursor): Ink's next frame is written whole,
   * as Ink wrote it. For a redraw of the live region (Ctrl+L, back from the editor).
   */
  forget = (): void => {
    this.settle();
    this.lines = undefined;
    this.template = undefined;
  };

  /** The terminal got narrower since the lines were drawn: they may take more rows now. */
  private narrowed(): boolean {
    return this.lines !== undefined && this.columns() < this.drawnAt;
  }

  /** Send drawing bytes; the cursor then goes back to the caret, if one is set. */
  private send(bytes: string): void {
    this.emit(this.caret || this.caretShown ? this.aroundCaret(bytes) : bytes);
  }

  /** Every byte to the terminal goes out here, its disputed clusters pinned to their cells (see pinClusters). */
  private emit(bytes: string): void {
    if (!bytes) return;
    bytes = pinClusters(bytes);
    this.bytesOut += Buffer.byteLength(bytes);
    this.out.write(bytes);
    if (this.homeAfterMs === undefined) return;
    clearTimeout(this.homeTimer);
    this.homeTimer = this.cursor && !this.caretShown ? setTimeout(this.settle, this.homeAfterMs).unref() : undefined;
  }

  /** The rows `lines` take on the terminal: a line wider than it (printed, a long address) in the pieces it wraps into. */
  private rowsOf(lines: string[]): string[] {
    const columns = this.columns();
    return lines.some((l) => textWidth(l) > columns) ? lines.flatMap((l) => wrappedRows(l, columns)) : lines;
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
    this.drawnAt = this.columns();
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
    if (!this.slot || !this.template || !this.lines || this.narrowed()) return;
    this.redraw(this.expanded(this.template), 0);
  };

  /**
   * Print `printed` (finished lines, already styled and wrapped to the width) above Ink's live
   * region, as Ink's <Static> would: the region moves down under them. Returns false, printing
   * nothing, when Ink's last frame is not known here (then let Ink print them).
   */
  print = (printed: string[]): boolean => {
    this.flush();
    if (!this.slot || !this.template || !this.lines || this.narrowed()) return false;
    // A long answer (a whole answer that never broke a line) in stretches of 300 lines: each one
    // drawn as the others, the region moving down under it.
    for (let i = 0; i < printed.length; i += PRINT_LINES) {
      const rows = this.rowsOf(printed.slice(i, i + PRINT_LINES));
      this.redraw([...rows, ...this.expanded(this.template)], rows.length);
    }
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
    const region = data.slice(this.lastWriteAt).split('\n');
    const liveLines = region.length;
    // Right after a narrowing Ink may still lay out at the old width: no live line may be wider
    // than the terminal (it would wrap onto rows nobody counts). What was printed is left whole.
    const columns = this.columns();
    const clipped = region.map((l) => clipLine(l, columns));
    if (clipped.some((l, i) => l !== region[i])) data = data.slice(0, this.lastWriteAt) + clipped.join('\n');
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
    const narrowed = this.narrowed();
    let bytes: string;
    if (!frame || (!frame.content.endsWith('\n') && frame.content !== '')) {
      bytes = (narrowed ? '' : this.restore()) + expand(data);
      this.lines = undefined;
      this.cursor = undefined;
    } else {
      const content = expand(frame.content);
      const next = content === '' ? [''] : this.rowsOf(content.split('\n'));
      const known = this.lines !== undefined && this.lines.length >= frame.erase;
      if (frame.erase === 0) {
        bytes = (narrowed ? '' : this.restore()) + expand(data);
        // After a narrowing, lines drawn before it and after it take rows by different rules: unknown.
        if (narrowed) this.lines = undefined;
        else if (content !== '') this.lines = [...(this.lines?.slice(0, -1) ?? []), ...next];
        if (this.lines && this.lines.length > 500) this.lines = this.lines.slice(-500);
      } else if (known && (narrowed || !this.diffing)) {
        // Ink's whole frame again: erased over the rows the old one takes now, or as Ink wrote it.
        const prev = this.lines!.slice(-frame.erase);
        const from = this.cursor && { row: this.cursor.row - (this.lines!.length - prev.length), col: this.cursor.col };
        const codes = data.match(CURSOR_CODES)?.join('') ?? '';
        bytes = narrowed ? SYNC_ON + eraseNarrowed(prev, columns, this.reflows, from) + content + SYNC_OFF + codes : expand(data);
        this.lines = next.length > 500 ? next.slice(-500) : next;
        this.cursor = undefined;
      } else if (known) {
        const prev = this.lines!.slice(-frame.erase);
        const from = this.cursor && { row: this.cursor.row - (this.lines!.length - prev.length), col: this.cursor.col };
        const d = diffFrames(prev, next, columns, from);
        this.lines = next.length > 500 ? next.slice(-500) : next;
        this.cursor = next.length > 500 ? undefined : d.cursor;
        const codes = data.match(CURSOR_CODES)?.join('') ?? '';
        bytes = frame.sync && d.bytes && !d.smallOnly ? SYNC_ON + d.bytes + SYNC_OFF : d.bytes;
        // Showing the cursor again: it must be where Ink thinks it is.
        if (codes.includes('\x1b[?25h')) bytes += this.restore();
        bytes += codes;
      } else {
        bytes = (narrowed ? '' : this.restore()) + expand(data);
        this.lines = next;
        this.cursor = undefined;
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
    if (this.lines) this.drawnAt = columns;
    if (bytes) this.send(bytes);
  };
}
