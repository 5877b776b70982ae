// Start-up benchmark (not a test): what Node's module compile cache (bin/medchat.js, Node >= 22.1) does to
// `medchat --version`, a one-shot answer and the chat screen's first paint, on each Node given.
// Run: npm run build && npx tsx bench/startup.ts [path/to/node ...]   (default: the Node running this; .ci/run passes
// Node 22 and 24 from the npm registry's `node` package). BENCH_RUNS: runs per figure (default 9).
// Each figure is the median wall time from spawn to the thing being there, with the cache off
// (NODE_DISABLE_COMPILE_CACHE=1) and on (a cache folder of its own, filled by one run first); `node -e 0` is the floor.
// Goal: first paint <= 0.15 s on Node 24 with the cache.
// A single executable (`npm run package`: release/medchat-linux-x64) may be given beside the Nodes: it is measured the
// same way, with the code cache its blob carries (no module compile cache: its bundle is the SEA main script).
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startServiceDouble } from '../src/stand-in/index.js';
import { BIN } from '../test/support/cli.js';
import { benchEnv, median } from './support/measure.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 9);
const nodes = process.argv.slice(2).length ? process.argv.slice(2) : [process.execPath];
const double = await startServiceDouble();
double.chat.defaultScript = { reasoning: [], content: ['60–100 bpm.'] };
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'medchat-bench-startup-'));

/** Wall time from spawn until `done(output)` is true (or the process exits, for commands). */
function timed(cmd: string, args: string[], env: NodeJS.ProcessEnv, done?: (out: string) => boolean): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(cmd, args, { env, stdio: ['pipe', 'pipe', 'ignore'] });
    if (!done) child.stdin.end(); // a command reads no stdin (one-shot would wait for piped text)
    let out = '';
    let settled = false;
    const finish = () => {
      if (settled) return;
      settled = true;
      resolve(performance.now() - t0);
      child.kill('SIGKILL');
    };
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`timed out: ${cmd} ${args.join(' ')}\n${out.slice(0, 500)}`));
    }, 15_000);
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString('utf8');
      if (done?.(out)) finish();
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      if (done && !settled) return reject(new Error(`exited ${code} before it was done: ${out.slice(0, 500)}`));
      if (!done && code !== 0) return reject(new Error(`${cmd} ${args.join(' ')} exited ${code}`));
      finish();
    });
  });
}

type Figure = { median: number; min: number; max: number };

/** Each run function measured RUNS times, interleaved (so a change in the machine's load hits all alike); a first run of each is not counted (it fills the cache). */
async function figures(runs: Array<() => Promise<number>>): Promise<Figure[]> {
  for (const run of runs) await run();
  const xs: number[][] = runs.map(() => []);
  for (let i = 0; i < RUNS; i++) for (const [k, run] of runs.entries()) xs[k]!.push(await run());
  return xs.map((x) => ({ median: median(x), min: Math.min(...x), max: Math.max(...x) }));
}

const fmt = (f: { median: number; min: number; max: number }) => `${(f.median / 1000).toFixed(3)} s (${(f.min / 1000).toFixed(3)}–${(f.max / 1000).toFixed(3)})`;

// Start-up figures swing with what else the machine does: say how busy it was, so a reader can tell noise from a change.
console.log(`machine: ${os.cpus().length} cores, load ${os.loadavg().map((l) => l.toFixed(2)).join(' / ')} (1 / 5 / 15 min); ${RUNS} runs a figure`);

for (const node of nodes) {
  const sea = path.basename(node).startsWith('medchat-');
  /** What runs medchat: the executable alone, or this Node with the launcher. */
  const medchat = sea ? [] : [BIN];
  const version = sea ? 'v22 (single executable)' : execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
  const hasCache = !sea && Number(/^v(\d+)/.exec(version)![1]) >= 22;
  if (sea) console.log(`\nSingle executable ${node} (medchat ${execFileSync(node, ['--version'], { encoding: 'utf8' }).trim()}): V8's code cache is in its blob`);
  else console.log(`\nNode ${version} (${node === process.execPath ? 'this Node' : node})${hasCache ? '' : ': no module compile cache in this version'}`);
  if (!sea) {
    const [floor] = await figures([() => timed(node, ['-e', '0'], { PATH: process.env.PATH })]);
    console.log(`  ${'node -e 0 (the floor)'.padEnd(33)} ${fmt(floor!)}`);
  }
  const modes = sea ? ['sea'] : hasCache ? ['off', 'on'] : ['off'];
  const envs = modes.map((cache) => {
    const home = fs.mkdtempSync(path.join(work, 'home-'));
    const cacheEnv: Record<string, string> = sea ? {} : cache === 'on' ? { NODE_COMPILE_CACHE: path.join(home, 'cache') } : { NODE_DISABLE_COMPILE_CACHE: '1' };
    return benchEnv(home, double.url, { ...cacheEnv, LANG: 'C.UTF-8', TERM: 'xterm-256color' });
  });
  // The chat screen in a 120x40 pseudo-terminal (util-linux `script`), until the footer's key hints are drawn.
  const inner = `stty cols 120 rows 40; exec ${[node, ...medchat].join(' ')}`;
  const rows: Array<[string, Figure[]]> = [
    ['--version', await figures(envs.map((env) => () => timed(node, [...medchat, '--version'], env)))],
    ['one-shot answer', await figures(envs.map((env) => () => timed(node, [...medchat, '--incognito', 'heart rate?'], env)))],
    ['chat first paint', await figures(envs.map((env) => () => timed('script', ['-qfec', inner, '/dev/null'], env, (out) => out.includes('Enter send'))))],
  ];
  for (const [name, fs_] of rows) {
    for (const [k, f] of fs_.entries()) {
      const goal = name === 'chat first paint' && version.startsWith('v24') && modes[k] === 'on' ? `   ${f.median <= 150 ? 'PASS' : 'MISS'} target <= 0.150 s` : '';
      console.log(`  cache ${modes[k]!.padEnd(4)} ${name.padEnd(22)} ${fmt(f)}${goal}`);
    }
  }
}

await double.close();
fs.rmSync(work, { recursive: true, force: true });
