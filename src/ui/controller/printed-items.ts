import type { NewItem, StaticItem } from './screen-state.js';

let seq = 0;

/**
 * What the chat screen has printed above its live region, in order, each item with an id of its own
 * (Ink's <Static> prints each id once; nothing is ever reprinted). Items are appended in place, so
 * printing one costs the same however many came before (an endless answer prints tens of
 * thousands of paragraphs); `all` is a copy that does not change, made when asked after a change,
 * so a snapshot keeps what it saw.
 */
export class PrintedItems {
  private readonly list: StaticItem[] = [];
  private copy: readonly StaticItem[] | undefined = [];

  /** Everything printed so far, as a list that stays as it is. */
  get all(): readonly StaticItem[] {
    return (this.copy ??= this.list.slice());
  }

  /** How many items were printed. */
  get count(): number {
    return this.list.length;
  }

  /** The items printed after the first `n`. */
  since(n: number): StaticItem[] {
    return this.list.slice(n);
  }

  push(...items: NewItem[]): void {
    if (!items.length) return;
    for (const i of items) this.list.push({ ...i, id: `i${++seq}` } as StaticItem);
    this.copy = undefined;
  }

  /**
   * The header as things are now (thinking, role), for the transcript viewer. What the terminal
   * shows stays as it was printed: the header item has been printed already.
   */
  patchHeader(patch: { thinking?: boolean; role?: string }): void {
    const header = this.list[0];
    if (header?.kind !== 'header') return;
    this.list[0] = { ...header, ...patch };
    this.copy = undefined;
  }
}
