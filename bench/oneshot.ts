// bench/oneshot: 2,000 reasoning and 20,000 content chunks from the double, sent as fast as it can,
// through `medchat -p` and through a bare loop over the same openai SDK (the floor).
// Prints wall time, CPU time and peak memory for both, and the ratios against the targets
// (medchat within 1.15x of the floor in wall and CPU time, 1.2x in peak memory).
// medchat runs as a user gets it, saving its session as it streams (BENCH_INCOGNITO=1 adds --incognito).
// Run: npm run build && npx tsx bench/oneshot.ts [runs]
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServiceDouble } from '../src/double/index.js';
import { benchEnv, median } from './support/measure.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const runs = Number(process.argv[2] ?? 5);
const double = await startServiceDouble();
const reasoning = Array.from({ length: 2000 }, (_, i) => `thought ${i} `);
const content = Array.from({ length: 20000 }, (_, i) => `word${i} `);
double.chat.defaultScript = { reasoning, content };
const expectedBytes = Buffer.byteLength(content.join(''));
const home = fs.mkdtempSync(path.join(os.tmpdir(), 'medchat-bench-'));

interface Sample {
  wallMs: number;
  cpuMs: number;
  maxRssKb: number;
}

function measure(args: string[]): Promise<Sample> {
  const file = path.join(home, `rusage-${Math.random()}.json`);
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    const child = spawn(process.execPath, ['--import', path.join(root, 'bench/support/rusage.mjs'), ...args], {
      cwd: root,
      env: benchEnv(home, double.url, { BENCH_RUSAGE_FILE: file }),
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    let bytes = 0;
    child.stdout.on('data', (c: Buffer) => (bytes += c.length));
    child.on('error', reject);
    child.on('close', (code) => {
      const wallMs = Number(process.hrtime.bigint() - start) / 1e6;
      if (code !== 0) return reject(new Error(`${args.join(' ')} exited ${code}`));
      if (bytes !== expectedBytes) return reject(new Error(`${args.join(' ')} printed ${bytes} bytes, expected ${expectedBytes}`));
      const u = JSON.parse(fs.readFileSync(file, 'utf8'));
      resolve({ wallMs, cpuMs: u.cpuMs, maxRssKb: u.maxRssKb });
    });
  });
}

const summarise = (samples: Sample[]) => ({
  wallMs: median(samples.map((s) => s.wallMs)),
  cpuMs: median(samples.map((s) => s.cpuMs)),
  maxRssKb: median(samples.map((s) => s.maxRssKb)),
});

const floorRuns: Sample[] = [];
const medchatRuns: Sample[] = [];
for (let i = 0; i < runs; i++) {
  floorRuns.push(await measure([path.join(root, 'bench/support/sdk-floor.mjs'), 'q']));
  medchatRuns.push(await measure([path.join(root, 'bin/medchat.js'), '-p', 'q', '--reasoning', 'hide', ...(process.env.BENCH_INCOGNITO === '1' ? ['--incognito'] : [])]));
}
const floor = summarise(floorRuns);
const medchat = summarise(medchatRuns);
const row = (name: string, s: ReturnType<typeof summarise>) =>
  `${name.padEnd(10)} wall ${s.wallMs.toFixed(0).padStart(6)} ms   cpu ${s.cpuMs.toFixed(0).padStart(6)} ms   peak rss ${(s.maxRssKb / 1024).toFixed(1).padStart(6)} MB`;
console.log(`bench/oneshot: 2,000 reasoning + 20,000 content chunks, median of ${runs} runs`);
console.log(row('floor', floor));
console.log(row('medchat', medchat));
const ratio = (a: number, b: number) => a / b;
const check = (label: string, value: number, target: number) =>
  console.log(`${label.padEnd(18)} ${value.toFixed(2)}x  (target <= ${target}x) ${value <= target ? 'OK' : 'MISSED'}`);
check('wall time ratio', ratio(medchat.wallMs, floor.wallMs), 1.15);
check('cpu time ratio', ratio(medchat.cpuMs, floor.cpuMs), 1.15);
check('peak memory ratio', ratio(medchat.maxRssKb, floor.maxRssKb), 1.2);
await double.close();
fs.rmSync(home, { recursive: true, force: true });
