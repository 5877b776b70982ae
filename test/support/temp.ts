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

export function tempDir(prefix = 'medchat-test-'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  made.add(dir);
  if (!hooked) {
    hooked = true;
    process.on('exit', removeAll);
  }
  return dir;
}

export function removeTemp(dir: string): void {
  fs.rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  made.delete(dir);
}
