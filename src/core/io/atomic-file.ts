/**
 * The one way medchat writes a file: every byte to a new temporary file beside the target
 * (created exclusively, never through a link), flushed to the disk, closed, and only then
 * renamed over the target, after which the folder is flushed too (where the system allows).
 * On any failure the temporary file is removed and the target is left exactly as it was: a
 * reader sees the previous complete file or the next one, never a part.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { nodeFileOps, writeAll, type FileOps } from './file-ops.js';
import { ioText } from '../i18n/messages/io.js';

interface AtomicWriteOptions {
  /** Permissions of the new file (default 0600: what medchat writes can hold health details). */
  mode?: number;
  /** false: skip the fsyncs (still never half-written for a killed process; a power cut may lose it). */
  durable?: boolean;
  /**
   * A symbolic link at the target: `replace` the link itself (what rename does), `refuse` to
   * write (for paths a user names: never write through a link), or `follow` it and replace the
   * file it points to (the config file, which dotfile managers link).
   */
  symlinks?: 'replace' | 'refuse' | 'follow';
  ops?: FileOps;
}

/** A failed write: `code` is the system's (ENOSPC, EIO…), `reason` a few words for a person. */
export class FileWriteError extends Error {
  constructor(
    readonly file: string,
    readonly code: string,
    readonly reason: string,
  ) {
    super(ioText.cannotWrite(file, reason, code));
    this.name = 'FileWriteError';
  }

  /** What the user can do about it, in a few words. */
  get nextStep(): string {
    return nextStepFor(this.code);
  }
}

export function writeFileAtomic(file: string, data: string | Uint8Array, opts: AtomicWriteOptions = {}): void {
  const t = TempFile.open(file, opts);
  try {
    t.write(typeof data === 'string' ? Buffer.from(data, 'utf8') : data);
  } catch (err) {
    t.abandon();
    throw err;
  }
  t.commit();
}

/**
 * writeFileAtomic for content made in pieces, too big to hold at once: `fill` gives each piece to
 * `write`. What `fill` throws of its own is thrown as it is, after the temporary file is removed.
 */
export async function writeFileAtomicFrom(
  file: string,
  fill: (write: (bytes: Uint8Array) => void) => Promise<void>,
  opts: AtomicWriteOptions = {},
): Promise<void> {
  const t = TempFile.open(file, opts);
  unfinished.add(t);
  hookExit();
  try {
    await fill((bytes) => t.write(bytes));
  } catch (err) {
    t.abandon();
    throw err;
  } finally {
    unfinished.delete(t);
  }
  t.commit();
}

/**
 * Temporary files of writes still being filled (writeFileAtomicFrom waits between pieces): a stop
 * signal that ends the process meanwhile (SIGTERM while batch rewrites its answers file) removes
 * them at exit, so no half-made copy of the file is left beside it.
 */
const unfinished = new Set<TempFile>();
let exitHooked = false;

function hookExit(): void {
  if (exitHooked) return;
  exitHooked = true;
  process.on('exit', () => {
    for (const t of unfinished) t.abandon();
  });
}

/** The temporary file beside the target: opened, written, then renamed over it (commit) or removed (abandon). */
class TempFile {
  private fd: number | undefined;

  private constructor(
    private readonly file: string,
    private readonly target: string,
    private readonly tmp: string,
    private readonly ops: FileOps,
    private readonly durable: boolean,
  ) {}

  static open(file: string, opts: AtomicWriteOptions): TempFile {
    const target = destination(file, opts.symlinks ?? 'replace');
    const tmp = path.join(path.dirname(target), `.${path.basename(target)}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`);
    const t = new TempFile(file, target, tmp, opts.ops ?? nodeFileOps, opts.durable !== false);
    try {
      t.fd = t.ops.open(tmp, 'wx', opts.mode ?? 0o600);
    } catch (err) {
      throw toWriteError(file, err);
    }
    return t;
  }

  /** Every byte, or a FileWriteError (the caller then abandons). */
  write(bytes: Uint8Array): void {
    try {
      writeAll(this.ops, this.fd!, bytes);
    } catch (err) {
      throw toWriteError(this.file, err);
    }
  }

  /** Flush, close, rename over the target, flush the folder; on a failure the target is left as it was. */
  commit(): void {
    try {
      if (this.durable) this.ops.fsync(this.fd!);
      const open = this.fd!;
      this.fd = undefined;
      this.ops.close(open);
      this.ops.rename(this.tmp, this.target);
    } catch (err) {
      this.abandon();
      throw toWriteError(this.file, err);
    }
    if (this.durable) syncFolder(this.ops, path.dirname(this.target));
  }

  abandon(): void {
    if (this.fd !== undefined) ignore(() => this.ops.close(this.fd!));
    this.fd = undefined;
    ignore(() => this.ops.unlink(this.tmp));
  }
}

/**
 * Flush a folder so a rename in it survives a power cut. Best effort: some systems cannot
 * open a folder for this (Windows), and once the rename is done the new file is in place whatever
 * this says.
 */
function syncFolder(ops: FileOps, dir: string): void {
  let fd: number | undefined;
  try {
    fd = ops.open(dir, 'r');
    ops.fsync(fd);
  } catch {
    // not supported here, or the folder could not be flushed: the file itself is complete
  } finally {
    if (fd !== undefined) ignore(() => ops.close(fd!));
  }
}

/** The path to rename onto, after checking what is there now. */
function destination(file: string, symlinks: 'replace' | 'refuse' | 'follow'): string {
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return file;
    throw toWriteError(file, err);
  }
  if (stat.isSymbolicLink()) {
    if (symlinks === 'refuse') throw new FileWriteError(file, 'ELOOP', ioText.isSymlink);
    if (symlinks === 'replace') return file;
    let real: string;
    try {
      real = fs.realpathSync(file);
    } catch (err) {
      // A dangling link: write where it points, as an editor would.
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw toWriteError(file, err);
      real = path.resolve(path.dirname(file), fs.readlinkSync(file));
    }
    return destination(real, 'refuse');
  }
  if (stat.isDirectory()) throw new FileWriteError(file, 'EISDIR', ioText.isFolder);
  if (!stat.isFile()) throw new FileWriteError(file, 'ENOTREG', ioText.notRegularWrite);
  return file;
}

/** A few words for a person on what a system error code means for a write (read when it is written). */
const REASONS: Record<string, () => string> = {
  ENOSPC: () => ioText.diskFull,
  EDQUOT: () => ioText.quotaUsed,
  EFBIG: () => ioText.fileTooLarge,
  EIO: () => ioText.diskIoError,
  EACCES: () => ioText.permissionDenied,
  EPERM: () => ioText.permissionDenied,
  EROFS: () => ioText.readOnly,
  ENOENT: () => ioText.noFolder,
  ENOTDIR: () => ioText.notAFolderInPath,
  EISDIR: () => ioText.isFolder,
  EMFILE: () => ioText.tooManyFiles,
  ENFILE: () => ioText.tooManyFiles,
  EXDEV: () => ioText.otherDisk,
  ENAMETOOLONG: () => ioText.nameTooLong,
};

function nextStepFor(code: string): string {
  if (code === 'ENOSPC' || code === 'EDQUOT' || code === 'EFBIG') return ioText.stepFreeSpace;
  if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS') return ioText.stepPermissions;
  if (code === 'ELOOP') return ioText.stepRealPath;
  if (code === 'EISDIR' || code === 'ENOTREG' || code === 'ENOENT' || code === 'ENOTDIR') return ioText.stepOtherPath;
  return ioText.stepCheckDisk;
}

export function toWriteError(file: string, err: unknown): FileWriteError {
  if (err instanceof FileWriteError) return err;
  const code = (err as NodeJS.ErrnoException)?.code ?? 'EIO';
  return new FileWriteError(file, code, REASONS[code]?.() ?? ioText.systemRefused);
}

function ignore(fn: () => void): void {
  try {
    fn();
  } catch {
    // cleanup after a failure: the failure is what gets reported
  }
}
