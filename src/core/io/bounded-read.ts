/**
 * The one way medchat reads a path the user (or a folder it keeps) names: a regular file, at most
 * a bound. The file is opened without blocking (a FIFO with no writer opens at once instead of
 * hanging), the opened fd is checked (a folder, a FIFO, a device or a socket is refused with one
 * line naming the file), and it is read until EOF, never trusting stat's size (a /proc file says
 * 0), stopping the moment the bound is passed, so no more than the bound is ever held. Links to
 * regular files are followed as any program would.
 *
 * Streams (stdin, a pipe) go through readStreamBounded, with the same rule; decodeText is the one
 * text check (UTF-8, no NUL byte, BOM dropped) for files, stdin and -f.
 */
import fs from 'node:fs';
import net from 'node:net';
import { MedchatError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import { ioText } from '../i18n/messages/io.js';

/** Why a read was refused. */
export type ReadProblem = 'missing' | 'denied' | 'folder' | 'not-regular' | 'too-big' | 'binary' | 'not-text' | 'error';

/** A refused read: one line (exit 2) naming the file, and why, for callers that say it their own way. */
export class FileReadError extends MedchatError {
  constructor(
    message: string,
    readonly problem: ReadProblem,
  ) {
    super(message, ExitCode.usage, 'usage');
  }
}

export interface BoundedReadOptions {
  /** The most bytes read and held; one byte more and the read is refused. */
  maxBytes: number;
  /** How messages name it (`-f notes.txt`, `the config file …/config.json`); the path by default. */
  what?: string;
  /** What to do instead, said after a too-big refusal (`send a part of it`). */
  tooBigHint?: string;
  /** What to do instead, said after a not-regular refusal. */
  notRegularHint?: string;
}

const O_NONBLOCK = fs.constants.O_NONBLOCK ?? 0;

/** The bytes of a regular file, at most `maxBytes`; anything else is a FileReadError. */
export function readFileBounded(file: string, opts: BoundedReadOptions): Buffer {
  const what = opts.what ?? file;
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | O_NONBLOCK);
  } catch (err) {
    throw openError(what, err);
  }
  try {
    const stat = fs.fstatSync(fd);
    if (stat.isDirectory()) throw new FileReadError(ioText.readFolder(what), 'folder');
    if (!stat.isFile()) {
      throw new FileReadError(ioText.readNotRegular(what, kindOf(stat), opts.notRegularHint), 'not-regular');
    }
    if (stat.size > opts.maxBytes) throw tooBig(what, opts, stat.size);
    // One byte more than the size tells a file that is longer than it says (/proc) or grew.
    let buf = Buffer.allocUnsafe(Math.min(opts.maxBytes + 1, Math.max(stat.size + 1, 64 * 1024)));
    let got = 0;
    for (;;) {
      if (got === buf.length) {
        if (got > opts.maxBytes) throw tooBig(what, opts);
        const next = Buffer.allocUnsafe(Math.min(opts.maxBytes + 1, buf.length * 2));
        buf.copy(next, 0, 0, got);
        buf = next;
      }
      let n: number;
      try {
        n = fs.readSync(fd, buf, got, buf.length - got, null);
      } catch (err) {
        throw new FileReadError(ioText.cannotReadIt(what, (err as NodeJS.ErrnoException).code ?? 'error'), 'error');
      }
      if (n === 0) break;
      got += n;
    }
    if (got > opts.maxBytes) throw tooBig(what, opts);
    return buf.subarray(0, got);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * The first `n` bytes (or fewer) of a regular file, to tell its kind without reading it whole;
 * undefined when it is missing, unreadable or not a regular file (opened without blocking on a FIFO).
 */
export function readFileStart(file: string, n: number): Buffer | undefined {
  let fd: number | undefined;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0));
    if (!fs.fstatSync(fd).isFile()) return undefined;
    const b = Buffer.alloc(n);
    return b.subarray(0, fs.readSync(fd, b, 0, n, 0));
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/** A regular file as text (decodeText), at most `maxBytes`. */
export function readTextFileBounded(file: string, opts: BoundedReadOptions): string {
  return decodeText(readFileBounded(file, opts), opts.what ?? file);
}

/**
 * All of a stream (stdin, a pipe, a device), at most `maxBytes`: the moment it passes that, the
 * stream is destroyed and `tooBig()` thrown, holding no more than the bound.
 */
export async function readStreamBounded(stream: AsyncIterable<Buffer | string>, maxBytes: number, tooBigError: () => Error): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    size += buf.length;
    if (size > maxBytes) {
      chunks.length = 0;
      (stream as { destroy?: () => void }).destroy?.();
      throw tooBigError();
    }
    chunks.push(buf);
  }
  const bytes = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
  chunks.length = 0;
  return bytes;
}

/**
 * A FIFO opened without blocking (O_NONBLOCK: a blocking open waits for a writer for ever), as
 * a stream of chunks. One read first tells whether anything writes to it: nothing (EOF at once)
 * is `noWriter()`, since the kernel never reports a FIFO that never had a writer as readable or
 * hung up. <(…) always has its writer.
 */
export async function* readPipe(fd: number, noWriter: () => Error): AsyncGenerator<Buffer> {
  const first = Buffer.allocUnsafe(64 * 1024);
  let n: number;
  try {
    n = fs.readSync(fd, first, 0, first.length, null);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') {
      fs.closeSync(fd);
      throw err;
    }
    n = -1; // a writer, nothing written yet
  }
  if (n === 0) {
    fs.closeSync(fd);
    throw noWriter();
  }
  if (n > 0) yield first.subarray(0, n);
  const socket = new net.Socket({ fd, readable: true, writable: false });
  try {
    for await (const chunk of socket) yield chunk as Buffer;
  } finally {
    socket.destroy();
  }
}

/** UTF-8 text, or a FileReadError naming `what` and where the bytes stop being text. */
export function decodeText(bytes: Uint8Array, what: string): string {
  const nul = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).indexOf(0);
  if (nul >= 0) {
    throw new FileReadError(ioText.looksBinary(what, nul, bytes.length), 'binary');
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes).replace(/^\uFEFF/, '');
  } catch {
    throw new FileReadError(ioText.notUtf8(what), 'not-text');
  }
}

/** `2.0 MB`, `12 KB`, `80 bytes`: sizes in these messages. */
export function formatBytes(n: number): string {
  if (n >= 1024 * 1024) return `${(n / 1024 / 1024).toFixed(1)} MB`;
  if (n >= 1024) return `${Math.round(n / 1024)} KB`;
  return `${n} bytes`;
}

/** A folder, a FIFO, a device or a socket, for messages. */
export function kindOf(stat: fs.Stats): string {
  if (stat.isDirectory()) return ioText.kindFolder;
  if (stat.isFIFO()) return ioText.kindFifo;
  if (stat.isCharacterDevice()) return ioText.kindCharDevice;
  if (stat.isBlockDevice()) return ioText.kindBlockDevice;
  if (stat.isSocket()) return ioText.kindSocket;
  if (stat.isFile()) return ioText.kindFile;
  return ioText.kindNotFile;
}

function tooBig(what: string, opts: BoundedReadOptions, size?: number): FileReadError {
  return new FileReadError(ioText.tooBig(what, size !== undefined ? formatBytes(size) : undefined, formatBytes(opts.maxBytes), opts.tooBigHint), 'too-big');
}

function openError(what: string, err: unknown): FileReadError {
  const code = (err as NodeJS.ErrnoException)?.code;
  if (code === 'ENOENT') return new FileReadError(ioText.noSuchFile(what), 'missing');
  if (code === 'EACCES' || code === 'EPERM') return new FileReadError(ioText.readDenied(what), 'denied');
  if (code === 'EISDIR') return new FileReadError(ioText.readFolder(what), 'folder');
  if (code === 'ENXIO') return new FileReadError(ioText.nothingBehind(what), 'not-regular');
  if (code === 'ENOTDIR') return new FileReadError(ioText.fileInPath(what), 'error');
  return new FileReadError(ioText.cannotOpen(what, code ?? 'error'), 'error');
}
