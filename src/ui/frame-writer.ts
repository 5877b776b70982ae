import { textWidth } from './text/width.js';

/**
 * Ink redraws its live region by erasing it and writing it again, every frame. While an answer
 * streams, almost nothing changes between frames except the end of one line, so that costs
 * hundreds of bytes per byte of text. This sits between Ink and the terminal and turns each
 * "erase N lines + new content" frame into a line diff: untouched lines are skipped, a line
 * that only grew gets just its new end. Anything it does not recognise passes through as is
 * (and it stops diffing until it has seen a whole frame again).
 */
const SYNC_ON = '\x1b[?2026h';
const SYNC_OFF = '\x1b[?2026l';
const ERASE_LINE_UP = '\x1b[2K\x1b[1A';
const ERASE_LAST = '\x1b[2K\x1b[G';
/** Only colour codes (and cursor show/hide) may appear inside diffable content. */
const FOREIGN_ESCAPE = /\x1b(?!\[[0-9;]*m)|\r/;

export interface Frame {
  /** Lines erased before the content (Ink's eraseLines count), 0 when none. */
  erase: number;
  content: string;
  sync: boolean;
}

export function parseFrame(data: string): Frame | undefined {
  let s = data.replace(/\x1b\[\?25[lh]/g, '');
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

/**
 * The bytes that turn `prev` (the erased lines, cursor at the start of its last one) into `next`.
 * Both arrays are lines as split on "\n" (a trailing empty string means the cursor ends on a fresh line).
 */
export function diffLines(prev: readonly string[], next: readonly string[], columns: number): string {
  let d = 0;
  while (d < prev.length && d < next.length && prev[d] === next[d]) d++;
  if (d === prev.length && d === next.length) return '';
  const out: string[] = [];
  const up = prev.length - 1 - d;
  if (up > 0) out.push(`\x1b[${up}A`);
  out.push('\r');
  for (let i = d; i < next.length; i++) {
    if (i > d) out.push('\n');
    const was = prev[i];
    const line = next[i]!;
    if (was === line) continue;
    if (i === d && was !== undefined && was !== '' && line.startsWith(was)) {
      const w = textWidth(was);
      if (w < columns) {
        out.push(`\x1b[${w + 1}G`, line.slice(was.length), '\x1b[K');
        continue;
      }
    }
    out.push(line, '\x1b[K');
  }
  if (next.length < prev.length) out.push('\x1b[J');
  return out.join('');
}

export class FrameWriter {
  /** What the terminal shows from the start of the last frame on, as lines; undefined when unknown. */
  private lines: string[] | undefined;
  private pending = '';
  private scheduled = false;

  constructor(
    private readonly out: { write(data: string): unknown },
    private readonly columns: () => number,
  ) {}

  /** Bytes actually sent (for the benchmark and the tests). */
  bytesOut = 0;

  write = (data: string | Uint8Array): boolean => {
    this.pending += typeof data === 'string' ? data : Buffer.from(data).toString('utf8');
    if (!this.scheduled) {
      this.scheduled = true;
      queueMicrotask(this.flush);
    }
    return true;
  };

  flush = (): void => {
    this.scheduled = false;
    const data = this.pending;
    this.pending = '';
    if (!data) return;
    const frame = parseFrame(data);
    let bytes = data;
    if (!frame || !frame.content.endsWith('\n') && frame.content !== '') {
      this.lines = undefined;
    } else if (frame.erase === 0) {
      this.lines = frame.content === '' ? this.lines : [...(this.lines?.slice(0, -1) ?? []), ...frame.content.split('\n')];
      if (this.lines && this.lines.length > 500) this.lines = this.lines.slice(-500);
    } else if (this.lines && this.lines.length >= frame.erase) {
      const prev = this.lines.slice(-frame.erase);
      const next = frame.content === '' ? [''] : frame.content.split('\n');
      const diff = diffLines(prev, next, this.columns());
      bytes = (frame.sync && diff ? SYNC_ON + diff + SYNC_OFF : diff) + (data.match(/\x1b\[\?25[lh]/g)?.join('') ?? '');
      this.lines = next.length > 500 ? next.slice(-500) : next;
    } else {
      this.lines = frame.content === '' ? [''] : frame.content.split('\n');
    }
    if (bytes) {
      this.bytesOut += Buffer.byteLength(bytes);
      this.out.write(bytes);
    }
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
