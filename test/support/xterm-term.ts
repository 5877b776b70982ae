import { createRequire } from 'node:module';
import type { Terminal as XtermTerminal } from '@xterm/headless';

/**
 * A real terminal emulator (xterm.js, headless) for tests of what the chat screen does to the
 * terminal as a whole: its scrollback, its alternate screen, and what it re-wraps when it narrows
 * (xterm.js reflows, as most terminals do). `\n` is taken as CR LF, as a pty does.
 */
const require = createRequire(import.meta.url);
const { Terminal } = require('@xterm/headless') as typeof import('@xterm/headless');

export class TestTerminal {
  readonly term: XtermTerminal;
  private queue: Promise<void> = Promise.resolve();

  constructor(cols: number, rows: number) {
    this.term = new Terminal({ cols, rows, allowProposedApi: true, convertEol: true, scrollback: 5000 });
  }

  write = (data: string): void => {
    this.queue = this.queue.then(() => new Promise<void>((r) => this.term.write(data, r)));
  };

  /** Resolves once everything written so far has been parsed. */
  settled(): Promise<void> {
    return this.queue;
  }

  get cols(): number {
    return this.term.cols;
  }

  get rows(): number {
    return this.term.rows;
  }

  resize(cols: number, rows = this.term.rows): Promise<void> {
    return this.settled().then(() => this.term.resize(cols, rows));
  }

  get alternate(): boolean {
    return this.term.buffer.active.type === 'alternate';
  }

  /** The rows on screen now (whichever buffer is shown), trailing blanks trimmed. */
  screen(): string[] {
    const b = this.term.buffer.active;
    return Array.from({ length: this.term.rows }, (_, y) => b.getLine(b.baseY + y)?.translateToString(true, 0, this.term.cols) ?? '');
  }

  /**
   * The main screen and its scrollback as logical lines (rows the terminal wrapped joined again),
   * trailing blank lines dropped: what the user can scroll back through.
   */
  history(): string[] {
    const b = this.term.buffer.normal;
    const out: string[] = [];
    for (let y = 0; y < b.length; y++) {
      const line = b.getLine(y)!;
      const text = line.translateToString(true, 0, this.term.cols);
      if (line.isWrapped && out.length) out[out.length - 1] += text;
      else out.push(text);
    }
    while (out.length && out.at(-1) === '') out.pop();
    return out;
  }
}
