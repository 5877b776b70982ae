import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { BIN, cliEnv, type CliOptions } from './cli.js';

/**
 * Runs the built medchat while watching its memory: /proc/<pid>/status (VmRSS, and the kernel's
 * own peak VmHWM) is read every 50 ms. A run that passes `killAboveKb` or `timeoutMs` is killed
 * (so a leak cannot take the machine down) and says why.
 */
export interface WatchedRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** The first MB of stdout. */
  stdout: string;
  /** All of stdout's bytes, counted. */
  stdoutBytes: number;
  stderr: string;
  elapsedMs: number;
  /** Highest VmRSS sampled, and the last VmHWM read (kB). */
  peakRssKb: number;
  hwmKb: number;
  killed?: 'memory' | 'time';
}

export interface WatchOptions extends CliOptions {
  timeoutMs: number;
  killAboveKb?: number;
  /** Writes stdin itself (an endless pipe) instead of `stdin`; it must stop when the stream errors or closes. */
  feedStdin?: (stdin: NodeJS.WritableStream) => void;
  /** Sees every piece of stdout as it arrives (to check more of it than the first MB kept). */
  onStdout?: (chunk: Buffer) => void;
}

/** A process's resident memory now and its peak (VmHWM), in kB; undefined once it has gone. */
export function readStatus(pid: number): { rss: number; hwm: number } | undefined {
  try {
    const text = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)\\s+kB`, 'm').exec(text)?.[1] ?? 0);
    return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
  } catch {
    return undefined;
  }
}

export const canWatchMemory = fs.existsSync('/proc/self/status');

export function runWatched(args: string[], opts: WatchOptions): Promise<WatchedRun> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [BIN, ...args], { env: cliEnv(opts), stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    let outBytes = 0;
    const err: Buffer[] = [];
    let errBytes = 0;
    child.stdout.on('data', (c: Buffer) => {
      if (outBytes < 1 << 20) out.push(c);
      outBytes += c.length;
      opts.onStdout?.(c);
    });
    child.stderr.on('data', (c: Buffer) => {
      if (errBytes < 1 << 20) err.push(c);
      errBytes += c.length;
    });
    child.stdin.on('error', () => {}); // medchat may refuse stdin before reading it all
    if (opts.feedStdin) opts.feedStdin(child.stdin);
    else if (opts.stdin !== undefined) child.stdin.end(opts.stdin);
    else child.stdin.end();
    let peakRssKb = 0;
    let hwmKb = 0;
    let killed: WatchedRun['killed'];
    const sample = () => {
      const s = child.pid !== undefined ? readStatus(child.pid) : undefined;
      if (!s) return;
      peakRssKb = Math.max(peakRssKb, s.rss);
      hwmKb = Math.max(hwmKb, s.hwm);
      if (opts.killAboveKb !== undefined && s.rss > opts.killAboveKb && !killed) {
        killed = 'memory';
        child.kill('SIGKILL');
      }
    };
    const sampler = setInterval(sample, 50);
    const timer = setTimeout(() => {
      if (!killed) killed = 'time';
      child.kill('SIGKILL');
    }, opts.timeoutMs);
    opts.onSpawn?.(child);
    child.on('error', (e) => {
      clearInterval(sampler);
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code, signal) => {
      clearInterval(sampler);
      clearTimeout(timer);
      resolve({
        code,
        signal,
        stdout: Buffer.concat(out).toString('utf8'),
        stdoutBytes: outBytes,
        stderr: Buffer.concat(err).toString('utf8'),
        elapsedMs: Math.round(performance.now() - started),
        peakRssKb,
        hwmKb,
        killed,
      });
    });
  });
}

/** `123 MB` for messages. */
export const mb = (kb: number) => `${Math.round(kb / 1024)} MB`;
