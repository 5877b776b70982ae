// Chat screen benchmark (not a test): `node build/build.mjs && npx tsx bench/tui.ts` (BENCH_RUNS=3: runs per streaming
// figure; BENCH_ONLY=paint|stream|burst|keys: one section).
// Runs the built bin/medchat.js in a 120x40 pseudo-terminal (util-linux `script`) against the
// service double and prints each figure (median, and range) against its target.
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { startServiceDouble, type ServiceDouble } from '../src/stand-in/index.js';
import { BIN, tempHome } from '../test/support/cli.js';
import { benchEnv, chatSpeedAnswer, cpuPercent, cpuTicks, median, streamEnded } from './support/measure.js';

/** The answer's figures under it (`9 in · 4k out`): the answer is fully drawn. */
const STATS = /[\d.]+k? in · [\d.]+k? out/;

const COLS = 120;
const ROWS = 40;

interface Pty {
  child: ChildProcess;
  out: () => string;
  bytes: () => number;
  write: (s: string) => void;
  medchatPid: () => number | undefined;
  close: () => void;
}

function startPty(double: ServiceDouble): Pty {
  const home = tempHome();
  const env = benchEnv(home, double.url, { TERM: 'xterm-256color', LANG: 'C.UTF-8' });
  const inner = `stty cols ${COLS} rows ${ROWS}; exec ${process.execPath} ${BIN}`;
  const child = spawn('script', ['-qfec', inner, '/dev/null'], { env, stdio: ['pipe', 'pipe', 'ignore'] });
  let text = '';
  let count = 0;
  child.stdout!.on('data', (c: Buffer) => {
    count += c.length;
    text += c.toString('utf8');
    if (text.length > 4_000_000) text = text.slice(-1_000_000);
  });
  return {
    child,
    out: () => text,
    bytes: () => count,
    write: (s) => child.stdin!.write(s),
    medchatPid: () => {
      try {
        const kids = execFileSync('pgrep', ['-P', String(child.pid)], { encoding: 'utf8' }).trim().split('\n');
        return Number(kids[0]);
      } catch {
        return undefined;
      }
    },
    close: () => child.kill('SIGKILL'),
  };
}

async function until(check: () => boolean, ms: number, what: string): Promise<number> {
  const start = performance.now();
  while (!check()) {
    if (performance.now() - start > ms) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 1));
  }
  return performance.now();
}

const row = (name: string, value: string, target: string, ok: boolean) =>
  console.log(`${ok ? 'PASS' : 'MISS'}  ${name.padEnd(42)} ${value.padStart(24)}   target ${target}`);

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
/** BENCH_ONLY=paint|stream|burst|keys runs one section. */
const only = (section: string) => !process.env.BENCH_ONLY || process.env.BENCH_ONLY === section;
const spread = (xs: number[], digits: number, unit = '') => `(${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)}${unit})`;

const double = await startServiceDouble();

// 1. First paint: from spawning to the input box on screen (median of 5, or BENCH_PAINTS).
const paints: number[] = [];
for (let i = 0; only('paint') && i < Number(process.env.BENCH_PAINTS ?? 5); i++) {
  const t0 = performance.now();
  const pty = startPty(double);
  const t1 = await until(() => pty.out().includes('Enter send'), 10_000, 'first paint: ' + pty.out().slice(0, 300));
  paints.push(t1 - t0);
  pty.close();
}
const paint = paints.length ? median(paints) / 1000 : NaN;
if (paints.length) row('first paint after launch', `${paint.toFixed(3)} s ${spread(paints.map((p) => p / 1000), 3)}`, '<= 0.3 s', paint <= 0.3);


/** A chat screen with thinking off, ready for a question. */
async function readyScreen(): Promise<Pty> {
  const pty = startPty(double);
  await until(() => pty.out().includes('Enter send'), 10_000, 'ready');
  await new Promise((r) => setTimeout(r, 200));
  pty.write('/think off\r');
  await until(() => pty.out().includes('thinking off'), 5_000, 'think off');
  await new Promise((r) => setTimeout(r, 300));
  return pty;
}

// 2. An answer streaming at 50 tokens/s (one ~4-character token every 20 ms) for 10 s.
// CPU is the process's (every thread, from /proc), while the service double is sending.
if (only('stream')) {
  const tokens = chatSpeedAnswer();
  const received = Buffer.byteLength(tokens.join(''), 'utf8');
  const cpu: number[] = [];
  const ratios: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    double.chat.enqueue({ reasoning: [], content: tokens, paceMs: 20 });
    const pty = await readyScreen();
    const pid = pty.medchatPid()!;
    const before = double.chat.requests.length;
    pty.write('dose?\r');
    await until(() => double.chat.requests.length > before, 5_000, 'request');
    const bytes0 = pty.bytes();
    const cpu0 = cpuTicks(pid);
    const t0 = performance.now();
    const req = double.chat.requests.at(-1)!;
    await until(() => streamEnded(req), 30_000, 'stream end');
    const t1 = performance.now();
    const cpu1 = cpuTicks(pid);
    await until(() => STATS.test(pty.out().slice(-4000)), 5_000, 'final frame');
    cpu.push(cpuPercent(cpu1 - cpu0, t1 - t0));
    ratios.push((pty.bytes() - bytes0) / received);
    pty.close();
  }
  const c = median(cpu);
  row('CPU while streaming at 50 tok/s', `${c.toFixed(1)} % ${spread(cpu, 1)}`, '<= 5% of a core', c <= 5);
  const r = median(ratios);
  row('bytes written per byte of text received', `${r.toFixed(2)} ${spread(ratios, 2)}`, '<= 5', r <= 5);
}

// 3. 4,000 tokens as fast as possible: fully drawn within 0.3 s of the last chunk.
if (only('burst')) {
  const tokens = Array.from({ length: 4000 }, (_, i) => (i % 50 === 49 ? 'end.\n\n' : `w${i % 10} `));
  tokens[tokens.length - 1] = 'lastword.'; // "fully drawn" means this is on screen too, not just the footer
  const delays: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    double.chat.enqueue({ reasoning: [], content: tokens });
    const pty = await readyScreen();
    const before = double.chat.requests.length;
    const mark = pty.out().length;
    pty.write('go\r');
    await until(() => double.chat.requests.length > before, 5_000, 'request');
    const req = double.chat.requests.at(-1)!;
    const tLast = await until(() => streamEnded(req), 30_000, 'stream end');
    const tDrawn = await until(() => { const o = pty.out().slice(mark); return o.includes('lastword.') && STATS.test(o); }, 10_000, 'drawn');
    delays.push((tDrawn - tLast) / 1000);
    pty.close();
  }
  const d = median(delays);
  row('4,000 tokens drawn after the last chunk', `${d.toFixed(3)} s ${spread(delays, 3)}`, '<= 0.3 s', d <= 0.3);
}

// 4. Keystroke latency with a long transcript: 2,800 answer paragraphs (about 5,600 lines) printed, then 40 letters
// typed one at a time; each is timed from the write to its echo in the terminal's output.
if (only('keys')) {
  const tokens = Array.from({ length: 2800 }, (_, i) => `Paragraph ${i}: a line of the long answer about dosing.\n\n`);
  const lat: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    double.chat.enqueue({ reasoning: [], content: tokens });
    const pty = await readyScreen();
    pty.write('long\r');
    await until(() => /Paragraph 2799/.test(pty.out().slice(-20_000)) && STATS.test(pty.out().slice(-4000)), 60_000, 'long answer drawn');
    await new Promise((r) => setTimeout(r, 500));
    const letters = 'qwertyuiopasdfghjklzxcvbnmQWERTYUIOPASDF';
    for (const ch of letters) {
      const mark = pty.bytes();
      const seen = pty.out().length;
      const t0 = performance.now();
      pty.write(ch);
      const t1 = await until(() => pty.bytes() > mark && pty.out().slice(seen).includes(ch), 5_000, `echo of ${ch}`);
      lat.push(t1 - t0);
      await new Promise((r) => setTimeout(r, 30)); // a fast typist: about 30 keys a second
    }
    pty.close();
  }
  const k = median(lat);
  const p90 = [...lat].sort((a, b) => a - b)[Math.floor(lat.length * 0.9)]!;
  row('keystroke echo, ~5,600-line transcript', `${k.toFixed(1)} ms (p90 ${p90.toFixed(1)})`, '<= 50 ms median (feels instant)', k <= 50);
}

await double.close();
