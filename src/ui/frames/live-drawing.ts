import type { ChatController, StaticItem } from '../controller/chat-controller.js';
import type { Caret, FrameWriter } from './frame-writer.js';
import { LiveRows } from './live-rows.js';
import { SCREEN, itemLines } from '../text/printed-lines.js';

/**
 * While an answer streams, most frames change nothing but its text, and now and then a finished
 * paragraph is printed above. Both are drawn here, through the frame writer, without React or
 * Ink: `repaint` redraws the streaming rows, `print` prints finished paragraphs in the lines the
 * transcript's <Static> would print for them (printed-lines.ts). Everything else (and any time the writer cannot) goes through Ink.
 */
export class LiveDrawing {
  readonly rows: LiveRows;
  /** Ids of the items printed here: <Static> must not print them again. */
  private readonly printed = new Set<string>();

  constructor(
    controller: ChatController,
    private readonly writer: FrameWriter,
    private readonly columns: () => number,
  ) {
    this.rows = new LiveRows(() => controller.liveTurn(), columns);
    writer.setLiveRows(this.rows);
  }

  repaint = (): void => this.writer.repaint();

  /** Rest the terminal's cursor on the input's caret (undefined: hidden); see FrameWriter.setCaret. */
  setCaret = (caret: Caret | undefined): void => this.writer.setCaret(caret);

  /** Print finished answer paragraphs now; false (nothing printed) when Ink has to. */
  print(items: readonly StaticItem[]): boolean {
    if (!items.every((i) => i.kind === 'answer')) return false;
    const width = Math.min(this.rows.width, this.columns());
    const lines = items.flatMap((i) => itemLines(i, width, SCREEN));
    if (!this.writer.print(lines)) return false;
    for (const i of items) this.printed.add(i.id);
    return true;
  }

  /** The items <Static> is to print: all but those printed here. */
  forStatic(items: readonly StaticItem[]): readonly StaticItem[] {
    return this.printed.size ? items.filter((i) => !this.printed.has(i.id)) : items;
  }
}
