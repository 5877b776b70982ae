import { sanitizeForTerminal } from '../text/sanitize.js';
import { formatSeconds } from '../text/format.js';
import type { TaskUpdate } from './task-poll.js';

/** How a status reads to a person. */
function statusLabel(status: string): string {
  switch (status) {
    case '':
      return 'waiting';
    case 'NOT_START':
      return 'not started';
    case 'SUBMITTED':
      return 'queued';
    case 'MODAL':
      return 'waiting for input';
    case 'IN_PROGRESS':
      return 'in progress';
    case 'SUCCESS':
      return 'done';
    case 'FAILURE':
      return 'failed';
    case 'CANCEL':
      return 'cancelled';
    default:
      return status.toLowerCase();
  }
}

/** `in progress 45%` — one line describing an update, for logs and the chat transcript. */
export function describeUpdate(u: Pick<TaskUpdate, 'record'>): string {
  const r = u.record;
  const pct = r.percent !== undefined ? ` ${r.percent}%` : r.progress ? ` ${r.progress}` : '';
  return sanitizeForTerminal(`${statusLabel(r.status)}${pct}`);
}

function progressBar(percent: number | undefined, width = 24): string {
  if (percent === undefined) return '░'.repeat(width);
  const full = Math.round((percent / 100) * width);
  return '█'.repeat(full) + '░'.repeat(width - full);
}

/**
 * Progress on stderr: a live bar redrawn in place on a terminal (status, percent, elapsed),
 * else one `medchat: task <id>: <status> <percent>` line per change.
 */
export class ProgressReporter {
  private last: TaskUpdate | undefined;
  private lastAt = 0;
  private timer: NodeJS.Timeout | undefined;
  private drawn = false;
  private readonly start = Date.now();

  constructor(
    private readonly stream: NodeJS.WriteStream,
    private readonly id: string,
    private readonly opts: { tty: boolean; colour: boolean },
  ) {
    if (opts.tty) {
      this.timer = setInterval(() => this.draw(), 1000);
      this.timer.unref();
      this.draw();
    }
  }

  update(u: TaskUpdate): void {
    this.last = u;
    this.lastAt = Date.now();
    if (this.opts.tty) this.draw();
    else if (u.changed) this.stream.write(`medchat: task ${sanitizeForTerminal(this.id)}: ${describeUpdate(u)}\n`);
  }

  /** A message line (a retry, a note); on a terminal the bar is redrawn under it. */
  note(text: string): void {
    this.clear();
    this.stream.write(`medchat: ${sanitizeForTerminal(text)}\n`);
    if (this.opts.tty) this.draw();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.clear();
  }

  private clear(): void {
    if (this.opts.tty && this.drawn) {
      this.stream.write('\r\x1b[2K');
      this.drawn = false;
    }
  }

  private draw(): void {
    const r = this.last?.record;
    const elapsed = this.last ? this.last.elapsedMs + (Date.now() - this.lastAt) : Date.now() - this.start;
    const label = r ? statusLabel(r.status) : 'submitted';
    const pct = r?.percent !== undefined ? `${String(r.percent).padStart(3)}%` : '   …';
    const bar = progressBar(r?.percent);
    const c = this.opts.colour;
    const coloured = c ? `\x1b[36m${bar}\x1b[39m` : bar;
    const dimmed = (s: string) => (c ? `\x1b[2m${s}\x1b[22m` : s);
    const cols = this.stream.columns || 80;
    const plain = `${label.padEnd(12)} ${bar} ${pct}  ${formatSeconds(elapsed / 1000)}  task ${this.id}`;
    const idPart = plain.length <= cols - 1 ? `  ${dimmed(`task ${sanitizeForTerminal(this.id)}`)}` : '';
    this.stream.write(`\r\x1b[2K${sanitizeForTerminal(label).padEnd(12)} ${coloured} ${pct}  ${formatSeconds(elapsed / 1000)}${idPart}`);
    this.drawn = true;
  }
}
