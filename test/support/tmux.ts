import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before } from 'node:test';
import { startServiceDouble, type ServiceDouble } from './misbehaving-service.js';
import { REPO, medchatCommand, tempHome, waitFor } from './cli.js';
import { beforeTempRemoval } from './temp.js';

/** tmux is how the terminal tests get a real pseudo-terminal. CI installs it; elsewhere they skip. */
export const hasTmux = spawnSync('tmux', ['-V'], { stdio: 'ignore' }).status === 0;
export const tmuxSkip = hasTmux ? false : 'tmux is not installed: install it (apt-get install tmux) to run the terminal tests';
/** Why a test of the built medchat in tmux is skipped: no tmux, or no build to run. */
export const builtSkip = tmuxSkip || (!fs.existsSync(path.join(REPO, 'dist', 'medchat.js')) && 'run node build/build.mjs first');

let seq = 0;

/** Where tmux keeps the socket of the server named `name` (`tmux -L name`): $TMUX_TMPDIR or /tmp, then tmux-<uid>/. */
export function tmuxSocketPath(name: string): string {
  const uid = typeof process.getuid === 'function' ? process.getuid() : 0;
  return path.join(process.env.TMUX_TMPDIR || '/tmp', `tmux-${uid}`, name);
}

const running = new Set<string>();
/** Panes not yet killed: stopped at exit, before their homes are removed (temp.ts). */
const openPanes = new Set<TmuxPane>();
let hooked = false;

/** Start tracking a tmux server: it is stopped, and its socket removed, when the test process exits at the latest. */
export function trackTmuxServer(name: string): void {
  running.add(name);
  if (hooked) return;
  hooked = true;
  beforeTempRemoval(() => {
    for (const p of [...openPanes]) p.kill();
    for (const n of [...running]) killTmuxServer(n);
  });
}

/** The processes of the server's panes and everything they started (medchat under its shell), from /proc. */
function paneProcesses(name: string): number[] {
  const r = spawnSync('tmux', ['-L', name, 'list-panes', '-a', '-F', '#{pane_pid}'], { encoding: 'utf8' });
  const found = new Set((r.stdout ?? '').split('\n').filter(Boolean).map(Number));
  if (found.size === 0) return [];
  const parentOf = new Map<number, number>();
  try {
    for (const entry of fs.readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
        parentOf.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
      } catch {
        // ended while we looked
      }
    }
  } catch {
    return [...found]; // no /proc: the pane processes alone
  }
  for (let grew = true; grew; ) {
    grew = false;
    for (const [pid, ppid] of parentOf) {
      if (found.has(ppid) && !found.has(pid)) {
        found.add(pid);
        grew = true;
      }
    }
  }
  return [...found];
}

/**
 * Stop the tmux server `name`, wait (up to 10 s) for what ran in its panes to end, and remove its socket (tmux
 * leaves the socket file behind). A medchat stopped by the hang-up may still be saving into its home: a home
 * removed before it ends is written back behind the test's back.
 */
export function killTmuxServer(name: string): void {
  const pids = paneProcesses(name);
  spawnSync('tmux', ['-L', name, 'kill-server'], { stdio: 'ignore' });
  const until = Date.now() + 10_000;
  for (const pid of pids) waitGone(pid, until);
  fs.rmSync(tmuxSocketPath(name), { force: true });
  running.delete(name);
}

/** Whether process `pid` has ended (a zombie nobody has reaped yet counts as ended: it can write nothing). */
function gone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return true;
  }
  try {
    return /^\d+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/** Block until `pid` has ended, until the time `until` at most; then SIGKILL it, so nothing of a test outlives it. */
export function waitGone(pid: number, until: number): void {
  const nap = new Int32Array(new SharedArrayBuffer(4));
  while (!gone(pid) && Date.now() < until) Atomics.wait(nap, 0, 0, 20);
  if (!gone(pid)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // ended just now
    }
  }
}

/** util-linux `script`, which records what medchat writes to its terminal (TmuxPane's `record`). */
export const hasScript = spawnSync('script', ['--version'], { stdio: 'ignore' }).status === 0;

/** `script -q` still writes a `Script started on …` line first and a `Script done on …` line last: not medchat's. */
function stripScriptHeader(bytes: Buffer): Buffer {
  let start = 0;
  if (bytes.subarray(0, 15).toString('latin1') === 'Script started ') start = bytes.indexOf(0x0a) + 1;
  let end = bytes.length;
  const done = bytes.lastIndexOf('\nScript done on ');
  if (done >= start) end = done;
  return bytes.subarray(start, end);
}

/**
 * The built medchat in a tmux pane of its own server. After medchat exits, the pane prints
 * `medchat exited <code>`, then the terminal's state (`stty -a`), then waits, so a test can
 * read both. `pid()` is medchat's own process id (for signals).
 */
export class TmuxPane {
  readonly name = `medchat-t-${process.pid}-${++seq}`;
  readonly home: string;
  private readonly pidFile: string;
  private readonly recordTo: string | undefined;

  /**
   * `shellLines`: printed by the shell before medchat starts (what the user's terminal showed before).
   * `record`: a file that gets every byte medchat writes to the terminal (medchat runs under util-linux `script`,
   * which passes keys and the window size through); read it with `recording()`, to replay into other terminals.
   */
  constructor(
    args: string[],
    env: Record<string, string>,
    opts: { home?: string; width?: number; height?: number; shellLines?: string[]; record?: string } = {},
  ) {
    this.home = opts.home ?? tempHome();
    this.pidFile = path.join(this.home, 'medchat.pid');
    const vars = {
      HOME: this.home,
      MEDCHAT_CONFIG_DIR: path.join(this.home, 'config'),
      MEDCHAT_DATA_DIR: path.join(this.home, 'data'),
      MEDCHAT_RETRIES: '1',
      TERM: 'xterm-256color',
      LANG: 'C.UTF-8',
      ...env,
    };
    const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
    const envText = Object.entries(vars).map(([k, v]) => `${k}=${q(v)}`).join(' ');
    const before = (opts.shellLines ?? []).map((l) => `printf '%s\\n' ${q(l)}; `).join('');
    const inner = `${before}echo $$ > ${q(this.pidFile)}; exec ${[...medchatCommand(), ...args].map(q).join(' ')}`;
    const medchat = `env -i PATH="$PATH" ${envText} sh -c ${q(inner)}`;
    this.recordTo = opts.record;
    // -e: script exits with medchat's code; -f: each write reaches the file at once.
    const run = opts.record ? `script -q -f -e -c ${q(medchat)} ${q(opts.record)}` : medchat;
    const script = `${run}; echo "medchat exited $?"; stty -a | tr -s ' ;\\n' ' '; echo; echo END-OF-STTY; sleep 60`;
    trackTmuxServer(this.name);
    openPanes.add(this);
    this.tmux('new-session', '-d', '-s', this.name, '-x', String(opts.width ?? 100), '-y', String(opts.height ?? 30), script);
  }

  tmux(...args: string[]): string {
    return execFileSync('tmux', ['-L', this.name, ...args], { encoding: 'utf8' });
  }

  screen(): string {
    return this.tmux('capture-pane', '-p', '-J', '-S', '-200', '-t', this.name);
  }

  /** Everything the terminal holds, scrollback and screen, as lines (trailing blank lines dropped). */
  all(): string[] {
    return this.tmux('capture-pane', '-p', '-J', '-S', '-', '-E', '-', '-t', this.name).replace(/\n+$/, '').split('\n');
  }

  async waitForText(text: string | RegExp, ms = 10_000): Promise<void> {
    await waitFor(() => (typeof text === 'string' ? this.screen().includes(text) : text.test(this.screen())), ms, () => `${text} on screen\n--- screen ---\n${this.screen()}`);
  }

  type(text: string): void {
    this.tmux('send-keys', '-t', this.name, '-l', text);
  }

  press(...keys: string[]): void {
    this.tmux('send-keys', '-t', this.name, ...keys);
  }

  /** Type a line as a person would: wait until it shows in the input box, then press Enter. */
  async send(line: string): Promise<void> {
    this.type(line);
    await this.waitForText(`› ${line}`, 5000);
    // Enter is ignored while the screen is still settling a previous answer: press again until
    // the line has left the input box (an Enter on an empty box does nothing).
    const inBox = () => this.screen().split('\n').some((l) => l.includes(`│ › ${line}`));
    for (let i = 0; i < 10; i++) {
      await new Promise((r) => setTimeout(r, 30));
      this.press('Enter');
      try {
        await waitFor(() => !inBox(), 1000, 'the line to be sent');
        return;
      } catch {
        // pressed too early: again
      }
    }
    throw new Error(`the chat screen did not take the line ${line}\n${this.screen()}`);
  }

  /** Wait for the chat screen to be ready for input (its key help is drawn and raw mode is on). */
  async ready(): Promise<void> {
    await this.waitForText('Enter send');
    await new Promise((r) => setTimeout(r, 200));
  }

  /** What medchat has written to the terminal so far, byte for byte (the pane was made with `record`). */
  recording(): Buffer {
    if (!this.recordTo) throw new Error('this pane records nothing: make it with the record option');
    return stripScriptHeader(fs.readFileSync(this.recordTo));
  }

  pid(): number {
    return Number(fs.readFileSync(this.pidFile, 'utf8').trim());
  }

  /** Waits for medchat to exit; returns its exit code and the terminal settings it left behind. */
  async exited(ms = 10_000): Promise<{ code: number; stty: string; cursorVisible: boolean }> {
    await this.waitForText('END-OF-STTY', ms);
    const s = this.screen();
    const code = Number(/medchat exited (\d+)/.exec(s)![1]);
    const stty = s.slice(s.indexOf('medchat exited')).split('END-OF-STTY')[0]!;
    const cursorVisible = this.tmux('display-message', '-p', '-t', this.name, '#{cursor_flag}').trim() === '1';
    return { code, stty, cursorVisible };
  }

  /** Stop the pane's server and wait for medchat to end (killTmuxServer). */
  kill(): void {
    killTmuxServer(this.name);
    openPanes.delete(this);
  }
}

/**
 * A test file's teardown: stop every pane and remove its home, then `close` (the double) even if a
 * removal failed: an open double keeps the file from ever ending. A home a killed medchat was still
 * saving into is removed at exit (temp.ts).
 */
export async function closePanes(panes: readonly TmuxPane[], close: () => Promise<void>): Promise<void> {
  try {
    for (const p of panes) {
      p.kill();
      fs.rmSync(p.home, { recursive: true, force: true, maxRetries: 5 });
    }
  } finally {
    await close();
  }
}

/**
 * What a test file of the chat screen in tmux shares: a double started before its tests, and the panes the tests
 * open (push them to `panes`), all stopped after them, their homes removed and the double closed (closePanes).
 */
export function paneFixture(): { readonly double: ServiceDouble; readonly panes: TmuxPane[] } {
  let double: ServiceDouble | undefined;
  const panes: TmuxPane[] = [];
  before(async () => {
    double = await startServiceDouble();
  });
  after(() => closePanes(panes, async () => double?.close()));
  return {
    get double(): ServiceDouble {
      if (!double) throw new Error('the double starts before the tests (paneFixture)');
      return double;
    },
    panes,
  };
}
