import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * Temporary folders for tests. Each is removed when the test file's process exits, whatever happened (a failing
 * assertion, a thrown error, a timeout), so a run leaves the temp folder as it found it; test/run.mjs checks that.
 * A test that makes many large folders may remove one earlier with `removeTemp`.
 */
const made = new Set<string>();
let hooked = false;

function removeAll(): void {
  for (const dir of made) {
    try {
      // A medchat a test stopped (a killed tmux pane) may still be saving into it: retry for up to ~2 s.
      fs.rmSync(dir, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 });
    } catch {
      // left for test/run.mjs to report: the run fails, naming it
    }
  }
  made.clear();
}

/** The test file this process runs (`node --test` gives each its own process), so a leftover names who made it. */
const owner = path.basename(process.argv[1] ?? 'unknown').replace(/\.test\.tsx?$/, '').replace(/[^\w-]/g, '_');

const stoppers: Array<() => void> = [];

function hookExit(): void {
  if (hooked) return;
  hooked = true;
  process.on('exit', () => {
    for (const stop of stoppers) {
      try {
        stop();
      } catch {
        // still remove the folders; what is left is reported by test/run.mjs
      }
    }
    removeAll();
  });
}

/**
 * Run `stop` at exit before the folders are removed: what may still write into them (a medchat in a tmux pane)
 * must be stopped first, or it writes a removed home back.
 */
export function beforeTempRemoval(stop: () => void): void {
  stoppers.push(stop);
  hookExit();
}

export function tempDir(prefix = 'medchat-tmp-'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `${prefix}${owner}-`));
  made.add(dir);
  hookExit();
  return dir;
}

export function removeTemp(dir: string): void {
  fs.rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  made.delete(dir);
}
