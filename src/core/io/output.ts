/**
 * Writes to stdout or stderr without losing a byte, and cheaply:
 * - text written in the same turn of the event loop is joined into one write (a stream of
 *   20,000 small chunks costs a few hundred system calls, not 20,000);
 * - a full pipe (a slow reader) makes `write` wait for `drain`, so nothing piles up in memory;
 * - a closed pipe (`| head -1`) turns into a quiet stop instead of an EPIPE crash, and any other
 *   write error (a full disk, EIO) into `failure`: the caller stops, saves, and says so in one line.
 * While a writer is attached to a stream, the process-wide guard (`guardStandardStreams`) leaves
 * that stream's errors to it.
 */
import fs from 'node:fs';
import { ExitCode } from '../exit-codes.js';
import { ioText } from '../i18n/messages/io.js';

const attached = new Set<NodeJS.WritableStream>();

/** EPIPE and a stream already destroyed by one: the reader went away. */
const READER_GONE = new Set(['EPIPE', 'ERR_STREAM_DESTROYED', 'ECONNRESET']);

export class OutputWriter {
  /** Nothing more can be written: the reader went away (`readerGone`) or a write failed (`failure`). */
  closed = false;
  readerGone = false;
  failure: NodeJS.ErrnoException | undefined;
  private onClosed: (() => void) | undefined;
  private pending = '';
  private scheduled = false;
  private blocked: Promise<void> | undefined;

  constructor(
    private readonly stream: NodeJS.WriteStream,
    private readonly maxPending = 64 * 1024,
  ) {
    attached.add(stream);
    stream.on('error', (err: NodeJS.ErrnoException) => this.fail(err));
  }

  /** Called once when nothing more can be written (reader gone or write error). */
  whenClosed(fn: () => void): void {
    this.onClosed = fn;
  }

  /** Give the stream's errors back to the process-wide guard. */
  detach(): void {
    attached.delete(this.stream);
  }

  private fail(err: NodeJS.ErrnoException): void {
    if (this.closed) return;
    this.closed = true;
    this.pending = '';
    if (READER_GONE.has(err.code ?? '')) this.readerGone = true;
    else this.failure = err;
    this.onClosed?.();
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

  /** Resolves once everything written has been handed to the OS (or the stream failed). */
  async flush(): Promise<void> {
    await this.push();
    if (this.closed) return;
    await new Promise<void>((resolve) => {
      if (this.stream.writableLength === 0) return resolve();
      this.stream.write('', () => resolve());
    });
    // A write that failed has set `errored` even if its 'error' event has not been emitted yet.
    const errored = (this.stream as { errored?: Error | null }).errored;
    if (errored) this.fail(errored as NodeJS.ErrnoException);
  }

  private push(): Promise<void> {
    const text = this.pending;
    this.pending = '';
    if (!text || this.closed) return this.blocked ?? Promise.resolve();
    let full: boolean;
    try {
      full = !this.stream.write(text);
    } catch (err) {
      this.fail(err as NodeJS.ErrnoException);
      return Promise.resolve();
    }
    if (full && !this.blocked) {
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

/** What a write error means, and what to do: the text of the one `medchat:` line. */
export function describeWriteFailure(name: 'stdout' | 'stderr', err: NodeJS.ErrnoException): string {
  const code = err.code ?? 'error';
  if (code === 'ENOSPC') return ioText.streamNoSpace(name);
  if (code === 'EBADF') return ioText.streamClosed(name);
  return ioText.streamFailed(name, code);
}

/** Write one line to stderr now, ignoring any failure (stderr may be the thing that is broken). */
export function writeStderrLine(line: string): void {
  try {
    fs.writeSync(2, line.endsWith('\n') ? line : line + '\n');
  } catch {
    // nowhere left to say it
  }
}

/**
 * For the whole process (installed by main): a stdout whose reader went away (`--help | head -1`)
 * ends medchat quietly with the exit code it already had; any other write error on stdout (a full
 * disk, EIO) ends it with one line on stderr and exit 1, never a stack trace. stderr errors never
 * stop medchat, but a failed stderr write (not a closed pipe) makes the exit code 1.
 * Streams with an OutputWriter attached (one-shot) are left to it: it saves before it ends.
 */
export function guardStandardStreams(): void {
  let stdoutDone = false;
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (attached.has(process.stdout) || stdoutDone) return;
    stdoutDone = true;
    if (process.stdout.isTTY) {
      // A terminal that went away (EIO): SIGHUP follows, and the chat screen saves and exits 129.
      if (!process.exitCode) process.exitCode = ExitCode.failure;
      return;
    }
    if (READER_GONE.has(err.code ?? '')) process.exit(process.exitCode ?? 0);
    writeStderrLine(`medchat: ${describeWriteFailure('stdout', err)}`);
    process.exit(ExitCode.failure);
  });
  process.stderr.on('error', (err: NodeJS.ErrnoException) => {
    if (attached.has(process.stderr)) return;
    if (!READER_GONE.has(err.code ?? '') && !process.exitCode) process.exitCode = ExitCode.failure;
  });
}
