/**
 * Ctrl+O: the whole conversation, every answer's reasoning written out, in a full-screen pager on
 * the terminal's alternate screen. Leaving it (q, Esc) brings the chat screen back exactly as it
 * was: the alternate screen is the terminal's own, so nothing on the main screen or in its
 * scrollback is touched. While it is open, what the chat screen draws is held (see HeldOutput)
 * and drawn when it closes; an answer streaming meanwhile goes on, and shows here as it grows.
 *
 * This is the thin part: the paging is pager.ts, the lines printed-lines.ts (the items, as the
 * screen prints them) and transcript-text.ts (the turn still streaming). It draws with a
 * few escape codes rather than Ink, which cannot draw two screens at once.
 */
import chalk from 'chalk';
import type { ChatController } from '../controller/chat-controller.js';
import { highlight, openPager, pagerKey, statusLine, syncPager, visibleLines, type PagerState } from './pager.js';
import type { Key } from '../text/keys.js';
import { pinClusters } from '../../core/text/width.js';
import { VIEWER, itemLines } from '../text/printed-lines.js';
import { liveLines } from './transcript-text.js';
import { uiScreenText } from '../../core/i18n/messages/ui-screen.js';

export type TranscriptSource = Pick<ChatController, 'snapshot' | 'subscribe' | 'liveTurn'>;

interface ViewerTerminal {
  /** Straight to the terminal (not held). */
  write(data: string): void;
  columns(): number;
  rows(): number;
  /** Calls `fn` when the terminal is resized; returns the unsubscribe. */
  onResize(fn: () => void): () => void;
}

interface ViewerHooks {
  /** Before the viewer takes the screen: hold the chat screen's output. */
  enter(): void;
  /** After it has given the screen back: write what was held. */
  leave(): void;
}

const ALT_SCREEN_ON = '\x1b[?1049h';
const ALT_SCREEN_OFF = '\x1b[?1049l';
/** How often the lines are laid out again while the conversation changes under the viewer. */
const UPDATE_MS = 250;

export class TranscriptViewer {
  private state: PagerState | undefined;
  private lines: string[] = [];
  private readonly cache = new Map<string, string[]>();
  private cacheWidth = 0;
  private cleanup: Array<() => void> = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly source: TranscriptSource,
    private readonly term: ViewerTerminal,
    private readonly hooks: ViewerHooks,
  ) {}

  get isOpen(): boolean {
    return this.state !== undefined;
  }

  open(): void {
    if (this.state) return;
    this.hooks.enter();
    this.term.write(ALT_SCREEN_ON);
    this.lines = this.build();
    this.state = openPager(this.height(), this.lines.length, this.startLine());
    this.cleanup = [
      this.source.subscribe(() => this.schedule()),
      this.term.onResize(() => {
        this.lines = this.build();
        this.update();
      }),
    ];
    this.draw();
  }

  close(): void {
    if (!this.state) return;
    this.state = undefined;
    for (const off of this.cleanup) off();
    this.cleanup = [];
    clearTimeout(this.timer);
    this.timer = undefined;
    this.cache.clear();
    this.lines = [];
    this.term.write(ALT_SCREEN_OFF);
    this.hooks.leave();
  }

  /** A key, while open: true when the viewer took it (every key, while it is open). */
  handleKey(key: Key): boolean {
    if (!this.state) return false;
    const r = pagerKey(this.state, key, this.lines);
    if (r.close) {
      this.close();
      return true;
    }
    this.state = r.state;
    this.draw();
    return true;
  }

  private height(): number {
    return Math.max(1, this.term.rows() - 1);
  }

  private width(): number {
    return Math.max(20, this.term.columns());
  }

  /** Where the viewer opens: at the last reasoning (what Ctrl+O is most often for), else at the end. */
  private startLine(): number | undefined {
    if (this.source.liveTurn()?.phase === 'reasoning') return undefined;
    const i = this.lines.findLastIndex((l) => l.includes(`▾ ${uiScreenText.thoughtFor}`));
    return i >= 0 ? i : undefined;
  }

  private build(): string[] {
    const width = this.width();
    if (width !== this.cacheWidth) {
      this.cache.clear();
      this.cacheWidth = width;
    }
    const out: string[] = [];
    for (const item of this.source.snapshot().items) {
      let lines = this.cache.get(item.id);
      if (!lines) {
        lines = itemLines(item, width, VIEWER);
        this.cache.set(item.id, lines);
      }
      out.push(...lines);
    }
    const live = this.source.liveTurn();
    if (live) out.push(...liveLines(live, width));
    return out;
  }

  private schedule(): void {
    if (this.timer || !this.state) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (!this.state) return;
      this.lines = this.build();
      this.update();
    }, UPDATE_MS);
  }

  private update(): void {
    if (!this.state) return;
    this.state = syncPager(this.state, this.lines.length, this.height());
    this.draw();
  }

  private draw(): void {
    const s = this.state;
    if (!s) return;
    const colour = chalk.level > 0;
    const shown = visibleLines(s, this.lines);
    let out = '\x1b[?2026h';
    for (let row = 0; row < s.height; row++) {
      const line = shown[row];
      out += `\x1b[${row + 1};1H\x1b[2K${line === undefined ? (colour ? chalk.dim('~') : '~') : highlight(line, s.query, colour)}`;
    }
    const status = statusLine(s, this.lines.length, this.width() - 1);
    out += `\x1b[${s.height + 1};1H\x1b[2K${colour && s.typing === undefined ? chalk.inverse(status) : status}\x1b[?2026l`;
    // Each row is placed absolutely; within it, a glyph terminals draw in different widths is pinned to its cells.
    this.term.write(pinClusters(out));
  }
}
