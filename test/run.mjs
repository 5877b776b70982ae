// Runs every test file under test/ with Node's own test runner (TypeScript through tsx).
// `node test/run.mjs [filter ...]` runs only the files whose path contains one of the filters.
// `node test/run.mjs --fast [filter]` (npm run test:fast) runs the unit tests alone, test/core and
// test/ui, compiled to JavaScript once instead of through tsx: no build of medchat, no terminal, no
// medchat process, in under a minute. `--concurrency N` sets how many test files run at once
// (default 2; with --fast, twice the processors and at least 4: many of those tests wait on
// timers, not on the processor).
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
const args = process.argv.slice(2);
const fast = args.includes('--fast');
const concurrencyAt = args.indexOf('--concurrency');
const concurrencyArg = concurrencyAt >= 0 ? Number(args[concurrencyAt + 1]) : undefined;
if (concurrencyArg !== undefined && !(Number.isInteger(concurrencyArg) && concurrencyArg > 0)) {
  console.error('--concurrency needs a whole number above 0');
  process.exit(2);
}
/** Paths to run: those that hold any of the names given (`node test/run.mjs e2e/roles core/config`); all when none is. */
const filters = args.filter((a, i) => !a.startsWith('--') && !(concurrencyAt >= 0 && i === concurrencyAt + 1));
const concurrency = concurrencyArg ?? (fast ? Math.max(4, os.availableParallelism() * 2) : 2);
/** The unit tests: core and ui, run in-process against the double; nothing built, nothing spawned. */
const UNIT = [path.join(root, 'core'), path.join(root, 'ui')];
const files = [];
(function walk(dir) {
  for (const name of readdirSync(dir).sort()) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) {
      if (name !== 'support' && name !== 'fixtures') walk(full);
    } else if (/\.test\.tsx?$/.test(name) && (filters.length === 0 || filters.some((f) => full.includes(f))) && (!fast || UNIT.some((u) => full.startsWith(u + path.sep)))) {
      files.push(path.relative(process.cwd(), full));
    }
  }
})(root);

// The unit tier runs many files at once: start the biggest (which run longest) first, so the run
// does not end waiting on one long file started last.
if (fast) files.sort((a, b) => statSync(b).size - statSync(a).size);

if (files.length === 0) {
  console.error('no test files found');
  process.exit(1);
}

// Tests that need a tool the machine lacks are skipped: say so once, up front, with what to install.
const tools = [
  ['tmux', ['-V'], 'the tests that drive the real chat screen in a terminal', 'apt-get install tmux'],
  ['openssl', ['version'], 'the TLS tests (private CA, self-signed service)', 'apt-get install openssl'],
];
for (const [cmd, toolArgs, what, install] of fast ? [] : tools) {
  if (spawnSync(cmd, toolArgs, { stdio: 'ignore' }).status !== 0) console.log(`medchat tests: ${cmd} not found: ${what} will be skipped (${install})`);
}

const realTmp = os.tmpdir();
const runTmp = mkdtempSync(path.join(realTmp, 'medchat-suite-'));
// tsx keeps its compile cache in the temp folder: share the usual one, so a run does not start cold.
const uid = typeof process.getuid === 'function' ? process.getuid() : 'user';
const tsxCache = path.join(realTmp, `tsx-${uid}`);
mkdirSync(tsxCache, { recursive: true });
symlinkSync(tsxCache, path.join(runTmp, `tsx-${uid}`));
/** What others leave in a temp folder, not medchat or its tests (and, with --fast, the compiled tests). */
const foreign = new Set([`tsx-${uid}`, 'node-compile-cache', 'unit-js']);

// With --fast the TypeScript is compiled once, up front, and each test file runs as plain
// JavaScript: a process that loads TypeScript through tsx's hooks pays for them on every module it
// imports (Ink alone takes twice as long), and that was most of the unit tests' time.
let runner = ['--import', 'tsx'];
let runFiles = files;
if (fast) {
  const repo = path.dirname(root);
  const out = path.join(runTmp, 'unit-js');
  const { build } = await import('esbuild');
  const sources = [];
  const collect = (dir) => {
    for (const name of readdirSync(dir)) {
      const full = path.join(dir, name);
      const rel = path.relative(repo, full);
      if (statSync(full).isDirectory()) collect(full);
      else if (/\.tsx?$/.test(name) && !name.endsWith('.d.ts')) sources.push(full);
      else {
        // Data, plain JavaScript and helpers the tests read beside themselves: linked, not copied.
        mkdirSync(path.dirname(path.join(out, rel)), { recursive: true });
        symlinkSync(full, path.join(out, rel));
      }
    }
  };
  collect(path.join(repo, 'src'));
  collect(root);
  await build({ entryPoints: sources, outdir: out, outbase: repo, format: 'esm', platform: 'node', target: 'node20', sourcemap: 'inline', logLevel: 'error' });
  // The tests find the repository's README and packages from the compiled tree as from the real one.
  for (const name of ['node_modules', 'README.md', 'docs', 'package.json', 'bin']) symlinkSync(path.join(repo, name), path.join(out, name));
  runner = ['--enable-source-maps'];
  runFiles = files.map((f) => path.join(out, path.relative(repo, path.resolve(f)).replace(/\.tsx?$/, '.js')));
  console.log(`medchat tests: --fast runs ${files.length} test file(s) of test/core and test/ui, compiled to JavaScript (stack traces name the .ts lines)`);
}
const child = spawn(
  process.execPath,
  // Every test and hook is bounded (a stuck one fails, named, after 5 minutes), and a file whose
  // tests are done ends even if something of it is still open (that once kept CI waiting forever).
  [...runner, '--test', '--test-reporter=spec', `--test-concurrency=${concurrency}`, '--test-timeout=300000', '--test-force-exit', ...runFiles],
  // MEDCHAT_LANG=en: the tests read medchat's English wherever the machine's locale is; those of the
  // Chinese interface set the language themselves.
  { stdio: 'inherit', env: { ...process.env, FORCE_COLOR: '0', TMPDIR: runTmp, TMUX_TMPDIR: runTmp, MEDCHAT_LANG: 'en' } },
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
