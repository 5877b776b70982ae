import fs from 'node:fs';
import path from 'node:path';
import { MedchatError, usageError } from '../errors.js';
import { dataDir } from '../config/paths.js';
import { toWriteError } from '../io/atomic-file.js';
import { holdFileLock, LockTimeoutError, LockUnusableError, type ReleaseLock } from '../io/file-lock.js';
import type { FileOps } from '../io/file-ops.js';
import { batchText } from '../i18n/messages/batch.js';

/**
 * One batch at a time per answers file. Two runs appending to the same `-o` would each skip
 * only what it read at its start, ask the same questions twice and interleave their answers, so
 * a run holds `<file>.lock` (file-lock.ts: its pid, host, start time and boot) from before it
 * reads the file until it closes it. `file` is the answers file's real path (a link's target), so
 * a run through a link and a run on the file itself exclude each other.
 *
 * A second run is refused at once with one line naming the holder. A lock left by a run that is
 * gone (SIGKILL, a crash, a power cut, a pid now used by another process) is taken over, and
 * `tookOver` says so. Age alone never makes it stale, as a batch may run for hours. A lock that
 * is a folder, or another user's lock that cannot be read or removed, is refused at once naming it.
 *
 * A folder where no new file can be made (no write permission): the lock is taken in medchat's
 * own data folder instead (`<data>/locks/<device>-<inode>.lock`, the folder 0700), keyed by the
 * answers file's identity, so two runs of one user on it still exclude each other. Never unlocked:
 * when that cannot be made either, the run is refused before anything is sent.
 */
export class OutputLock {
  private constructor(
    private readonly releaseFile: ReleaseLock,
    /** The lock file held. */
    readonly lockPath: string,
  ) {
    held.add(this);
  }

  /** Whose stale lock was taken over ("pid 123, which no longer runs"), if one was. */
  get tookOver(): string | undefined {
    return this.releaseFile.tookOver;
  }

  /**
   * Lock `file` (the real path) for this run; `shown` is the path as the user gave it, for messages.
   * `fallbackDir`: where the lock goes when `file`'s folder cannot be written (default `<data>/locks`).
   */
  static take(file: string, ops: FileOps, opts: { shown?: string; fallbackDir?: string } = {}): OutputLock {
    const shown = opts.shown ?? file;
    const lockPath = `${file}.lock`;
    try {
      return OutputLock.hold(lockPath, shown, ops);
    } catch (err) {
      if (err instanceof MedchatError) throw err;
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'EACCES' && code !== 'EPERM') throw toWriteError(lockPath, err);
      return OutputLock.takeElsewhere(file, shown, ops, opts.fallbackDir ?? path.join(dataDir(), 'locks'), err);
    }
  }

  /** The lock in medchat's own folder, keyed by the answers file's device and inode. */
  private static takeElsewhere(file: string, shown: string, ops: FileOps, dir: string, first: unknown): OutputLock {
    let st: fs.Stats;
    try {
      st = fs.statSync(file);
    } catch {
      throw toWriteError(shown, first); // the answers file cannot be made there either
    }
    const lockPath = path.join(dir, `${st.dev}-${st.ino}.lock`);
    try {
      fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
      return OutputLock.hold(lockPath, shown, ops);
    } catch (err) {
      if (err instanceof MedchatError) throw err;
      const code = (err as NodeJS.ErrnoException).code ?? 'error';
      throw usageError(
        batchText.cannotLockFolder(shown, String((first as NodeJS.ErrnoException).code), dir, code),
      );
    }
  }

  private static hold(lockPath: string, shown: string, ops: FileOps): OutputLock {
    try {
      const lock = new OutputLock(holdFileLock(lockPath, { ops, waitMs: 0, staleMs: Infinity }), lockPath);
      hookExit();
      return lock;
    } catch (err) {
      if (err instanceof LockTimeoutError) {
        throw usageError(batchText.anotherBatch(err.holder, shown, err.owner, err.lockFile));
      }
      if (err instanceof LockUnusableError) {
        throw usageError(batchText.cannotLock(shown, err.lockFile, err.problem, err.remedy));
      }
      throw err;
    }
  }

  /** Let the next run in (idempotent; also done at exit if the run ends without closing its file). */
  release(): void {
    if (!held.delete(this)) return;
    this.releaseFile();
  }
}

/** Locks this process holds: released at exit if the run ended without closing its file. */
const held = new Set<OutputLock>();
let hooked = false;

function hookExit(): void {
  if (hooked) return;
  hooked = true;
  process.on('exit', () => {
    for (const l of [...held]) l.release();
  });
}
