// bench/oneshot: 2,000 reasoning and 20,000 content chunks from the double, sent as fast as it can,
// through `medchat -p` and through a bare loop over the same openai SDK (the floor).
// Prints wall time, CPU time and peak memory for both, and the ratios against the floor
// (targets: medchat at most 1.0x the floor in wall and CPU time, 1.2x in peak memory).
// medchat runs as a user gets it, saving its session as it streams (BENCH_INCOGNITO=1 adds --incognito).
// It runs with two keys, each measured against the floor in the same run: a short one (`sk-bench-0000`) and a
// realistic 51-character `sk-proj-…` one, whose characters cover most letters and digits, so that most of the
// answer's characters could be part of a key (the key redactor's fast path skips only text that cannot).
// BENCH_KEYS=short or BENCH_KEYS=proj runs one of them. BENCH_BEFORE=<dir> also measures the medchat built in
// <dir> (its bin/medchat.js; e.g. a `git archive` of the previous commit, built), interleaved with this one,
// so a change is measured before and after in one run on the same machine load.
// Run: npm run build && npx tsx bench/oneshot.ts [runs]
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServiceDouble } from '../src/stand-in/index.js';
import { benchEnv, median } from './support/measure.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const runs = Number(process.argv[2] ?? 5);
const KEYS = {
  short: 'sk-bench-0000',
  // 51 characters, as an OpenAI project key of that length looks: 8 + 43 of [A-Za-z0-9]; these hold every letter
  // and digit, the worst case for the redactor's fast path.
  proj: 'sk-proj-Q7vLm2Rt9XbW4Nc8Hd3Kf6Jw1Zp5Gs0Ay2Ue4Io7TrE',
} as const;
type KeyName = keyof typeof KEYS;
const keyNames = (process.env.BENCH_KEYS ?? 'short,proj').split(',').map((k) => k.trim()).filter((k): k is KeyName => k in KEYS);
if (keyNames.length === 0) throw new Error(`BENCH_KEYS: expected short and/or proj, got ${process.env.BENCH_KEYS}`);
const before = process.env.BENCH_BEFORE ? path.resolve(process.env.BENCH_BEFORE, 'bin/medchat.js') : undefined;
if (before && !fs.existsSync(before)) throw new Error(`BENCH_BEFORE: no ${before}`);

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

function measure(args: string[], key: string): Promise<Sample> {
  const file = path.join(home, `rusage-${Math.random()}.json`);
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint();
    const child = spawn(process.execPath, ['--import', path.join(root, 'bench/support/rusage.mjs'), ...args], {
      cwd: root,
      env: benchEnv(home, double.url, { BENCH_RUSAGE_FILE: file, MEDCHAT_API_KEY: key }),
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
      fs.rmSync(file, { force: true });
      resolve({ wallMs, cpuMs: u.cpuMs, maxRssKb: u.maxRssKb });
    });
  });
}

const summarise = (samples: Sample[]) => ({
  wallMs: median(samples.map((s) => s.wallMs)),
  cpuMs: median(samples.map((s) => s.cpuMs)),
  maxRssKb: median(samples.map((s) => s.maxRssKb)),
});

const medchatArgs = (bin: string) => [bin, '-p', 'q', '--reasoning', 'hide', ...(process.env.BENCH_INCOGNITO === '1' ? ['--incognito'] : [])];
// Every contestant once per round, in turn, so a change in the machine's load hits all alike.
const contestants: Array<{ name: string; args: string[]; key: string }> = [
  { name: 'floor', args: [path.join(root, 'bench/support/sdk-floor.mjs'), 'q'], key: KEYS.short },
];
for (const k of keyNames) {
  if (before) contestants.push({ name: `before ${k}`, args: medchatArgs(before), key: KEYS[k] });
  contestants.push({ name: `medchat ${k}`, args: medchatArgs(path.join(root, 'bin/medchat.js')), key: KEYS[k] });
}
const samples = new Map<string, Sample[]>(contestants.map((c) => [c.name, []]));
for (let i = 0; i < runs; i++) {
  for (const c of contestants) samples.get(c.name)!.push(await measure(c.args, c.key));
}
const results = new Map([...samples].map(([name, s]) => [name, summarise(s)]));
const floor = results.get('floor')!;

const row = (name: string, s: ReturnType<typeof summarise>) =>
  `${name.padEnd(14)} wall ${s.wallMs.toFixed(0).padStart(6)} ms   cpu ${s.cpuMs.toFixed(0).padStart(6)} ms   peak rss ${(s.maxRssKb / 1024).toFixed(1).padStart(6)} MB`;
console.log(`bench/oneshot: 2,000 reasoning + 20,000 content chunks, median of ${runs} runs; load ${os.loadavg()[0]!.toFixed(2)} on ${os.cpus().length} cores`);
console.log(`keys: short = ${KEYS.short.length} characters, proj = ${KEYS.proj.length}-character sk-proj-…`);
for (const [name, s] of results) console.log(row(name, s));
const check = (label: string, value: number, target: number) =>
  console.log(`  ${label.padEnd(18)} ${value.toFixed(2)}x the floor  (target <= ${target}x) ${value <= target ? 'OK' : 'MISSED'}`);
for (const [name, s] of results) {
  if (name === 'floor') continue;
  console.log(`${name}:`);
  check('wall time ratio', s.wallMs / floor.wallMs, 1.0);
  check('cpu time ratio', s.cpuMs / floor.cpuMs, 1.0);
  check('peak memory ratio', s.maxRssKb / floor.maxRssKb, 1.2);
}
await double.close();
fs.rmSync(home, { recursive: true, force: true });
