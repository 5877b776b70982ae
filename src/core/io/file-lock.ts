/**
 * A short exclusive lock between medchat processes: a lock file created with O_EXCL that holds
 * the owner's pid and host and, where the system tells (Linux), the owner's start time and the
 * boot it runs in: `123 host start:4567 boot:<id>`. Older medchat wrote `123 host`, and reads only
 * those two fields of a newer lock.
 *
 * A lock whose owner is gone is stale and taken over: its pid no longer runs on this host; or the
 * pid runs but is another process (it started at another time, or the lock is from before the
 * machine restarted: pids are reused); or the file is older than `staleMs`.
 *
 * Every wait is bounded by `waitMs` and sleeps between looks. A lock medchat cannot use (a folder,
 * a link, a file it can neither read nor remove) is never taken for stale over and over: it is
 * reported at once (LockUnusableError), or, while it may still belong to a live process (another
 * user's unreadable lock younger than `staleMs`), waited for up to `waitMs` and reported as held.
 * The wait is synchronous (the session lock is held for a few milliseconds); a stop signal that
 * arrives during it is handled when it ends, at most `waitMs` later.
 */
import fs from 'node:fs';
import os from 'node:os';
import { nodeFileOps, writeAll, type FileOps } from './file-ops.js';
import { ioText } from '../i18n/messages/io.js';

interface LockOptions {
  ops?: FileOps;
  /** Give up after this long (default 3 s). */
  waitMs?: number;
  /** A lock older than this is stale whoever holds it (default 10 s). */
  staleMs?: number;
}

/** The lock stayed held for `waitMs` by a process that is still running (or may be). */
export class LockTimeoutError extends Error {
  readonly code = 'ELOCKED';
  constructor(
    readonly lockFile: string,
    readonly holder: string,
    /** The user who owns the lock file, when it is not this process's user ("user alice"): only they can remove it. */
    readonly owner?: string,
  ) {
    super(ioText.lockHeld(lockFile, holder));
    this.name = 'LockTimeoutError';
  }
}

/** The lock path holds something medchat cannot use as a lock or cannot take over. */
export class LockUnusableError extends Error {
  readonly code = 'ELOCKUNUSABLE';
  constructor(
    readonly lockFile: string,
    /** What is wrong, to follow the lock's path: "is a folder, not a lock medchat made". */
    readonly problem: string,
    /** What to do: "remove it, then run again". */
    readonly remedy: string,
  ) {
    super(ioText.lockUnusable(lockFile, problem, remedy));
    this.name = 'LockUnusableError';
  }
}

/** A held lock's release function; `tookOver` says whose stale lock was taken over, if one was. */
export type ReleaseLock = (() => void) & { readonly tookOver?: string };

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
export function holdFileLock(lockFile: string, opts: LockOptions = {}): ReleaseLock {
  const ops = opts.ops ?? nodeFileOps;
  const tookOver = acquire(lockFile, ops, opts.waitMs ?? 3000, opts.staleMs ?? 10_000);
  let held = true;
  const release = () => {
    if (!held) return;
    held = false;
    try {
      ops.unlink(lockFile);
    } catch {
      // left behind: it names this process, so it counts as stale once this process is gone
    }
  };
  return Object.assign(release, { tookOver });
}

/** What this process writes into a lock: pid, host and, where known, start time and boot. */
export function lockLine(): string {
  const start = processStart(process.pid);
  const boot = bootId();
  return `${process.pid} ${os.hostname()}${start ? ` start:${start}` : ''}${boot ? ` boot:${boot}` : ''}\n`;
}

/**
 * A lock that timed out in this process, and the file it was then: asked again while the same
 * file is there, it is reported at once rather than waited for again (a session saves every
 * second while an answer streams; each save must not stall for `waitMs`).
 */
const timedOut = new Map<string, { stamp: string; until: number }>();

function acquire(lockFile: string, ops: FileOps, waitMs: number, staleMs: number): string | undefined {
  const start = Date.now();
  const deadline = start + waitMs;
  const content = Buffer.from(lockLine());
  let tookOver: string | undefined;
  let quickRetries = 0;
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
      timedOut.delete(lockFile);
      return tookOver;
    }
    const seen = inspect(lockFile, staleMs);
    if (seen.state === 'stale') {
      try {
        ops.unlink(lockFile);
        tookOver = seen.why;
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code !== 'ENOENT') {
          // Stale, but it stays: say so once instead of looking at it again and again.
          throw new LockUnusableError(lockFile, ioText.lockCannotRemove(seen.why, code ?? 'error'), seen.owner ? ioText.askOwnerToRemove(seen.owner) : ioText.removeOrPermissions);
        }
        // ENOENT: another process broke it first
      }
    }
    const now = Date.now();
    if (seen.state === 'held') {
      const last = timedOut.get(lockFile);
      if (now >= deadline || (last && last.stamp === seen.stamp && now < last.until)) {
        timedOut.set(lockFile, { stamp: seen.stamp, until: now + 60_000 });
        throw new LockTimeoutError(lockFile, seen.holder, seen.owner);
      }
    } else if (now >= deadline + 1000) {
      // Gone or broken each time, yet never ours: others keep taking it.
      throw new LockTimeoutError(lockFile, ioText.othersKeepTaking);
    }
    // A lock just broken, or gone, is tried again at once (twice at most); everything else sleeps.
    if (seen.state === 'held' || quickRetries++ >= 2) {
      const slice = Math.min(5 + attempt * 5, 50) + Math.floor(Math.random() * 10);
      sleep(Math.max(1, Math.min(slice, deadline - now)));
    }
  }
}

type Seen =
  | { state: 'gone' }
  | { state: 'stale'; why: string; owner?: string }
  | { state: 'held'; holder: string; stamp: string; owner?: string };

/** What is at the lock's path now; throws LockUnusableError for what is not a lock at all. */
function inspect(lockFile: string, staleMs: number): Seen {
  let st: fs.Stats;
  try {
    st = fs.lstatSync(lockFile);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { state: 'gone' };
    throw new LockUnusableError(lockFile, ioText.lockCannotLook(code ?? 'error'), ioText.stepPermissions);
  }
  if (st.isDirectory()) throw new LockUnusableError(lockFile, ioText.lockIsFolder, ioText.moveFolderRunAgain);
  if (!st.isFile()) {
    throw new LockUnusableError(lockFile, st.isSymbolicLink() ? ioText.lockIsSymlink : ioText.lockNotRegular, ioText.removeRunAgain);
  }
  const mine = typeof process.getuid !== 'function' || st.uid === process.getuid();
  const owner = mine ? undefined : userName(st.uid);
  const stamp = `${st.ino}:${st.mtimeMs}:${st.size}`;
  const age = Date.now() - st.mtimeMs;
  let text: string;
  try {
    text = readHead(lockFile);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { state: 'gone' };
    if (code !== 'EACCES' && code !== 'EPERM') throw new LockUnusableError(lockFile, ioText.lockCannotRead(code ?? 'error'), ioText.removeRunAgain);
    // Someone else's lock, closed to us: it may be held by a live process of theirs until it is old.
    if (age > staleMs) return { state: 'stale', why: ioText.staleUnreadable(owner, ago(age)), owner };
    return { state: 'held', holder: ioText.heldUnreadable(owner), stamp, owner };
  }
  const why = judge(text, age, staleMs);
  return why.stale ? { state: 'stale', why: why.text, owner } : { state: 'held', holder: why.text, stamp, owner };
}

/** Whether a lock's content names a live holder: `text` says who, or whose stale lock it is. */
function judge(content: string, age: number, staleMs: number): { stale: boolean; text: string } {
  const [pidText, host, ...rest] = content.trim().split(' ');
  const fields = new Map(rest.map((f) => [f.slice(0, f.indexOf(':')), f.slice(f.indexOf(':') + 1)]));
  const pid = Number(pidText);
  if (!Number.isInteger(pid) || pid <= 0) {
    return age > Math.min(1000, staleMs) ? { stale: true, text: ioText.neverFinished(ago(age)) } : { stale: false, text: ioText.justStarting };
  }
  if (age > staleMs) return { stale: true, text: ioText.pidAgo(pid, ago(age)) };
  if (host && host !== os.hostname()) return { stale: false, text: ioText.pidOnHost(pid, host) };
  const boot = fields.get('boot');
  const bootNow = bootId();
  if (boot && bootNow && boot !== bootNow) return { stale: true, text: ioText.pidBeforeBoot(pid) };
  if (pid === process.pid) {
    // This process's own lock, taken earlier and held (a batch's, for its whole run), when it
    // recorded this process's start; else a leftover of an earlier process with this pid.
    const start = fields.get('start');
    if (start && start === processStart(pid)) return { stale: false, text: ioText.pid(pid) };
    return { stale: true, text: ioText.pidEarlierProcess(pid) };
  }
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ESRCH') return { stale: true, text: ioText.pidGone(pid) };
  }
  const start = fields.get('start');
  const startNow = start ? processStart(pid) : undefined;
  if (start && startNow && start !== startNow) return { stale: true, text: ioText.pidReused(pid) };
  return { stale: false, text: ioText.pid(pid) };
}

/** The first bytes of a lock (all a lock holds), never through a link and never waiting on a pipe put there meanwhile. */
function readHead(file: string): string {
  const fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0) | (fs.constants.O_NONBLOCK ?? 0));
  try {
    const buf = Buffer.alloc(512);
    const n = fs.readSync(fd, buf, 0, buf.length, 0);
    return buf.toString('utf8', 0, n);
  } finally {
    fs.closeSync(fd);
  }
}

/** "5m ago" for a lock's age. */
function ago(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 120) return ioText.secondsAgo(s);
  if (s < 7200) return ioText.minutesAgo(Math.round(s / 60));
  return ioText.hoursAgo(Math.round(s / 3600));
}

/** When a process started, in clock ticks since boot (/proc/<pid>/stat field 22); undefined where there is no /proc. */
function processStart(pid: number): string | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 2 is the command in parentheses and may hold spaces or parentheses: count from after the last one.
    const after = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const start = after[19]; // fields 3… : field 22 is index 19
    return start && /^\d+$/.test(start) ? start : undefined;
  } catch {
    return undefined;
  }
}

let bootCache: string | null | undefined;
/** This boot's id (Linux), so a lock from before a restart is known by it. */
function bootId(): string | undefined {
  if (bootCache === undefined) {
    try {
      const id = fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
      bootCache = /^[0-9a-f-]{8,64}$/i.test(id) ? id : null;
    } catch {
      bootCache = null;
    }
  }
  return bootCache ?? undefined;
}

/** "user alice" for a uid (from /etc/passwd where there is one), else "user 1001". */
function userName(uid: number): string {
  try {
    for (const line of fs.readFileSync('/etc/passwd', 'utf8').split('\n')) {
      const [name, , id] = line.split(':');
      if (name && Number(id) === uid) return `user ${name}`;
    }
  } catch {
    // no passwd file (macOS keeps users elsewhere, Windows has none): the number it is
  }
  return `user ${uid}`;
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
