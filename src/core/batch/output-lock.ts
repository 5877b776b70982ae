import fs from 'node:fs';
import { usageError } from '../errors.js';
import { toWriteError } from '../io/atomic-file.js';
import { writeAll, type FileOps } from '../io/file-ops.js';

/**
 * One batch at a time per answers file. Two runs appending to the same `-o` would each skip
 * only what it read at its start, ask the same questions twice and interleave their answers, so
 * a run holds `<file>.lock` (its process id) from before it reads the file until it closes it.
 *
 * A second run is refused with one line naming the holder. A lock left by a run that was killed
 * (SIGKILL, a crash, a power cut) names a process that no longer exists: it is taken over. A
 * folder where no lock can be made (no write permission for new files) runs without one.
 */
export class OutputLock {
  private held = true;

  private constructor(
    readonly path: string | undefined,
    private readonly ops: FileOps,
  ) {
    if (path) holding(this);
  }

  static take(file: string, ops: FileOps): OutputLock {
    const lockPath = `${file}.lock`;
    for (let attempt = 0; ; attempt++) {
      let fd: number;
      try {
        fd = ops.open(lockPath, 'wx', 0o600);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'EACCES' || code === 'EPERM') return new OutputLock(undefined, ops);
        if (code !== 'EEXIST' || attempt > 0) throw lockError(file, lockPath, err);
        const holder = holderOf(lockPath);
        if (holder === undefined ? justMade(lockPath) : holder !== process.pid && running(holder)) {
          const who = holder === undefined ? 'another medchat batch' : `another medchat batch (process ${holder})`;
          throw usageError(`${who} is writing ${file}; wait for it to end, or choose another -o (if none runs, remove ${lockPath})`);
        }
        // Left by a run that no longer exists: take it over.
        try {
          ops.unlink(lockPath);
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw lockError(file, lockPath, e);
        }
        continue;
      }
      try {
        writeAll(ops, fd, Buffer.from(`${process.pid}\n`));
      } catch (err) {
        ignore(() => ops.close(fd));
        ignore(() => ops.unlink(lockPath));
        throw toWriteError(lockPath, err);
      }
      try {
        ops.close(fd);
      } catch (err) {
        ignore(() => ops.unlink(lockPath));
        throw toWriteError(lockPath, err);
      }
      return new OutputLock(lockPath, ops);
    }
  }

  /** Let the next run in (idempotent; also done at exit if the run ends without closing). */
  release(): void {
    if (!this.held) return;
    this.held = false;
    held.delete(this);
    if (this.path) ignore(() => this.ops.unlink(this.path!));
  }
}

/** Locks this process holds: released at exit if the run ended without closing its file. */
const held = new Set<OutputLock>();
let hooked = false;

function holding(lock: OutputLock): void {
  held.add(lock);
  if (hooked) return;
  hooked = true;
  process.on('exit', () => {
    for (const l of [...held]) l.release();
  });
}

function lockError(file: string, lockPath: string, err: unknown): Error {
  if ((err as { kind?: string }).kind === 'usage') return err as Error;
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'EEXIST') return usageError(`another medchat batch is writing ${file}; wait for it to end, or choose another -o (if none runs, remove ${lockPath})`);
  return toWriteError(lockPath, err);
}

/** The process id a lock file names; undefined when it names none (empty: a run killed while making it). */
function holderOf(lockPath: string): number | undefined {
  try {
    const pid = Number(fs.readFileSync(lockPath, 'utf8').trim());
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** An empty lock a few seconds old: a run is making it right now (an old empty one was left by a killed run). */
function justMade(lockPath: string): boolean {
  try {
    return Date.now() - fs.statSync(lockPath).mtimeMs < 5000;
  } catch {
    return false;
  }
}

/** Whether a process with this id exists (one of another user's counts: it is not ours to take over). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function ignore(fn: () => void): void {
  try {
    fn();
  } catch {
    // the failure already being reported matters more
  }
}
