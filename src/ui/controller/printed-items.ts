import type { NewItem, StaticItem } from './screen-state.js';

let seq = 0;

/**
 * What the chat screen has printed above its live region, in order, each item with an id of its own
 * (Ink's <Static> prints each id once; nothing is ever reprinted). The list is replaced on every
 * change, never changed in place, so a snapshot keeps what it saw.
 */
export class PrintedItems {
  private list: StaticItem[] = [];

  get all(): StaticItem[] {
    return this.list;
  }

  push(...items: NewItem[]): void {
    this.list = [...this.list, ...items.map((i) => ({ ...i, id: `i${++seq}` }) as StaticItem)];
  }

  /**
   * The header as things are now (thinking, role), for the transcript viewer. What the terminal
   * shows stays as it was printed: the header item has been printed already.
   */
  patchHeader(patch: { thinking?: boolean; role?: string }): void {
    const header = this.list[0];
    if (header?.kind === 'header') this.list = [{ ...header, ...patch }, ...this.list.slice(1)];
  }
}
