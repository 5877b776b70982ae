import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import type { ChildProcess } from 'node:child_process';
import { BIN, TEST_KEY, cliEnv, runCli, type CliOptions, type CliResult } from './cli.js';
import type { FaultCase } from './fault-cases.js';
import type { Outcome } from './invariants.js';

/**
 * Runs one fault case through medchat and collects what a user would see: in-process (the real
 * one-shot code and HTTP path, with streams that capture bytes; fast enough for hundreds of
 * cases), or through the built binary (pipes, or a pseudo-terminal via `script`).
 */
export const QUESTION = 'What is the normal adult resting heart rate?';

/** Every file under `dir`, as text. */
export function filesUnder(dir: string): Array<{ path: string; text: string }> {
  const out: Array<{ path: string; text: string }> = [];
  const walk = (d: string) => {
    let names: string[];
    try {
      names = fs.readdirSync(d);
    } catch {
      return;
    }
    for (const n of names) {
      const full = path.join(d, n);
      const st = fs.lstatSync(full);
      if (st.isDirectory()) walk(full);
      else if (st.isFile()) out.push({ path: path.relative(dir, full), text: fs.readFileSync(full, 'utf8') });
    }
  };
  walk(dir);
  return out;
}

/**
 * The last turn of the newest session saved under `home`, read through medchat's own store (so
 * the check holds whatever the file format becomes), with the session's id and its exports.
 */
export async function savedSession(home: string): Promise<{ id?: string; turn?: Outcome['turn']; exports: string[] }> {
  const m = await load();
  const store = new m.SessionStore(path.join(home, 'data', 'sessions'));
  let id: string;
  try {
    id = store.resolve('latest');
  } catch {
    return { exports: [] };
  }
  try {
    const data = store.load(id);
    const t = data.turns[data.turns.length - 1];
    const exports = [m.sessionToMarkdown(data, { reasoning: true }), m.sessionToJson(data, { reasoning: true })];
    return { id, turn: t && { answer: t.answer, status: t.status, error: t.error }, exports };
  } catch (err) {
    return { id, turn: { answer: '', status: `unreadable session: ${(err as Error).message}` }, exports: [] };
  }
}

class Capture extends Writable {
  readonly chunks: Buffer[] = [];
  isTTY: boolean | undefined;
  columns = 100;
  rows = 30;
  constructor(tty: boolean) {
    super({ decodeStrings: true });
    if (tty) this.isTTY = true;
  }
  override _write(chunk: Buffer, _enc: BufferEncoding, cb: () => void): void {
    this.chunks.push(chunk);
    cb();
  }
  bytes(): Buffer {
    return Buffer.concat(this.chunks);
  }
}

type Modules = {
  runOneShot: typeof import('../../src/cli/oneshot.js').runOneShot;
  ChatSession: typeof import('../../src/core/sessions/chat-session.js').ChatSession;
  SessionStore: typeof import('../../src/core/sessions/store.js').SessionStore;
  resolveSettings: typeof import('../../src/core/config/settings.js').resolveSettings;
  toMedchatError: typeof import('../../src/core/errors.js').toMedchatError;
  sessionToMarkdown: typeof import('../../src/core/sessions/export.js').sessionToMarkdown;
  sessionToJson: typeof import('../../src/core/sessions/export.js').sessionToJson;
};
let modules: Promise<Modules> | undefined;

/** Loaded once, after MEDCHAT_RETRIES is set (the client reads it when it loads). */
function load(): Promise<Modules> {
  process.env.MEDCHAT_RETRIES ??= '1';
  modules ??= (async () => ({
    ...(await import('../../src/cli/oneshot.js')),
    ...(await import('../../src/core/sessions/chat-session.js')),
    ...(await import('../../src/core/sessions/store.js')),
    ...(await import('../../src/core/config/settings.js')),
    ...(await import('../../src/core/errors.js')),
    ...(await import('../../src/core/sessions/export.js')),
  }))();
  return modules;
}

/** One case through `runOneShot` in this process, against `baseUrl`, saving into `home`. */
export async function runInProcess(c: FaultCase, baseUrl: string, home: string, idleSeconds: number, limitMs: number): Promise<Outcome> {
  const m = await load();
  const stdout = new Capture(c.tty);
  const stderr = new Capture(c.tty);
  const started = performance.now();
  let code: number;
  try {
    const settings = m.resolveSettings({ env: { MEDCHAT_BASE_URL: baseUrl, MEDCHAT_API_KEY: TEST_KEY }, flags: { 'idle-timeout': String(idleSeconds) } });
    const session = m.ChatSession.open(settings, { store: new m.SessionStore(path.join(home, 'data', 'sessions')) });
    const run = m.runOneShot(
      settings,
      { userText: QUESTION, stream: c.stream, json: false, jsonl: false, reasoning: c.reasoningShown ? 'show' : 'hide', session },
      { stdout: stdout as unknown as NodeJS.WriteStream, stderr: stderr as unknown as NodeJS.WriteStream },
    );
    let timer: NodeJS.Timeout | undefined;
    const limit = new Promise<number>((resolve) => (timer = setTimeout(() => resolve(-1), limitMs)));
    code = await Promise.race([run, limit]);
    clearTimeout(timer);
    if (code === -1) stderr.write(`[harness: runOneShot did not return within ${limitMs} ms]\n`);
  } catch (err) {
    // What main would do with a throw: one line, its exit code.
    const e = m.toMedchatError(err);
    stderr.write(`medchat: ${e.message}\n`);
    code = e.exitCode;
  }
  const elapsedMs = Math.round(performance.now() - started);
  const files = filesUnder(home);
  const { turn, exports } = await savedSession(home);
  return { code, stdout: stdout.bytes(), stderr: stderr.bytes().toString('utf8'), elapsedMs, files, turn, exports, tty: c.tty };
}

function binaryArgs(c: FaultCase, idleSeconds: number): string[] {
  return ['--idle-timeout', String(idleSeconds), ...(c.stream ? [] : ['--no-stream']), ...(c.reasoningShown ? [] : ['--reasoning', 'hide']), '-p', QUESTION];
}

/** One case through the built binary with piped stdout/stderr; `withExport` also runs `sessions export`. */
export async function runBinary(c: FaultCase, baseUrl: string, home: string, idleSeconds: number, withExport: boolean): Promise<Outcome> {
  const started = performance.now();
  const r = await runCli(binaryArgs(c, idleSeconds), { baseUrl, home, env: { NO_COLOR: '1' }, timeoutMs: 20_000 });
  const elapsedMs = Math.round(performance.now() - started);
  const files = filesUnder(home);
  const { id, turn, exports } = await savedSession(home);
  if (withExport && id) {
    const e = await runCli(['sessions', 'export', id, '--reasoning'], { home, env: { NO_COLOR: '1' }, timeoutMs: 10_000 });
    exports.push(e.stdout, e.stderr);
  }
  return { code: r.code ?? (r.signal ? 128 : -1), stdout: r.stdoutBytes, stderr: r.stderr, elapsedMs, files, turn, exports, tty: false };
}

export const hasScript = fs.existsSync('/usr/bin/script') || fs.existsSync('/bin/script');

/**
 * One case through the built binary on a pseudo-terminal (`script -qec`): stdout and stderr are
 * the terminal, so everything it printed is checked for controls. The pty turns \n into \r\n.
 */
export async function runOnPty(c: FaultCase, baseUrl: string, home: string, idleSeconds: number): Promise<Outcome> {
  const started = performance.now();
  const { code, text } = await runArgsOnPty(binaryArgs(c, idleSeconds), { baseUrl, home });
  const elapsedMs = Math.round(performance.now() - started);
  const files = filesUnder(home);
  const { turn } = await savedSession(home);
  return { code, stdout: Buffer.from(text), stderr: text, elapsedMs, files, turn, exports: [], tty: true };
}

/** A run of the built binary a test steers while it runs: what it printed so far, its stdin (held open), when it ended. */
export interface RunningCli {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  /** Resolves when the process has ended (after `timeoutMs` it is killed and this rejects). */
  done: Promise<CliResult & { endedAt: number }>;
}

/**
 * Start `bin/medchat.js` as runCli does, but keep stdin open (`holdStdin`: the test writes to it
 * and ends it, or never does) and let the test watch stdout and stderr as they come.
 */
export function startBinary(args: string[], opts: CliOptions & { holdStdin?: boolean } = {}): RunningCli {
  let child!: ChildProcess;
  let out = '';
  let err = '';
  const done = runCli(args, {
    ...opts,
    stdin: opts.holdStdin ? undefined : opts.stdin,
    onSpawn: (c) => {
      child = c;
      c.stdout!.on('data', (d: Buffer) => (out += d.toString('utf8')));
      c.stderr!.on('data', (d: Buffer) => (err += d.toString('utf8')));
      opts.onSpawn?.(c);
    },
    keepStdin: opts.holdStdin,
  }).then((r) => ({ ...r, endedAt: Date.now() }));
  return { child, stdout: () => out, stderr: () => err, done };
}

/**
 * Any medchat command on a pseudo-terminal (`script -qec`), as a user at a terminal runs it: its
 * exit code, and everything the terminal got (stdout and stderr are one stream there; the pty's
 * \r\n turned back into \n).
 */
export async function runArgsOnPty(args: string[], opts: { baseUrl?: string; home: string; env?: Record<string, string>; timeoutMs?: number }): Promise<{ code: number; text: string }> {
  const env = { ...cliEnv({ baseUrl: opts.baseUrl, home: opts.home, env: { NO_COLOR: '1', TERM: 'xterm-256color', ...opts.env } }) };
  const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  const exitFile = path.join(opts.home, 'exit-code');
  const inner = `${q(process.execPath)} ${q(BIN)} ${args.map(q).join(' ')}; echo $? > ${q(exitFile)}`;
  const limit = opts.timeoutMs ?? 20_000;
  const output = await new Promise<Buffer>((resolve, reject) => {
    const child = spawn('script', ['-qec', inner, '/dev/null'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => out.push(b));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`script did not finish within ${limit / 1000} s`));
    }, limit);
    child.on('error', reject);
    child.on('close', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(out));
    });
  });
  const code = Number(fs.existsSync(exitFile) ? fs.readFileSync(exitFile, 'utf8').trim() : -1);
  fs.rmSync(exitFile, { force: true });
  return { code, text: output.toString('utf8').replace(/\r\n/g, '\n') };
}
