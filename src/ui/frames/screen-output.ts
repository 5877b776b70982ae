/**
 * The main screen's output, between Ink (and the frame writer) and the terminal.
 *
 * `HeldOutput` holds what is written while a full-screen view (the transcript viewer) has the
 * alternate screen, in order, and writes it when the view closes: the main screen then ends
 * exactly as if it had been written all along, and nothing meant for it lands on the view.
 */
type WriteCallback = (err?: Error | null) => void;

export class HeldOutput {
  private held: string[] | undefined;
  private heldBytes = 0;

  constructor(private readonly out: { write(data: string, cb?: WriteCallback): unknown }) {}

  get holding(): boolean {
    return this.held !== undefined;
  }

  /** Bytes waiting for the view to close. */
  get pending(): number {
    return this.heldBytes;
  }

  /** Like `stream.write`, with an optional encoding and callback (Ink waits on one before exiting). */
  write = (data: string | Uint8Array, encOrCb?: unknown, cb?: unknown): boolean => {
    const done = (typeof encOrCb === 'function' ? encOrCb : typeof cb === 'function' ? cb : undefined) as WriteCallback | undefined;
    const text = typeof data === 'string' ? data : Buffer.from(data).toString('utf8');
    if (!this.held) {
      this.out.write(text, done);
      return true;
    }
    this.held.push(text);
    this.heldBytes += text.length;
    if (done) queueMicrotask(() => done());
    return true;
  };

  hold(): void {
    this.held ??= [];
  }

  /** Write what was held, in one go, and pass writes through again. */
  release(): void {
    const held = this.held;
    this.held = undefined;
    this.heldBytes = 0;
    if (held?.length) this.out.write(held.join(''));
  }
}

/**
 * The stdout Ink is given: the terminal, with writes going to `write` and an unlimited height.
 * Ink clears the whole terminal, scrollback included (CSI 3J), and reprints everything it ever
 * printed whenever its last frame was as tall as the screen (after the window is made shorter,
 * for one); told the screen is endless, it never does. The chat screen keeps its live region
 * shorter than the real height itself (see App's row budget).
 */
export function inkStdout(stdout: NodeJS.WriteStream, write: HeldOutput['write']): NodeJS.WriteStream {
  return new Proxy(stdout, {
    get(target, prop) {
      if (prop === 'write') return write;
      if (prop === 'rows') return 100_000;
      const v = Reflect.get(target, prop, target) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}
