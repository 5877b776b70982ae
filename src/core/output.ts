/**
 * Writes to stdout or stderr without losing a byte: waits for `drain` when a slow reader's pipe
 * is full, and turns a closed pipe (`| head -1`) into a quiet stop instead of an EPIPE crash.
 */
export class OutputWriter {
  closed = false;
  private onClosed: (() => void) | undefined;

  constructor(private readonly stream: NodeJS.WriteStream) {
    stream.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EPIPE' || err.code === 'ERR_STREAM_DESTROYED') {
        this.closed = true;
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

  async write(text: string): Promise<void> {
    if (this.closed || !text) return;
    if (!this.stream.write(text)) {
      await new Promise<void>((resolve) => {
        const done = () => {
          this.stream.off('drain', done);
          this.stream.off('close', done);
          this.stream.off('error', done);
          resolve();
        };
        this.stream.once('drain', done);
        this.stream.once('close', done);
        this.stream.once('error', done);
      });
    }
  }

  /** Resolves once everything written has been handed to the OS. */
  flush(): Promise<void> {
    if (this.closed) return Promise.resolve();
    return new Promise((resolve) => {
      if (this.stream.writableLength === 0) return resolve();
      this.stream.write('', () => resolve());
    });
  }
}
