import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { tempDir } from './temp.js';

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const BIN = path.join(REPO, 'bin', 'medchat.js');
export const TEST_KEY = 'sk-test-SECRETKEY-a1b2';

/**
 * MEDCHAT_TEST_EXECUTABLE=<file> runs the tests against a single executable (`npm run package`: release/medchat-linux-x64)
 * instead of `node bin/medchat.js`, with no `node` on the PATH it sees (see pathWithoutNode).
 */
export const TEST_EXECUTABLE = process.env.MEDCHAT_TEST_EXECUTABLE ? path.resolve(process.env.MEDCHAT_TEST_EXECUTABLE) : undefined;

/** The command that runs medchat, before its arguments: the executable under test, or this Node with the launcher. */
export function medchatCommand(bin = BIN): string[] {
  return TEST_EXECUTABLE ? [TEST_EXECUTABLE] : [process.execPath, bin];
}

/**
 * The PATH a single executable under test sees: every folder that holds a `node` is dropped, except those the tests'
 * own tools live in (Debian keeps node in /usr/bin beside bash and tmux); before them comes a folder whose `node`
 * fails loudly, so an executable that looked for node on the PATH would find only that.
 */
function pathWithoutNode(): string {
  const shadow = path.join(REPO, 'release', '.no-node');
  const stub = path.join(shadow, 'node');
  if (!fs.existsSync(stub)) {
    fs.mkdirSync(shadow, { recursive: true });
    fs.writeFileSync(stub, '#!/bin/sh\necho "medchat test: node was run from the PATH by the executable under test" >&2\nexit 97\n', { mode: 0o755 });
  }
  const dirs = (process.env.PATH ?? '').split(path.delimiter).filter((d) => d && !(fs.existsSync(path.join(d, 'node')) && !fs.existsSync(path.join(d, 'sh'))));
  return [shadow, ...dirs].join(path.delimiter);
}

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  stdoutBytes: Buffer;
}

export interface CliOptions {
  env?: Record<string, string | undefined>;
  /** Text or bytes on stdin; undefined closes stdin at once (like </dev/null). */
  stdin?: string | Buffer;
  /** Base URL of the double; sets MEDCHAT_BASE_URL and a test key. */
  baseUrl?: string;
  home?: string;
  timeoutMs?: number;
  /** Leave stdin open when `stdin` is undefined (the test writes to it, ends it, or never does). */
  keepStdin?: boolean;
  /** Called with the child once it has started (to send signals, read streams). */
  onSpawn?: (child: ChildProcess) => void;
  /** Run through this command, with node and the binary after it (`['setpriv', '--reuid=65534', …]`: as another user). */
  wrap?: string[];
  /** The launcher to run instead of BIN (a copy another user can read). */
  bin?: string;
}

/**
 * A fresh, private home for one test: config and data folders that nothing else touches. Its name holds no run of
 * 8 characters of TEST_KEY (`medchat-test-secrets-…` did: medchat rightly masked the path in its messages).
 */
export function tempHome(): string {
  return tempDir('medchat-home-');
}

export function cliEnv(opts: CliOptions): NodeJS.ProcessEnv {
  const home = opts.home ?? tempHome();
  const env: NodeJS.ProcessEnv = {
    PATH: TEST_EXECUTABLE ? pathWithoutNode() : process.env.PATH,
    HOME: home,
    MEDCHAT_CONFIG_DIR: path.join(home, 'config'),
    MEDCHAT_DATA_DIR: path.join(home, 'data'),
    MEDCHAT_RETRIES: '1',
    LANG: 'C.UTF-8',
  };
  if (opts.baseUrl) {
    env.MEDCHAT_BASE_URL = opts.baseUrl;
    env.MEDCHAT_API_KEY = TEST_KEY;
  }
  for (const [k, v] of Object.entries(opts.env ?? {})) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

/** Every file under `dir`, recursively (none when it does not exist): where a run may have written. */
export function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => path.join(d.parentPath ?? (d as unknown as { path: string }).path, d.name));
}

/** Run the built `bin/medchat.js` as a user would, and collect what it printed and how it ended. */
export function runCli(args: string[], opts: CliOptions = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const [cmd, ...argv] = [...(opts.wrap ?? []), ...medchatCommand(opts.bin), ...args];
    const child = spawn(cmd!, argv, { env: cliEnv(opts), stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => err.push(c));
    child.stdin.on('error', () => {});
    if (opts.stdin !== undefined) child.stdin.end(opts.stdin);
    else if (!opts.keepStdin) child.stdin.end();
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`medchat ${args.join(' ')} did not finish within ${opts.timeoutMs ?? 20000} ms\nstderr: ${Buffer.concat(err)}`));
    }, opts.timeoutMs ?? 20000);
    opts.onSpawn?.(child);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const stdoutBytes = Buffer.concat(out);
      resolve({ code, signal, stdout: stdoutBytes.toString('utf8'), stderr: Buffer.concat(err).toString('utf8'), stdoutBytes });
    });
  });
}

/**
 * How long a test waits, by default, for what should take a moment (a screen to show a line, an
 * answer to end): long enough for a machine busy with other work (a full run, builds beside it),
 * where a few seconds are not enough. A passing test never waits it out; a failing one says what
 * it waited for.
 */
export const WAIT_MS = 30_000;

/**
 * Wait until `check` is true (polling), or fail after `ms`. `what` names what was awaited; as a
 * function it is asked at the timeout, so a screen in the message is the screen at the end of the
 * wait, not the one at its start (which once made a finished answer look like a frozen screen).
 */
export async function waitFor(check: () => boolean, ms = WAIT_MS, what: string | (() => string) = 'condition'): Promise<void> {
  const start = Date.now();
  while (!check()) {
    if (Date.now() - start > ms) throw new Error(`timed out waiting for ${typeof what === 'function' ? what() : what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
