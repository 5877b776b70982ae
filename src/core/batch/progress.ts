import { dim } from '../io/terminal.js';
import { formatDuration, formatTokens } from '../text/format.js';
import type { BatchStats } from './scheduler.js';
import { batchText } from '../i18n/messages/batch.js';

/**
 * Progress of a batch on stderr. On a terminal: one line, redrawn at most every REDRAW_MS, with a
 * bar, done/total, failures, rate, ETA, tokens in and out, and the concurrency when the service
 * made it lower. Elsewhere (a log file, CI): one line each time another 10% is done.
 */
export interface ProgressView {
  stats: BatchStats;
  inFlight: number;
  limit: number;
  max: number;
}

const REDRAW_MS = 100;
const BAR = 20;

export class BatchProgress {
  private readonly started: number;
  private lastTenth = 0;
  private drawn = false;
  private timer: NodeJS.Timeout | undefined;
  private view: ProgressView | undefined;
  private status = '';

  constructor(
    private readonly stream: NodeJS.WriteStream,
    private readonly total: number,
    private readonly opts: { tty: boolean; colour: boolean; now?: () => number },
  ) {
    this.started = this.now();
  }

  private now(): number {
    return (this.opts.now ?? Date.now)();
  }

  get elapsedMs(): number {
    return this.now() - this.started;
  }

  /** New numbers to show. */
  update(view: ProgressView): void {
    this.view = view;
    if (!this.total) return;
    if (this.opts.tty) {
      this.timer ??= setTimeout(() => {
        this.timer = undefined;
        this.draw();
      }, this.drawn ? REDRAW_MS : 0);
      return;
    }
    const done = view.stats.answered + view.stats.failed;
    const tenth = Math.floor((done / this.total) * 10);
    if (tenth > this.lastTenth) {
      this.lastTenth = tenth;
      this.write(`${batchText.progressLine(tenth * 10, this.figures(view))}\n`);
    }
  }

  /** A line of its own (a throttle, stopping): above the bar on a terminal. */
  note(text: string): void {
    this.clear();
    this.write(`${text}\n`);
    if (this.opts.tty && this.view) this.draw();
  }

  /** Shown after the figures on the bar line (e.g. "stopping…"); not printed elsewhere. */
  setStatus(text: string): void {
    this.status = text;
    if (this.opts.tty && this.view) this.draw();
  }

  /** Remove the bar (before the summary). */
  end(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.clear();
  }

  private draw(): void {
    const v = this.view;
    if (!v || !this.total) return;
    const done = v.stats.answered + v.stats.failed;
    const filled = Math.min(BAR, Math.floor((done / this.total) * BAR));
    const bar = `[${'#'.repeat(filled)}${'.'.repeat(BAR - filled)}]`;
    let line = `${bar} ${this.figures(v)}${v.limit < v.max ? ` · j ${v.limit}/${v.max}` : ''}${this.status ? ` · ${this.status}` : ''}`;
    const width = (this.stream.columns || 80) - 1;
    if (line.length > width) line = line.slice(0, Math.max(0, width - 1)) + '…';
    this.write(`\r\x1b[K${dim(line, this.opts.colour)}`);
    this.drawn = true;
  }

  private clear(): void {
    if (this.opts.tty && this.drawn) this.write('\r\x1b[K');
    this.drawn = false;
  }

  private figures(v: ProgressView): string {
    const done = v.stats.answered + v.stats.failed;
    const seconds = this.elapsedMs / 1000;
    const rate = seconds > 0 ? done / seconds : 0;
    const eta = rate > 0 ? formatDuration(((this.total - done) / rate) * 1000) : '?';
    return [
      `${done}/${this.total}`,
      batchText.failed(v.stats.failed),
      `${rate.toFixed(rate < 10 ? 1 : 0)}/s`,
      batchText.eta(eta),
      batchText.tokens(formatTokens(v.stats.promptTokens), formatTokens(v.stats.completionTokens)),
    ].join(' · ');
  }

  private write(text: string): void {
    try {
      this.stream.write(text);
    } catch {
      // stderr gone: progress is not worth stopping for
    }
  }
}
