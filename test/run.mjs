// Runs every test file under test/ with Node's own test runner (TypeScript through tsx).
// `node test/run.mjs [filter]` runs only the files whose path contains `filter`.
//
// The run gets a temporary folder of its own (TMPDIR and TMUX_TMPDIR point into it): every test removes what it made
// there, and at the end the run fails if anything of medchat's is left (temporary homes, tmux sockets), then removes
// the folder, so a full run leaves the system temp folder as it found it.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(fileURLToPath(import.meta.url));
const filter = process.argv[2];
const files = [];
(function walk(dir) {
  for (const name of readdirSync(dir).sort()) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) {
      if (name !== 'support' && name !== 'fixtures') walk(full);
    } else if (/\.test\.tsx?$/.test(name) && (!filter || full.includes(filter))) {
      files.push(path.relative(process.cwd(), full));
    }
  }
})(root);

if (files.length === 0) {
  console.error('no test files found');
  process.exit(1);
}

// Tests that need a tool the machine lacks are skipped: say so once, up front, with what to install.
const tools = [
  ['tmux', ['-V'], 'the tests that drive the real chat screen in a terminal', 'apt-get install tmux'],
  ['openssl', ['version'], 'the TLS tests (private CA, self-signed service)', 'apt-get install openssl'],
];
for (const [cmd, args, what, install] of tools) {
  if (spawnSync(cmd, args, { stdio: 'ignore' }).status !== 0) console.log(`medchat tests: ${cmd} not found: ${what} will be skipped (${install})`);
}

const realTmp = os.tmpdir();
const runTmp = mkdtempSync(path.join(realTmp, 'medchat-suite-'));
// tsx keeps its compile cache in the temp folder: share the usual one, so a run does not start cold.
const uid = typeof process.getuid === 'function' ? process.getuid() : 'user';
const tsxCache = path.join(realTmp, `tsx-${uid}`);
mkdirSync(tsxCache, { recursive: true });
symlinkSync(tsxCache, path.join(runTmp, `tsx-${uid}`));
/** What others leave in a temp folder, not medchat or its tests. */
const foreign = new Set([`tsx-${uid}`, 'node-compile-cache']);

const child = spawn(
  process.execPath,
  // Every test and hook is bounded (a stuck one fails, named, after 5 minutes), and a file whose
  // tests are done ends even if something of it is still open (that once kept CI waiting forever).
  ['--import', 'tsx', '--test', '--test-reporter=spec', '--test-concurrency=2', '--test-timeout=300000', '--test-force-exit', ...files],
  { stdio: 'inherit', env: { ...process.env, FORCE_COLOR: '0', TMPDIR: runTmp, TMUX_TMPDIR: runTmp } },
);
/** A leftover and, for a folder, the files in it: what was still being written there says which process outlived its test. */
function describe(full, name) {
  try {
    if (!statSync(full).isDirectory()) return name;
    const inside = readdirSync(full, { recursive: true }).map(String).slice(0, 8);
    return inside.length ? `${name}/ holding ${inside.join(', ')}` : `${name}/ (empty)`;
  } catch {
    return name;
  }
}

child.on('exit', (code, signal) => {
  const left = [];
  for (const name of readdirSync(runTmp)) {
    if (foreign.has(name)) continue;
    const full = path.join(runTmp, name);
    // tmux keeps its sockets in tmux-<uid>/: a socket left there is a tmux server a test did not stop.
    if (/^tmux-/.test(name) && statSync(full).isDirectory()) left.push(...readdirSync(full).map((s) => `tmux socket ${s}`));
    else left.push(describe(full, name));
  }
  rmSync(runTmp, { recursive: true, force: true, maxRetries: 3 });
  let exit = signal ? 1 : (code ?? 1);
  if (left.length) {
    console.log(`\nmedchat tests: the run left ${left.length} thing(s) in the temp folder (each test must remove what it makes, also when it fails):`);
    for (const l of left.slice(0, 20)) console.log(`  ${l}`);
    if (left.length > 20) console.log(`  … and ${left.length - 20} more`);
    exit = exit || 1;
  }
  process.exit(exit);
});
