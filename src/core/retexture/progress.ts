import { sanitizeForTerminal } from '../text/sanitize.js';
import { formatSeconds } from '../text/format.js';
import { padToCells } from '../text/width.js';
import type { TaskUpdate } from './task-poll.js';
import { retextureText } from '../i18n/messages/retexture.js';

/** How a status reads to a person. */
function statusLabel(status: string): string {
  switch (status) {
    case '':
      return retextureText.statusWaiting;
    case 'NOT_START':
      return retextureText.statusNotStarted;
    case 'SUBMITTED':
      return retextureText.statusQueued;
    case 'MODAL':
      return retextureText.statusModal;
    case 'IN_PROGRESS':
      return retextureText.statusInProgress;
    case 'SUCCESS':
      return retextureText.statusDone;
    case 'FAILURE':
      return retextureText.statusFailed;
    case 'CANCEL':
      return retextureText.statusCancelled;
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
    else if (u.changed) this.stream.write(`${retextureText.progressLine(sanitizeForTerminal(this.id), describeUpdate(u))}\n`);
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
    const label = r ? statusLabel(r.status) : retextureText.statusSubmitted;
    const pct = r?.percent !== undefined ? `${String(r.percent).padStart(3)}%` : '   …';
    const bar = progressBar(r?.percent);
    const c = this.opts.colour;
    const coloured = c ? `\x1b[36m${bar}\x1b[39m` : bar;
    const dimmed = (s: string) => (c ? `\x1b[2m${s}\x1b[22m` : s);
    const cols = this.stream.columns || 80;
    const plain = `${padLabel(label)} ${bar} ${pct}  ${formatSeconds(elapsed / 1000)}  ${retextureText.task(this.id)}`;
    const idPart = plain.length <= cols - 1 ? `  ${dimmed(retextureText.task(sanitizeForTerminal(this.id)))}` : '';
    this.stream.write(`\r\x1b[2K${padLabel(sanitizeForTerminal(label))} ${coloured} ${pct}  ${formatSeconds(elapsed / 1000)}${idPart}`);
    this.drawn = true;
  }
}

/** A status label padded to 12 terminal cells (a Chinese character takes two). */
const padLabel = (label: string): string => padToCells(label, 12);
