/**
 * A short exclusive lock between medchat processes: a lock file created with O_EXCL that holds
 * the owner's pid and host. It is held only while one file is read, merged and written (a few
 * milliseconds), so waiting is synchronous and bounded. A lock whose owner is gone (its pid no
 * longer runs on this host, or the file is older than `staleMs`) was left by a killed process
 * and is broken.
 */
import fs from 'node:fs';
import os from 'node:os';
import { nodeFileOps, writeAll, type FileOps } from './file-ops.js';

interface LockOptions {
  ops?: FileOps;
  /** Give up after this long (default 3 s). */
  waitMs?: number;
  /** A lock older than this is stale whoever holds it (default 10 s). */
  staleMs?: number;
}

/** The lock stayed held for `waitMs` by a process that is still running. */
export class LockTimeoutError extends Error {
  readonly code = 'ELOCKED';
  constructor(
    readonly lockFile: string,
    readonly holder: string,
  ) {
    super(`${lockFile} is held by ${holder}`);
    this.name = 'LockTimeoutError';
  }
}

export function withFileLock<T>(lockFile: string, fn: () => T, opts: LockOptions = {}): T {
  const release = holdFileLock(lockFile, opts);
  try {
    return fn();
  } finally {
    release();
  }
}

/**
 * Take the lock and keep it until the returned function is called (a lock held for a whole run:
 * give `staleMs: Infinity`, so only a holder that no longer runs makes it stale).
 */
export function holdFileLock(lockFile: string, opts: LockOptions = {}): () => void {
  const ops = opts.ops ?? nodeFileOps;
  acquire(lockFile, ops, opts.waitMs ?? 3000, opts.staleMs ?? 10_000);
  let held = true;
  return () => {
    if (!held) return;
    held = false;
    try {
      ops.unlink(lockFile);
    } catch {
      // left behind: it names this pid, so it counts as stale once this process is gone
    }
  };
}

function acquire(lockFile: string, ops: FileOps, waitMs: number, staleMs: number): void {
  const deadline = Date.now() + waitMs;
  const content = Buffer.from(`${process.pid} ${os.hostname()}\n`);
  for (let attempt = 0; ; attempt++) {
    let fd: number | undefined;
    try {
      fd = ops.open(lockFile, 'wx', 0o600);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    if (fd !== undefined) {
      try {
        writeAll(ops, fd, content);
      } catch (err) {
        closeAndRemove(ops, fd, lockFile);
        throw err;
      }
      try {
        ops.close(fd);
      } catch (err) {
        try {
          ops.unlink(lockFile);
        } catch {
          // stale by pid once this process is gone
        }
        throw err;
      }
      return;
    }
    const holder = staleHolder(lockFile, staleMs);
    if (holder === undefined) {
      try {
        fs.unlinkSync(lockFile); // stale: its owner is gone
      } catch {
        // another process broke it first
      }
      continue;
    }
    if (Date.now() >= deadline) throw new LockTimeoutError(lockFile, holder);
    sleep(Math.min(5 + attempt * 5, 50) + Math.floor(Math.random() * 10));
  }
}

/** undefined when the lock is stale; else who holds it ("pid 123"). */
function staleHolder(lockFile: string, staleMs: number): string | undefined {
  let text: string;
  let age: number;
  try {
    age = Date.now() - fs.statSync(lockFile).mtimeMs;
    text = fs.readFileSync(lockFile, 'utf8');
  } catch {
    return undefined; // gone already: try again
  }
  const [pidText, host] = text.trim().split(' ');
  const pid = Number(pidText);
  if (age > staleMs) return undefined;
  if (!Number.isInteger(pid) || pid <= 0) return age > 1000 ? undefined : 'a process that is just starting';
  if (pid === process.pid) return undefined; // this process holds no lock between calls: a leftover of an earlier one with its pid
  if (host && host !== os.hostname()) return `pid ${pid} on ${host}`;
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ESRCH') return undefined;
  }
  return `pid ${pid}`;
}

function closeAndRemove(ops: FileOps, fd: number, file: string): void {
  try {
    ops.close(fd);
  } catch {
    // reporting the first failure
  }
  try {
    ops.unlink(file);
  } catch {
    // stale by pid once this process is gone
  }
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));
function sleep(ms: number): void {
  Atomics.wait(sleeper, 0, 0, ms);
}
