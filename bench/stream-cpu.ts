// bench/stream-cpu: the CPU it costs to receive a streamed answer at chat speed. A 500-chunk answer
// paced at 20 ms (50 chunks/s, 10 s) from the double, received by: bare node:http (the floor), the
// openai SDK on its default fetch (undici), the SDK on medchat's node:http transport, and
// `medchat --no-think` one-shot. Prints % of one core (user + system, all threads, from
// /proc/<pid>/stat) between the request reaching the double and its last byte; median of N runs.
// Linux only. Run: node build/build.mjs && npx tsx bench/stream-cpu.ts [runs]
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { startServiceDouble } from '../src/stand-in/index.js';
import { benchEnv, chatSpeedAnswer, cpuPercent, cpuTicks, median, streamEnded } from './support/measure.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const runs = Number(process.argv[2] ?? 3);
const home = fs.mkdtempSync(path.join(os.tmpdir(), 'medchat-bench-'));

// The transport as medchat ships it: src/core/net/http-transport.ts bundled the way build/build.mjs does.
const transport = path.join(home, 'http-transport.mjs');
await build({ entryPoints: [path.join(root, 'src/core/net/http-transport.ts')], bundle: true, platform: 'node', format: 'esm', outfile: transport, logLevel: 'error' });

const content = chatSpeedAnswer();
const double = await startServiceDouble();

const subjects: Array<{ name: string; args: string[]; env?: Record<string, string> }> = [
  { name: 'node:http (floor)', args: [path.join(root, 'bench/support/http-floor.mjs')] },
  { name: 'SDK, default fetch', args: [path.join(root, 'bench/support/sdk-floor.mjs'), 'q'] },
  { name: 'SDK, our transport', args: [path.join(root, 'bench/support/sdk-floor.mjs'), 'q'], env: { BENCH_TRANSPORT: transport } },
  { name: 'medchat one-shot', args: [path.join(root, 'bin/medchat.js'), '--no-think', 'dose?'] },
];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function measure(args: string[], env: Record<string, string> = {}): Promise<number> {
  double.chat.enqueue({ reasoning: [], content, paceMs: 20 });
  const before = double.chat.requests.length;
  const child = spawn(process.execPath, args, {
    cwd: root,
    env: benchEnv(home, double.url, env),
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise<number | null>((r) => child.on('close', r));
  while (double.chat.requests.length === before) await sleep(1);
  const req = double.chat.requests.at(-1)!;
  const c0 = cpuTicks(child.pid!);
  const t0 = performance.now();
  while (!streamEnded(req)) await sleep(2);
  const c1 = cpuTicks(child.pid!);
  const t1 = performance.now();
  const code = await exited;
  if (code !== 0) throw new Error(`${args.join(' ')} exited ${code}`);
  return cpuPercent(c1 - c0, t1 - t0);
}

const samples = subjects.map(() => [] as number[]);
for (let r = 0; r < runs; r++) {
  for (let s = 0; s < subjects.length; s++) samples[s]!.push(await measure(subjects[s]!.args, subjects[s]!.env)); // interleaved: drift hits all alike
}
console.log(`bench/stream-cpu: 500 chunks paced at 20 ms, % of one core while receiving, median of ${runs} (all runs)`);
for (let s = 0; s < subjects.length; s++) {
  const xs = samples[s]!;
  console.log(`${subjects[s]!.name.padEnd(20)} ${median(xs).toFixed(1).padStart(5)} %   (${xs.map((x) => x.toFixed(1)).join(', ')})`);
}
await double.close();
fs.rmSync(home, { recursive: true, force: true });
