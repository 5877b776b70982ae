// What the benchmarks share: CPU from /proc, the answer streamed "at chat speed", medians, and
// the environment medchat (or the SDK floor) runs in against the service double. Linux only.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** Clock ticks per second in /proc/<pid>/stat. */
const TICKS = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

/** utime + stime of the whole process (every thread), in clock ticks. */
export function cpuTicks(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

/** % of one core: `ticks` of CPU over `ms` of wall time. */
export const cpuPercent = (ticks: number, ms: number): number => (ticks / TICKS / (ms / 1000)) * 100;

export const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** A 500-token answer in ~4-character tokens, a blank line every 40: paced at 20 ms, 50 tok/s for 10 s. */
export function chatSpeedAnswer(): string[] {
  const words = 'The usual adult dose is one gram every four to six hours, at most four grams a day. '.split(/(?<= )/);
  const tokens: string[] = [];
  for (let i = 0; tokens.length < 500; i++) {
    tokens.push(words[i % words.length]!);
    if (i % 40 === 39) tokens.push('\n\n');
  }
  return tokens;
}

/** A clean environment for medchat or the SDK floor: its own home, config and data, the double's address. */
export function benchEnv(home: string, baseUrl: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: home,
    MEDCHAT_CONFIG_DIR: path.join(home, 'config'),
    MEDCHAT_DATA_DIR: path.join(home, 'data'),
    MEDCHAT_BASE_URL: baseUrl,
    MEDCHAT_API_KEY: 'sk-bench-0000',
    ...extra,
  };
}

const watched = new WeakSet<object>();
const ended = new WeakSet<object>();
/**
 * The double has sent the whole answer: its response finished, or the connection closed (medchat closes it itself
 * once `[DONE]` has arrived, which can be before the double's last write is flushed, so 'finish' never fires).
 */
export function streamEnded(req: { finished: boolean; closed: Promise<void> }): boolean {
  if (!watched.has(req)) {
    watched.add(req);
    void req.closed.then(() => ended.add(req));
  }
  return req.finished || ended.has(req);
}
