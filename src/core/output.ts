/**
 * Writes to stdout or stderr without losing a byte, and cheaply:
 * - text written in the same turn of the event loop is joined into one write (a stream of
 *   20,000 small chunks costs a few hundred system calls, not 20,000);
 * - a full pipe (a slow reader) makes `write` wait for `drain`, so nothing piles up in memory;
 * - a closed pipe (`| head -1`) turns into a quiet stop instead of an EPIPE crash.
 */
export class OutputWriter {
  closed = false;
  private onClosed: (() => void) | undefined;
  private pending = '';
  private scheduled = false;
  private blocked: Promise<void> | undefined;

  constructor(
    private readonly stream: NodeJS.WriteStream,
    private readonly maxPending = 64 * 1024,
  ) {
    stream.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EPIPE' || err.code === 'ERR_STREAM_DESTROYED') {
        this.closed = true;
        this.pending = '';
        this.onClosed?.();
      } else {
        throw err;
      }
    });
  }

  /** Called once when the reader goes away. */
  whenClosed(fn: () => void): void {
    this.onClosed = fn;
  }

  /** Queue text; resolves at once unless the reader is behind, then when it has caught up. */
  async write(text: string): Promise<void> {
    if (this.closed || !text) return;
    this.pending += text;
    if (this.pending.length >= this.maxPending) {
      await this.push();
    } else if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => {
        this.scheduled = false;
        void this.push();
      });
    }
    if (this.blocked) await this.blocked;
  }

  /** Resolves once everything written has been handed to the OS. */
  async flush(): Promise<void> {
    await this.push();
    if (this.closed) return;
    await new Promise<void>((resolve) => {
      if (this.stream.writableLength === 0) return resolve();
      this.stream.write('', () => resolve());
    });
  }

  private push(): Promise<void> {
    const text = this.pending;
    this.pending = '';
    if (text && !this.closed && !this.stream.write(text) && !this.blocked) {
      this.blocked = new Promise<void>((resolve) => {
        const done = () => {
          this.stream.off('drain', done);
          this.stream.off('close', done);
          this.stream.off('error', done);
          this.blocked = undefined;
          resolve();
        };
        this.stream.once('drain', done);
        this.stream.once('close', done);
        this.stream.once('error', done);
      });
    }
    return this.blocked ?? Promise.resolve();
  }
}
