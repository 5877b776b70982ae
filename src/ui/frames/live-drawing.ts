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
  /** Ids of the items printed here that `forStatic` has not passed yet: <Static> must not print them. */
  private readonly printed = new Set<string>();
  /** What `forStatic` last gave, for the list it was given, and how much of that list it has looked at. */
  private given: readonly StaticItem[] | undefined;
  private forInk: readonly StaticItem[] = [];
  private seen = 0;

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

  /**
   * The items <Static> is to print: all but those printed here. The list only grows, so only its
   * new items are looked at (each once); a new list is made only when Ink has items to print.
   */
  forStatic(items: readonly StaticItem[]): readonly StaticItem[] {
    if (items === this.given) return this.forInk;
    this.given = items;
    const fresh: StaticItem[] = [];
    for (let i = this.seen; i < items.length; i++) if (!this.printed.delete(items[i]!.id)) fresh.push(items[i]!);
    this.seen = items.length;
    if (fresh.length) this.forInk = this.forInk.length ? [...this.forInk, ...fresh] : fresh;
    return this.forInk;
  }
}
