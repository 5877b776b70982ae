import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { REPO } from './cli.js';
import { tempDir } from './temp.js';

/**
 * medchat built with its test hooks on (build/build.mjs with MEDCHAT_BUILD_TEST_HOOKS=1), once per
 * test file, into a temporary folder: the same bundle as dist/ but for `__MEDCHAT_TEST_HOOKS__`,
 * so MEDCHAT_TEST_POLICY_FILE names the organisation policy (the release bundle has no such
 * variable). Returns the bundle's entry, to run as `runCli(args, { bin })`. Readable by every user
 * (the other-user cases run it as nobody): the folders above it are opened for passing through.
 */
let built: string | undefined;
export function testBuild(): string {
  if (built) return built;
  const dir = tempDir('medchat-testbuild-');
  const out = path.join(dir, 'build');
  const r = spawnSync(process.execPath, [path.join(REPO, 'build', 'build.mjs'), '--outdir', out], {
    cwd: REPO,
    env: { ...process.env, MEDCHAT_BUILD_TEST_HOOKS: '1' },
    encoding: 'utf8',
    timeout: 180_000,
  });
  if (r.status !== 0) throw new Error(`the test build failed (${r.error?.message ?? `exit ${r.status}`}):\n${r.stderr}`);
  spawnSync('chmod', ['-R', 'a+rX', dir]);
  openToOthers(dir);
  built = path.join(out, 'medchat.js');
  return built;
}

/** Let other users pass through `dir` and the folders above it that this user owns (the test run's temp folder is 0700). */
export function openToOthers(dir: string): string {
  if (process.platform === 'win32') return dir;
  for (let d = dir; d !== path.dirname(d); d = path.dirname(d)) {
    const st = fs.statSync(d);
    if ((st.mode & 0o001) === 0 && st.uid === process.getuid?.()) fs.chmodSync(d, (st.mode & 0o7777) | 0o711);
  }
  return dir;
}
