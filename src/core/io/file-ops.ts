import fs from 'node:fs';
import { ioText } from '../i18n/messages/io.js';

/**
 * The few file-system calls a durable write makes, behind one small interface, so tests can put
 * a fault (a full disk, an I/O error, a short write) at any one of them, the way SQLite tests
 * its I/O layer. `nodeFileOps` is the real thing; everything that writes a file takes its calls
 * from here.
 */
export interface FileOps {
  /** Open (`'wx'`: create, fail if it exists, never follow a link; `'r'`: a folder to fsync). Returns the fd. */
  open(file: string, flags: string | number, mode?: number): number;
  /** Write up to `length` bytes of `buf` from `offset`; returns how many were written (may be fewer). */
  write(fd: number, buf: Uint8Array, offset: number, length: number): number;
  fsync(fd: number): void;
  close(fd: number): void;
  rename(from: string, to: string): void;
  unlink(file: string): void;
}

export const nodeFileOps: FileOps = {
  open: (file, flags, mode) => fs.openSync(file, flags, mode),
  write: (fd, buf, offset, length) => fs.writeSync(fd, buf, offset, length),
  fsync: (fd) => fs.fsyncSync(fd),
  close: (fd) => fs.closeSync(fd),
  rename: (from, to) => fs.renameSync(from, to),
  unlink: (file) => fs.unlinkSync(file),
};

/** Write every byte of `bytes`, looping over short writes; a write that makes no progress is an error. */
export function writeAll(ops: FileOps, fd: number, bytes: Uint8Array): void {
  let offset = 0;
  while (offset < bytes.length) {
    const n = ops.write(fd, bytes, offset, bytes.length - offset);
    if (!(n > 0)) throw errnoError('EIO', ioText.diskAcceptedNone(bytes.length - offset));
    offset += n;
  }
}

function errnoError(code: string, message: string): NodeJS.ErrnoException {
  const err = new Error(`${code}: ${message}`) as NodeJS.ErrnoException;
  err.code = code;
  return err;
}
