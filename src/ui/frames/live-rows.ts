import chalk from 'chalk';
import type { LiveTurn } from '../controller/chat-controller.js';
import type { LiveRowsSource } from './frame-writer.js';
import { answerRows, thinkingRows, WrappedText } from '../text/live-rows.js';

/**
 * The streaming turn's changing rows, for the frame writer to draw in place of a marker line
 * (see LiveRowsSource): the answer's unfinished paragraphs, or the dim thinking preview. The
 * components render the same rows through the same functions when there is no frame writer
 * (tests, MEDCHAT_PLAIN_FRAMES=1), so both ways look alike.
 */
export class LiveRows implements LiveRowsSource {
  /**
   * A random tag between blank braille cells: no text from the service is ever this line, and
   * Ink measures it without Unicode segmentation (see the string-width patch in build/text-patches.mjs).
   */
  readonly marker = `\u2800${Math.random().toString(36).slice(2, 8)}\u2800`;
  /** Set by the view on each render: the width and the most rows the answer may take. */
  width = 80;
  maxRows = 10;
  private readonly answer = new WrappedText(false);
  private readonly thinking = new WrappedText(true);

  /** `columns`: the terminal's width now (narrower than `width` for a moment after a resize). */
  constructor(
    private readonly live: () => Readonly<LiveTurn> | undefined,
    private readonly columns: () => number,
  ) {}

  rows(): string[] {
    const live = this.live();
    const width = Math.min(this.width, this.columns());
    // Keyed: the text only grew while the turn (and the tail's start) stays, so it need not be compared.
    if (live?.phase === 'answer') return answerRows(live.answerTail, width, this.maxRows, this.answer, `${live.turnId}/${live.answerCuts}`);
    if (live?.phase === 'reasoning') return thinkingRows(live.reasoning, width, this.thinking, live.turnId).map((r) => chalk.dim(`  ${r}`));
    return [];
  }
}
