import { createRequire } from 'node:module';
import type { Terminal as XtermTerminal } from '@xterm/headless';

/**
 * A real terminal emulator for tests of what medchat writes: xterm.js (headless), with its
 * grapheme-cluster widths (@xterm/addon-unicode-graphemes), so a family ZWJ sequence, `✅`, `⚠️`
 * and a flag take 2 cells and combining marks none, as in current terminals. Unlike
 * test/support/vt.ts it counts cells, not UTF-16 units: a glyph drawn in the wrong column shows.
 * `\n` is taken as CR LF (as a pty does with onlcr). Its screen has `rows` rows; keep tests
 * shorter than that (what scrolls off the top is still read back, from the scrollback).
 */
const require = createRequire(import.meta.url);
const { Terminal } = require('@xterm/headless') as typeof import('@xterm/headless');

/**
 * The addon builds its Unicode table from a base64 string with Buffer.from() and reads the
 * header through `new DataView(bytes.buffer)`, ignoring the byte offset. Node hands out small
 * buffers from a shared pool (offset not 0), and then every character above U+FFFF (emoji)
 * reads as 1 cell wide. With the pool off while it loads, the table is read as meant.
 */
function loadGraphemes(): typeof import('@xterm/addon-unicode-graphemes') {
  const pool = Buffer.poolSize;
  Buffer.poolSize = 0;
  try {
    return require('@xterm/addon-unicode-graphemes') as typeof import('@xterm/addon-unicode-graphemes');
  } finally {
    Buffer.poolSize = pool;
  }
}
const { UnicodeGraphemesAddon } = loadGraphemes();

/** One glyph on the screen: its text (a grapheme cluster), first column and width in cells. */
export interface Glyph {
  text: string;
  col: number;
  width: number;
}

export class XtermScreen {
  readonly term: XtermTerminal;
  private queue: Promise<void> = Promise.resolve();

  constructor(
    readonly cols: number,
    readonly rows = 60,
  ) {
    this.term = new Terminal({ cols, rows, allowProposedApi: true, convertEol: true, scrollback: 1000 });
    this.term.loadAddon(new UnicodeGraphemesAddon());
  }

  /** Write bytes; `settled()` resolves once the terminal has parsed everything written. */
  write(data: string): void {
    this.queue = this.queue.then(() => new Promise<void>((r) => this.term.write(data, r)));
  }

  settled(): Promise<void> {
    return this.queue;
  }

  /** Every row from the top of the scrollback to the cursor's row, or the last non-blank one. */
  private rowCount(): number {
    const b = this.term.buffer.active;
    let last = b.baseY + b.cursorY;
    for (let y = b.length - 1; y > last; y--) {
      if (b.getLine(y)!.translateToString(true) !== '') {
        last = y;
        break;
      }
    }
    return last + 1;
  }

  /** The glyphs of row `y` (0 = the first row ever written), blanks at the end left out. */
  glyphs(y: number): Glyph[] {
    const line = this.term.buffer.active.getLine(y);
    const out: Glyph[] = [];
    if (!line) return out;
    for (let x = 0; x < this.cols; x++) {
      const cell = line.getCell(x)!;
      if (cell.getWidth() === 0) continue; // the second half of a wide glyph
      out.push({ text: cell.getChars() || ' ', col: x, width: cell.getWidth() });
    }
    while (out.length && out.at(-1)!.text === ' ') out.pop();
    return out;
  }

  /** What the user sees, row by row (blank rows at the end trimmed, trailing blanks of each row too). */
  lines(): string[] {
    const b = this.term.buffer.active;
    const out: string[] = [];
    for (let y = 0; y < this.rowCount(); y++) out.push(b.getLine(y)!.translateToString(true).trimEnd());
    while (out.length && out.at(-1) === '') out.pop();
    return out;
  }

  /** The column where `text` starts in row `y`, or -1 (matched glyph by glyph). */
  columnOf(y: number, text: string): number {
    const g = this.glyphs(y);
    for (let i = 0; i < g.length; i++) {
      let s = '';
      for (let j = i; j < g.length && s.length < text.length; j++) s += g[j]!.text;
      if (s.startsWith(text)) return g[i]!.col;
    }
    return -1;
  }

  /** The columns of every occurrence of the glyph `ch` in row `y`. */
  columnsOf(y: number, ch: string): number[] {
    return this.glyphs(y)
      .filter((g) => g.text === ch)
      .map((g) => g.col);
  }

  dispose(): void {
    this.term.dispose();
  }
}
