import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BIN, cliEnv, type CliOptions, type CliResult } from './cli.js';

/**
 * Run the built binary like `runCli`, and also measure what a user would notice under hostile
 * conditions: how long it took, and its peak memory (VmHWM from /proc/<pid>/status, sampled
 * while it runs, and read by the child itself at exit through report-peak-rss.cjs).
 */
export interface WatchedResult extends CliResult {
  elapsedMs: number;
  /** Peak resident memory in MB (0 where /proc is not available). */
  peakRssMb: number;
}

export interface WatchedOptions extends CliOptions {
  /** An open file descriptor for stdin (e.g. of /dev/zero), instead of a pipe. */
  stdinFd?: number;
}

const PRELOAD = path.join(path.dirname(fileURLToPath(import.meta.url)), 'report-peak-rss.cjs');

function readHwmMb(pid: number): number | undefined {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = /VmHWM:\s+(\d+) kB/.exec(status)?.[1];
    return kb ? Number(kb) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

export function runWatched(args: string[], opts: WatchedOptions = {}): Promise<WatchedResult> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const peakFile = path.join(os.tmpdir(), `medchat-peak-${process.pid}-${randomBytes(4).toString('hex')}`);
    const child: ChildProcess = spawn(process.execPath, ['--require', PRELOAD, BIN, ...args], {
      env: { ...cliEnv(opts), MEDCHAT_TEST_PEAK_FILE: peakFile },
      stdio: [opts.stdinFd ?? 'pipe', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout!.on('data', (c: Buffer) => out.push(c));
    child.stderr!.on('data', (c: Buffer) => err.push(c));
    if (child.stdin) {
      child.stdin.on('error', () => {});
      if (opts.stdin !== undefined) child.stdin.end(opts.stdin);
      else child.stdin.end();
    }
    let peak = 0;
    const sample = () => {
      const mb = child.pid ? readHwmMb(child.pid) : undefined;
      if (mb !== undefined) peak = Math.max(peak, mb);
    };
    const sampler = setInterval(sample, 25);
    const limit = opts.timeoutMs ?? 20000;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      clearInterval(sampler);
      reject(new Error(`medchat ${args.join(' ')} did not finish within ${limit} ms\nstderr: ${Buffer.concat(err)}`));
    }, limit);
    opts.onSpawn?.(child);
    child.on('error', reject);
    child.on('exit', sample);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      clearInterval(sampler);
      try {
        peak = Math.max(peak, Number(fs.readFileSync(peakFile, 'utf8')) / 1024);
        fs.rmSync(peakFile, { force: true });
      } catch {
        /* killed by a signal, or no /proc: the sampled figure stands */
      }
      const stdoutBytes = Buffer.concat(out);
      resolve({
        code,
        signal,
        stdout: stdoutBytes.toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
        stdoutBytes,
        elapsedMs: Date.now() - started,
        peakRssMb: Math.round(peak),
      });
    });
  });
}

/** The promise every failure keeps: exactly one `medchat:` line on stderr (after any progress lines), no stack trace. */
export function errorLine(r: CliResult): string {
  const lines = r.stderr.split('\n').filter(Boolean);
  for (const line of lines) {
    if (!line.startsWith('medchat: ')) throw new Error(`a stderr line is not a medchat: line: ${JSON.stringify(line)}\n${r.stderr}`);
  }
  if (/\n\s+at /.test(r.stderr)) throw new Error(`a stack trace on stderr:\n${r.stderr}`);
  return lines.at(-1) ?? '';
}
