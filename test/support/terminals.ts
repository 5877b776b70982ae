import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import stringWidth from 'string-width';
import { waitFor } from './cli.js';
import { beforeTempRemoval, removeTemp, tempDir } from './temp.js';
import { builtSkip, hasScript, killTmuxServer, tmuxSkip, trackTmuxServer, waitGone } from './tmux.js';

/**
 * Real terminals reading the same bytes. medchat runs in tmux with its output recorded (TmuxPane's `record`);
 * the recording is then replayed into a fresh tmux, into GNU screen and into xterm (under Xvfb), each at the same
 * size, and each terminal's own cells are read back: what a user of that terminal would see, scrollback included.
 *
 * How each is read:
 *  - tmux: `capture-pane` (rows as they are; lines with -J, joined where tmux wrapped them itself).
 *  - screen (run attached inside a tmux pane of the size, so its window is that size): copy mode, from the top of
 *    its scrollback to the end of its screen, written out with `writebuf`. The copy joins the rows screen wrapped
 *    itself (a full row followed by a line break stays a row of its own), so rows are cut from its lines by
 *    counting cells as screen does (wcwidth: each code point's own width, see screenCells).
 *  - xterm: prints everything (saved lines and screen) to its printerCommand on `CSI ? 11 i`, written after the
 *    replay; with printerNewLine off it joins the rows it wrapped itself. The right half of a wide character
 *    prints as U+FFFF, so the rows are cut from the lines by counting cells (see xtermCells).
 *
 * A replay program in each terminal writes the recording, then asks for the cursor position (`CSI 6 n`): the answer
 * comes only after the terminal has taken in every byte before it, so the terminal is read only then. Every wait is
 * bounded; every process started here is stopped, and every file removed, also when a test fails.
 */

export type TerminalName = 'tmux' | 'screen' | 'xterm';
export const TERMINALS: readonly TerminalName[] = ['tmux', 'screen', 'xterm'];

/** What a terminal holds, scrollback then screen. */
export interface TerminalText {
  terminal: TerminalName;
  /** One string per row, trailing blanks dropped (and trailing empty rows). */
  rows: string[];
  /** Rows joined where the terminal wrapped them itself. */
  lines: string[];
}

export interface Size {
  width: number;
  height: number;
}

const onPath = (cmd: string) => spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;
const hasScreen = onPath('screen');
const hasXterm = onPath('xterm') && onPath('Xvfb');

/** Why a terminal cannot be run here (false: it can). */
export function terminalSkip(name: TerminalName): string | false {
  if (name === 'tmux') return tmuxSkip;
  if (name === 'screen' && !hasScreen) return 'GNU screen is not installed: install it (apt-get install screen) to read medchat in screen';
  if (name === 'xterm' && !hasXterm) return 'xterm or Xvfb is not installed: install them (apt-get install xterm xvfb xfonts-base) to read medchat in xterm';
  return false;
}

/** Why a test that records the built medchat and reads it in all of `names` is skipped (false: nothing missing). */
export function terminalsSkip(names: readonly TerminalName[] = TERMINALS): string | false {
  if (builtSkip) return builtSkip;
  if (!hasScript) return 'util-linux script is not installed: it records what medchat writes (apt-get install bsdutils)';
  for (const n of names) {
    const why = terminalSkip(n);
    if (why) return why;
  }
  return false;
}

const UTF8 = { LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8' };
const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
let seq = 0;

// ---------------------------------------------------------------------------------------------------------------
// Processes started here (Xvfb, xterm, screen): stopped at exit at the latest, before the temp folders go.

const cleanups = new Set<() => void>();
let hooked = false;
function atExit(stop: () => void): () => void {
  cleanups.add(stop);
  if (!hooked) {
    hooked = true;
    beforeTempRemoval(() => {
      for (const c of [...cleanups]) c();
    });
  }
  return () => {
    cleanups.delete(stop);
    stop();
  };
}

/** SIGTERM, then wait (up to `ms`), then SIGKILL. */
function stopProcess(child: ChildProcess, ms = 3000): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    child.kill('SIGTERM');
  } catch {
    return;
  }
  waitGone(child.pid, Date.now() + ms);
}

// ---------------------------------------------------------------------------------------------------------------
// The replay program: the recording, then `CSI 6 n`; once the terminal answers, a file says so.

const REPLAY_JS = `
import fs from 'node:fs';
const [rec, done, print] = process.argv.slice(2);
let reply = '';
process.stdin.on('data', (b) => {
  reply += b.toString('latin1');
  if (!/\\x1b\\[\\d+;\\d+R/.test(reply)) return;
  process.stdin.pause();
  if (print === 'print') process.stdout.write('\\x1b[?11i');
  fs.writeFileSync(done + '.tmp', JSON.stringify({ columns: process.stdout.columns, rows: process.stdout.rows }));
  fs.renameSync(done + '.tmp', done);
});
process.stdout.write(fs.readFileSync(rec));
process.stdout.write('\\x1b[6n');
setTimeout(() => process.exit(0), 120000);
`;

/** The shell command a terminal runs: the terminal's line settings raw (bytes pass as they are), then the program. */
function replayCommand(dir: string, rec: string, done: string, print = false): string {
  const js = path.join(dir, 'replay.mjs');
  if (!fs.existsSync(js)) fs.writeFileSync(js, REPLAY_JS);
  return `stty raw -echo; exec ${q(process.execPath)} ${q(js)} ${q(rec)} ${q(done)}${print ? ' print' : ''}`;
}

/** What the replay program saw: the terminal's size. */
interface Done {
  columns: number;
  rows: number;
}

async function waitForFile(file: string, ms: number, what: () => string): Promise<string> {
  await waitFor(() => fs.existsSync(file), ms, what);
  return fs.readFileSync(file, 'utf8');
}

/** Wait for the replay program to say the terminal took in every byte; check the terminal was the size asked for. */
async function replayed(done: string, size: Size, terminal: TerminalName, shows: () => string): Promise<void> {
  const d = JSON.parse(await waitForFile(done, 15_000, () => `${terminal} to take in the replay\n--- it shows ---\n${shows()}`)) as Done;
  if (d.columns !== size.width || d.rows !== size.height) {
    throw new Error(`${terminal} replayed at ${d.columns}x${d.rows}, not ${size.width}x${size.height}`);
  }
}

const trimRows = (rows: string[]) => {
  const out = rows.map((r) => r.trimEnd());
  while (out.length && out[out.length - 1] === '') out.pop();
  return out;
};

// ---------------------------------------------------------------------------------------------------------------
// tmux

function tmuxHost(size: Size, command: string, conf: string): { name: string; tmux: (...args: string[]) => string } {
  const name = `medchat-rt-${process.pid}-${++seq}`;
  trackTmuxServer(name);
  const tmux = (...args: string[]) => execFileSync('tmux', ['-L', name, ...args], { encoding: 'utf8', env: { ...process.env, ...UTF8 } });
  tmux('-f', conf, 'new-session', '-d', '-x', String(size.width), '-y', String(size.height), command);
  return { name, tmux };
}

async function readTmux(dir: string, rec: string, size: Size): Promise<TerminalText> {
  const conf = path.join(dir, 'tmux.conf');
  fs.writeFileSync(conf, 'set -g history-limit 20000\n');
  const done = path.join(dir, 'tmux.done');
  const host = tmuxHost(size, replayCommand(dir, rec, done), conf);
  try {
    const capture = (...a: string[]) => host.tmux('capture-pane', '-p', '-S', '-', '-E', '-', ...a).replace(/\n$/, '').split('\n');
    await replayed(done, size, 'tmux', () => capture().join('\n'));
    return { terminal: 'tmux', rows: trimRows(capture()), lines: trimRows(capture('-J')) };
  } finally {
    killTmuxServer(host.name);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// GNU screen, attached in a tmux pane of the size (a detached screen is 80x24 whatever it is told)

async function readScreen(dir: string, rec: string, size: Size): Promise<TerminalText> {
  // screen's socket is <SCREENDIR>/<pid>.<session>: short names keep it under the 108 bytes a socket path may take.
  const sockets = path.join(dir, 's');
  fs.mkdirSync(sockets, { mode: 0o700 });
  const buffer = path.join(dir, 'screen-copy.txt');
  const rc = path.join(dir, 'screenrc');
  fs.writeFileSync(rc, ['startup_message off', 'defutf8 on', 'defscrollback 20000', 'hardstatus off', 'vbell off', `bufferfile "${buffer}"`, ''].join('\n'));
  const done = path.join(dir, 'screen.done');
  const session = `m${++seq}`;
  const env = { ...process.env, ...UTF8, SCREENDIR: sockets };
  const command = `env SCREENDIR=${q(sockets)} LANG=C.UTF-8 LC_ALL=C.UTF-8 screen -U -c ${q(rc)} -S ${session} sh -c ${q(replayCommand(dir, rec, done))}`;
  const host = tmuxHost(size, command, '/dev/null');
  const quit = atExit(() => {
    spawnSync('screen', ['-S', session, '-X', 'quit'], { env, stdio: 'ignore', timeout: 5000 });
    killTmuxServer(host.name);
  });
  try {
    const shows = () => host.tmux('capture-pane', '-p');
    await replayed(done, size, 'screen', shows);
    // Copy mode: top of the scrollback (g), first column (0), mark; last line (G), its end ($), mark: copied.
    // Then C-a > writes the copy to the bufferfile. Keys, not -X commands: those do not reach copy mode.
    for (let attempt = 0; ; attempt++) {
      host.tmux('send-keys', 'C-a', '[');
      await new Promise((r) => setTimeout(r, 50));
      host.tmux('send-keys', 'g', '0', 'Space', 'G', '$', 'Space');
      await new Promise((r) => setTimeout(r, 50));
      host.tmux('send-keys', 'C-a', '>');
      try {
        await waitFor(() => fs.existsSync(buffer), 3000, 'screen to write its copy');
        break;
      } catch (e) {
        // The keys came before copy mode began: leave it (if it did begin), and again.
        if (attempt >= 2) throw new Error(`screen did not write out its scrollback and screen\n--- it shows ---\n${shows()}`, { cause: e });
        host.tmux('send-keys', 'Escape');
      }
    }
    let written = -1;
    await waitFor(() => written === (written = fs.statSync(buffer).size), 2000, 'screen to finish writing its copy');
    const lines = fs.readFileSync(buffer, 'utf8').split('\n');
    return { terminal: 'screen', rows: trimRows(lines.flatMap((l) => cutRows(l, size.width, screenCells))), lines: trimRows(lines) };
  } finally {
    quit();
  }
}

// ---------------------------------------------------------------------------------------------------------------
// xterm under Xvfb

let xserver: Promise<string> | undefined;

/** An X display of our own (Xvfb picks a free number and says which), stopped at exit. */
function xDisplay(): Promise<string> {
  xserver ??= new Promise<string>((resolve, reject) => {
    const proc = spawn('Xvfb', ['-displayfd', '3', '-screen', '0', '2000x1400x24', '-nolisten', 'tcp'], {
      stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
    });
    atExit(() => stopProcess(proc));
    let err = '';
    let out = '';
    proc.stderr!.on('data', (b: Buffer) => (err = (err + b.toString()).slice(-2000)));
    const fd3 = proc.stdio[3] as NodeJS.ReadableStream;
    const timer = setTimeout(() => reject(new Error(`Xvfb did not start in 10 s\n${err}`)), 10_000);
    fd3.on('data', (b: Buffer) => {
      out += b.toString();
      const m = /^(\d+)\n/.exec(out);
      if (!m) return;
      clearTimeout(timer);
      resolve(`:${m[1]}`);
    });
    proc.on('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`Xvfb ended (${code ?? signal}) before it gave a display\n${err}`));
    });
    proc.unref();
    for (const s of [proc.stderr, fd3] as Array<{ unref?: () => void } | null>) s?.unref?.();
  });
  return xserver;
}

/**
 * Cells a code point takes in xterm's print: the right half of a wide character is printed as U+FFFF (a cell of
 * its own); combining marks, ZWJ and variation selectors are printed after the cell they join (none).
 */
function xtermCells(ch: string): number {
  return /^[\p{Mn}\p{Me}\p{Cf}]$/u.test(ch) ? 0 : 1;
}

/** Cells a code point takes in screen: its own width (wcwidth; screen sums a cluster's code points). */
function screenCells(ch: string): number {
  return stringWidth(ch);
}

/** A line cut into the rows of `width` cells the terminal wrapped it into (a line no wider is one row). */
function cutRows(line: string, width: number, cellsOf: (ch: string) => number): string[] {
  const chars = Array.from(line);
  if (chars.reduce((n, c) => n + cellsOf(c), 0) <= width) return [line];
  const rows: string[] = [];
  let row = '';
  let cells = 0;
  for (const c of chars) {
    const w = cellsOf(c);
    if (cells + w > width) {
      rows.push(row);
      row = '';
      cells = 0;
    }
    row += c;
    cells += w;
  }
  rows.push(row);
  return rows;
}

async function readXterm(dir: string, rec: string, size: Size): Promise<TerminalText> {
  const display = await xDisplay();
  const done = path.join(dir, 'xterm.done');
  const printed = path.join(dir, 'xterm-print.txt');
  const resources = [
    `printerCommand: cat > ${q(printed + '.tmp')} && mv ${q(printed + '.tmp')} ${q(printed)}`,
    'printAttributes: 0',
    'printerNewLine: false', // rows xterm wrapped itself are printed as one line
    'printerFormFeed: false',
    'printerAutoClose: true',
    'jumpScroll: false', // with jump scroll, lines still scrolling are left out of the saved lines
    'saveLines: 20000',
    'scrollBar: false',
  ];
  const args = [
    '-u8',
    '-geometry',
    `${size.width}x${size.height}+0+0`,
    ...resources.flatMap((r) => ['-xrm', `XTerm*${r}`]),
    '-e',
    'sh',
    '-c',
    replayCommand(dir, rec, done, true),
  ];
  const proc = spawn('xterm', args, { env: { PATH: process.env.PATH, HOME: dir, DISPLAY: display, ...UTF8 }, stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  proc.stderr!.on('data', (b: Buffer) => (err = (err + b.toString()).slice(-2000)));
  const stop = atExit(() => stopProcess(proc));
  try {
    const status = () => (proc.exitCode !== null ? `xterm exited ${proc.exitCode}: ${err}` : err || '(xterm is running)');
    await replayed(done, size, 'xterm', status);
    const text = await waitForFile(printed, 10_000, () => `xterm to print its screen and saved lines\n${status()}`);
    const lines = text.replace(/\n$/, '').split('\n');
    const clean = (s: string) => s.replace(/\uffff/g, '');
    return {
      terminal: 'xterm',
      rows: trimRows(lines.flatMap((l) => cutRows(l, size.width, xtermCells)).map(clean)),
      lines: trimRows(lines.map(clean)),
    };
  } finally {
    stop();
  }
}

// ---------------------------------------------------------------------------------------------------------------

const readers: Record<TerminalName, (dir: string, rec: string, size: Size) => Promise<TerminalText>> = {
  tmux: readTmux,
  screen: readScreen,
  xterm: readXterm,
};

/**
 * Replay `bytes` (what medchat wrote) into each terminal of `names` at `size`, and read back what each holds.
 * Terminals that cannot run here are left out (see terminalSkip).
 */
export async function replay(bytes: Buffer | string, size: Size, names: readonly TerminalName[] = TERMINALS): Promise<TerminalText[]> {
  const dir = tempDir('medchat-term-');
  try {
    const rec = path.join(dir, 'recording');
    fs.writeFileSync(rec, bytes);
    const usable = names.filter((n) => !terminalSkip(n));
    // All settled before the folder goes, also when one terminal fails.
    const read = await Promise.allSettled(
      usable.map(async (n) => {
        const own = path.join(dir, n);
        fs.mkdirSync(own);
        return readers[n](own, rec, size);
      }),
    );
    return read.map((r, i) => {
      if (r.status === 'fulfilled') return r.value;
      const e = r.reason as Error;
      throw new Error(`reading ${usable[i]} (${size.width}x${size.height}): ${e.message}`, { cause: e });
    });
  } finally {
    removeTemp(dir);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Cell widths

const PROBE_COPIES = 5;
const PROBE_BAR = 40;

/**
 * The cells each terminal gives each glyph: on a row of its own, the glyph 5 times then `#`, and a `|` put at
 * column 40 beforehand; the blanks left between `#` and `|` give the width (up to 7 cells). undefined: the row
 * did not come out that way (the glyph drawn over the bar, or not in one piece).
 */
export async function cellWidths(glyphs: readonly string[], names: readonly TerminalName[] = TERMINALS): Promise<Map<TerminalName, Map<string, number | undefined>>> {
  const size = { width: 80, height: glyphs.length + 2 };
  const probe = '\x1b[2J\x1b[H' + glyphs.map((g, i) => `\x1b[${i + 1};${PROBE_BAR + 1}H|\x1b[${i + 1};1H${g.repeat(PROBE_COPIES)}#`).join('') + `\x1b[${glyphs.length + 1};1H`;
  const out = new Map<TerminalName, Map<string, number | undefined>>();
  for (const t of await replay(probe, size, names)) {
    const widths = new Map<string, number | undefined>();
    glyphs.forEach((g, i) => {
      const row = t.rows[t.rows.length - glyphs.length + i] ?? ''; // screen keeps the cleared screen in its scrollback
      const m = /#( *)\|$/.exec(row);
      const cells = m ? (PROBE_BAR - 1 - m[1]!.length) / PROBE_COPIES : NaN;
      widths.set(g, Number.isInteger(cells) ? cells : undefined);
    });
    out.set(t.terminal, widths);
  }
  return out;
}

/** A terminal's rows for a failure message: the last `n`, numbered. */
export function showRows(t: TerminalText, n = 60): string {
  const from = Math.max(0, t.rows.length - n);
  return t.rows
    .slice(from)
    .map((r, i) => `${String(from + i).padStart(4)}|${r}`)
    .join('\n');
}
