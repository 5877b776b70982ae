// bench/batch: `medchat batch` against the double answering every request after a fixed latency.
//  1. 1,000 questions at -j 16, 50 ms latency: wall time as a ratio to the ideal
//     (items / concurrency × latency = 3.125 s; target <= 1.25x), and client CPU per question.
//  2. 100,000 questions (-j 16, 1 ms latency): peak memory of the client (target < 200 MB).
// Wall time is the whole process, start-up included, as a user waits for it. Beside it, the floor: bare
// node:http keeping as many requests in flight (bench/support/batch-floor.mjs), what the machine and the
// double allow (on a busy machine both move away from the ideal; the load average is printed).
// Run: npm run build && npx tsx bench/batch.ts [runs] [bigItems]
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServiceDouble } from '../src/stand-in/index.js';
import { benchEnv, median } from './support/measure.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const runs = Number(process.argv[2] ?? 3);
const bigItems = Number(process.argv[3] ?? 100_000);
const home = fs.mkdtempSync(path.join(os.tmpdir(), 'medchat-bench-batch-'));
const double = await startServiceDouble();
// A short answer without reasoning, as --no-think gives: the cost measured is the batch's, not the parsing of long answers.
double.chat.defaultScript = { content: ['A short answer.'] };

function questions(n: number): string {
  const file = path.join(home, `q-${n}.jsonl`);
  if (!fs.existsSync(file)) {
    const out = fs.openSync(file, 'w');
    let chunk = '';
    for (let i = 0; i < n; i++) {
      chunk += JSON.stringify({ id: `q${i}`, prompt: `What is the usual adult dose of drug number ${i}, and what are its common side effects?` }) + '\n';
      if (chunk.length > 1 << 20) {
        fs.writeSync(out, chunk);
        chunk = '';
      }
    }
    fs.writeSync(out, chunk);
    fs.closeSync(out);
  }
  return file;
}

interface Sample {
  wallMs: number;
  cpuMs: number;
  maxRssKb: number;
}

function floor(n: number, j: number): Promise<Sample> {
  const usage = path.join(home, `rusage-${Math.random()}.json`);
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    const child = spawn(process.execPath, ['--import', path.join(root, 'bench/support/rusage.mjs'), path.join(root, 'bench/support/batch-floor.mjs'), String(n), String(j)], {
      env: benchEnv(home, double.url, { BENCH_RUSAGE_FILE: usage }),
      stdio: 'inherit',
    });
    child.on('error', reject);
    child.on('close', (code) => {
      const wallMs = Number(process.hrtime.bigint() - start) / 1e6;
      if (code !== 0) return reject(new Error(`batch-floor exited ${code}`));
      const u = JSON.parse(fs.readFileSync(usage, 'utf8'));
      resolve({ wallMs, cpuMs: u.cpuMs, maxRssKb: u.maxRssKb });
    });
  });
}

function measure(args: string[], expectLines: number): Promise<Sample> {
  const usage = path.join(home, `rusage-${Math.random()}.json`);
  const answers = path.join(home, `answers-${Math.random()}.jsonl`);
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    const child = spawn(process.execPath, ['--import', path.join(root, 'bench/support/rusage.mjs'), path.join(root, 'bin/medchat.js'), 'batch', ...args, '-o', answers, '--no-think'], {
      cwd: root,
      env: benchEnv(home, double.url, { BENCH_RUSAGE_FILE: usage }),
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c));
    child.on('error', reject);
    child.on('close', (code) => {
      const wallMs = Number(process.hrtime.bigint() - start) / 1e6;
      if (code !== 0) return reject(new Error(`batch ${args.join(' ')} exited ${code}\n${stderr}`));
      const lines = fs.readFileSync(answers, 'utf8').split('\n').length - 1;
      fs.rmSync(answers);
      if (lines !== expectLines) return reject(new Error(`batch wrote ${lines} lines, expected ${expectLines}`));
      const u = JSON.parse(fs.readFileSync(usage, 'utf8'));
      resolve({ wallMs, cpuMs: u.cpuMs, maxRssKb: u.maxRssKb });
    });
  });
}

const check = (label: string, value: string, ok: boolean, target: string) => console.log(`${label.padEnd(26)} ${value.padStart(10)}  (target ${target}) ${ok ? 'OK' : 'MISSED'}`);

const items = 1000;
const jobs = 16;
const latencyMs = 50;
double.chat.latencyMs = latencyMs;
const ideal = (items / jobs) * latencyMs;
const samples: Sample[] = [];
const floors: Sample[] = [];
for (let i = 0; i < runs; i++) {
  floors.push(await floor(items, jobs));
  samples.push(await measure([questions(items), '-j', String(jobs)], items));
}
const wall = median(samples.map((s) => s.wallMs));
const cpu = median(samples.map((s) => s.cpuMs));
const floorWall = median(floors.map((s) => s.wallMs));
console.log(`bench/batch: ${items} questions, -j ${jobs}, ${latencyMs} ms latency at the double, median of ${runs} runs (load average ${os.loadavg()[0]!.toFixed(1)} on ${os.cpus().length} cores)`);
console.log(`  medchat wall ${wall.toFixed(0)} ms   cpu ${cpu.toFixed(0)} ms   peak rss ${(median(samples.map((s) => s.maxRssKb)) / 1024).toFixed(1)} MB`);
console.log(`  floor   wall ${floorWall.toFixed(0)} ms   cpu ${median(floors.map((s) => s.cpuMs)).toFixed(0)} ms   (ideal ${ideal.toFixed(0)} ms)`);
check('wall time / ideal', `${(wall / ideal).toFixed(2)}x`, wall / ideal <= 1.25, '<= 1.25x');
console.log(`${'wall time / floor'.padEnd(26)} ${`${(wall / floorWall).toFixed(2)}x`.padStart(10)}`);
console.log(`${'client cpu per question'.padEnd(26)} ${`${(cpu / items).toFixed(2)} ms`.padStart(10)}`);

double.chat.latencyMs = 1;
const big = await measure([questions(bigItems), '-j', String(jobs)], bigItems);
console.log(`bench/batch: ${bigItems} questions, -j ${jobs}, 1 ms latency: wall ${(big.wallMs / 1000).toFixed(1)} s, cpu ${(big.cpuMs / 1000).toFixed(1)} s (${(big.cpuMs / bigItems).toFixed(2)} ms a question)`);
check('peak rss, 100k-line input', `${(big.maxRssKb / 1024).toFixed(1)} MB`, big.maxRssKb < 200 * 1024, '< 200 MB');
await double.close();
fs.rmSync(home, { recursive: true, force: true });
