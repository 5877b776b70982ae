// bench/search: `medchat sessions search` over 5,000 saved conversations of 20 turns (about 270 MB),
// the whole process timed as a user waits for it (start-up included), against the target of
// under 1 s. The corpus is generated (seeded) in a temporary data folder, written as medchat writes a
// session (JSON with a one-space indent); a few conversations carry marker words so some queries
// match a handful, one matches none (every file is read), one matches nearly all (reading stops early).
// The files are in the page cache (just written), as they are for a user who searches twice;
// "cold" is the process, not the disk. Peak RSS from the process's own resource usage.
// Run: npm run build && npx tsx bench/search.ts [runs] [conversations]   (BENCH_ENCRYPTED=1: the corpus encrypted; both: plain, then encrypted)
// BENCH_HOME=<folder>: the corpus there, generated only when it is not there yet, and kept (to time two builds on the
// same files); BENCH_BIN=<medchat.js>: the build to time (default: this checkout's bin/medchat.js).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { seededRandom } from '../test/support/prng.js';
import { median } from './support/measure.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const runs = Number(process.argv[2] ?? 5);
const count = Number(process.argv[3] ?? 5000);
const seed = Number(process.env.MEDCHAT_SEED ?? 20261126);
const TARGET_MS = 1000;

const given = process.env.BENCH_HOME;
const home = given ? path.resolve(given) : fs.mkdtempSync(path.join(os.tmpdir(), 'medchat-bench-search-'));
const dataDir = path.join(home, 'data');
const sessions = path.join(dataDir, 'sessions');
const reuse = Boolean(given) && fs.existsSync(sessions);
fs.mkdirSync(sessions, { recursive: true, mode: 0o700 });
const bin = path.resolve(process.env.BENCH_BIN ?? path.join(root, 'bin/medchat.js'));

const random = seededRandom(seed);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
const vocabulary = (
  'patient presents with chest pain shortness of breath since yesterday history of hypertension type diabetes ' +
  'on metformin ramipril atorvastatin allergy to penicillin blood pressure heart rate oxygen saturation temperature ' +
  'creatinine eGFR potassium sodium haemoglobin platelets troponin ECG shows sinus rhythm no ST changes consider ' +
  'referral review in two weeks dose adjust renal function the and of to in for with is was a be may should ' +
  'œdème résumé naïve café Müller señora São Paulo Zürich'
).split(' ');
function sentence(words: number): string {
  const out: string[] = [];
  for (let i = 0; i < words; i++) out.push(pick(vocabulary));
  out[0] = out[0]![0]!.toUpperCase() + out[0]!.slice(1);
  return out.join(' ') + '.';
}
function paragraphText(lines: number, wordsPerLine: number): string {
  const out: string[] = [];
  for (let i = 0; i < lines; i++) out.push(sentence(wordsPerLine));
  return out.join('\n');
}

// Marker words: "zanubrutinib" in 12 conversations (one word in one answer line), "ondansetron" with it in 4.
const rare = new Set<number>();
while (rare.size < 12) rare.add(Math.floor(random() * count));
const rareBoth = [...rare].slice(0, 4);

const started = performance.now();
let bytes = 0;
const now = Date.now();
for (let i = 0; i < (reuse ? 0 : count); i++) {
  const when = new Date(now - (count - i) * 60_000);
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  const id = `${when.getFullYear()}${p(when.getMonth() + 1)}${p(when.getDate())}-${p(when.getHours())}${p(when.getMinutes())}${p(when.getSeconds())}-${(i % 65536).toString(16).padStart(4, '0')}`;
  const turns = [];
  for (let t = 0; t < 20; t++) {
    let answer = paragraphText(22, 14);
    if (rare.has(i) && t === 7) answer += '\nStart zanubrutinib only after review' + (rareBoth.includes(i) ? ' and give ondansetron for nausea.' : '.');
    turns.push({
      id: `t${t + 1}`,
      user: paragraphText(3, 14),
      answer,
      reasoning: t % 4 === 0 ? paragraphText(4, 14) : '',
      reasoningMs: 900,
      status: 'complete',
      startedAt: when.getTime() - (20 - t) * 1000,
      durationMs: 4000,
      usage: { prompt_tokens: 900 + t * 700, completion_tokens: 650 },
      tokens: { user: 60, answer: 640 },
    });
  }
  const data = {
    format: 'medchat-session',
    version: 1,
    id,
    title: turns[0]!.user.split('\n')[0]!.slice(0, 72),
    createdAt: when.toISOString(),
    updatedAt: when.toISOString(),
    model: 'medical-large-latest',
    turns,
    context: { startTurn: 0, ratio: 1, samples: 3, compactions: [] },
  };
  const text = JSON.stringify(data, null, 1) + '\n';
  bytes += Buffer.byteLength(text);
  const file = path.join(sessions, `${id}.json`);
  fs.writeFileSync(file, text, { mode: 0o600 });
  fs.utimesSync(file, when, when);
}
if (reuse) console.log(`corpus: reused from ${home} (${fs.readdirSync(sessions).length} files)`);
else console.log(`corpus: ${count} conversations of 20 turns, ${(bytes / 1e6).toFixed(0)} MB (seed ${seed}), written in ${((performance.now() - started) / 1000).toFixed(1)} s`);

const env = {
  PATH: process.env.PATH,
  HOME: home,
  MEDCHAT_CONFIG_DIR: path.join(home, 'config'),
  MEDCHAT_DATA_DIR: dataDir,
};
const usageFile = path.join(home, 'rusage.json');

function run(args: string[]): { ms: number; rssMb: number; hits: number; status: number | null } {
  const start = process.hrtime.bigint();
  const r = spawnSync(process.execPath, ['--import', path.join(root, 'bench/support/rusage.mjs'), bin, 'sessions', 'search', ...args, '--json'], {
    env: { ...env, BENCH_RUSAGE_FILE: usageFile },
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (r.status !== 0) throw new Error(`search ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  const usage = JSON.parse(fs.readFileSync(usageFile, 'utf8')) as { maxRssKb: number };
  return { ms, rssMb: usage.maxRssKb / 1024, hits: (JSON.parse(r.stdout) as unknown[]).length, status: r.status };
}

const queries: { what: string; args: string[] }[] = [
  { what: 'a word no conversation holds (every file read)', args: ['zolmitriptan'] },
  { what: 'a rare word (12 conversations)', args: ['zanubrutinib'] },
  { what: 'two rare words together (4)', args: ['Zanubrutinib', 'ONDANSETRON'] },
  { what: 'accents ignored: "resume" finds résumé (stops at 20)', args: ['resume'] },
  { what: 'a common word (stops at 20)', args: ['creatinine'] },
  { what: 'a word that is only a field name ("status")', args: ['status'] },
  { what: 'no match, reasoning searched too', args: ['zolmitriptan', '--reasoning'] },
  { what: 'every match (--limit 0: 12)', args: ['zanubrutinib', '--limit', '0'] },
];

// The same corpus, encrypted (BENCH_ENCRYPTED=1, or "both"): the key from history-key-command, as a script
// would give it; medchat converts the folder once, then every search decrypts what it reads, in memory.
const encrypted = process.env.BENCH_ENCRYPTED ?? '0';
const passes = encrypted === 'both' ? ['plain', 'encrypted'] : encrypted === '1' ? ['encrypted'] : ['plain'];
let worst = 0;
for (const pass of passes) {
  if (pass === 'encrypted') {
    const cli = (...args: string[]) => spawnSync(process.execPath, [bin, ...args], { env, encoding: 'utf8' });
    const set = (...args: string[]) => {
      const r = cli('config', 'set', ...args);
      if (r.status !== 0) throw new Error(`config set ${args[0]}: ${r.stderr}`);
    };
    set('history-key-command', 'echo bench-search-history-key-0123456789abcdef');
    const t0 = performance.now();
    set('encrypt', 'on');
    const list = cli('sessions', 'list');
    if (list.status !== 0) throw new Error(`sessions list: ${list.stderr}`);
    console.log(`encrypted: ${count} conversations converted in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  }
  console.log(`${pass}: ${bin}, node ${process.version}, ${os.cpus().length} cores, load ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}; ${runs} runs each, the whole process`);
  for (const q of queries) {
    const samples = Array.from({ length: runs }, () => run(q.args));
    const ms = median(samples.map((s) => s.ms));
    const rss = Math.max(...samples.map((s) => s.rssMb));
    worst = Math.max(worst, ms);
  console.log(`${q.what.padEnd(56)} ${String(samples[0]!.hits).padStart(3)} found  median ${ms.toFixed(0).padStart(5)} ms (min ${Math.min(...samples.map((s) => s.ms)).toFixed(0)})  peak RSS ${rss.toFixed(0)} MB  ${ms < TARGET_MS ? 'under' : 'OVER'} the 1 s target`);
  }
}
console.log(`slowest median: ${worst.toFixed(0)} ms against the target of ${TARGET_MS} ms: ${worst < TARGET_MS ? 'met' : 'NOT met'}`);
if (process.env.BENCH_KEEP || given) console.log(`corpus kept in ${home} (MEDCHAT_DATA_DIR=${dataDir})`);
else fs.rmSync(home, { recursive: true, force: true });
