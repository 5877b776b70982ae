import { usageError } from '../errors.js';
import { toWriteError } from '../io/atomic-file.js';
import { holdFileLock, LockTimeoutError } from '../io/file-lock.js';
import type { FileOps } from '../io/file-ops.js';

/**
 * One batch at a time per answers file. Two runs appending to the same `-o` would each skip
 * only what it read at its start, ask the same questions twice and interleave their answers, so
 * a run holds `<file>.lock` (file-lock.ts: its pid and host) from before it reads the file until
 * it closes it.
 *
 * A second run is refused at once with one line naming the holder. A lock left by a run that was
 * killed (SIGKILL, a crash, a power cut) names a process that no longer runs: it is taken over.
 * Age alone never makes it stale, as a batch may run for hours. A folder where no new file can
 * be made (no write permission) runs without a lock, as before there was one.
 */
export class OutputLock {
  private constructor(private readonly releaseFile: (() => void) | undefined) {
    if (releaseFile) held.add(this);
  }

  static take(file: string, ops: FileOps): OutputLock {
    const lockPath = `${file}.lock`;
    try {
      const lock = new OutputLock(holdFileLock(lockPath, { ops, waitMs: 0, staleMs: Infinity }));
      hookExit();
      return lock;
    } catch (err) {
      if (err instanceof LockTimeoutError) {
        throw usageError(`another medchat batch (${err.holder}) is writing ${file}; wait for it to end, or choose another -o (if none runs, remove ${lockPath})`);
      }
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EACCES' || code === 'EPERM') return new OutputLock(undefined);
      throw toWriteError(lockPath, err);
    }
  }

  /** Let the next run in (idempotent; also done at exit if the run ends without closing its file). */
  release(): void {
    if (!held.delete(this)) return;
    this.releaseFile?.();
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
