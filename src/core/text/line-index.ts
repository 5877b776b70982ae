/**
 * A text's line breaks, found once, and the line of any offset by a binary search over them:
 * finding lines by searching back and forth from every offset was quadratic on long texts with
 * many findings (privacy check's line numbers, the address detector's lines).
 */
export class LineIndex {
  private readonly breaks: number[] = [];

  constructor(readonly text: string) {
    for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) this.breaks.push(i);
  }

  /** How many line breaks come before `offset`: its line, counted from 0. */
  lineOf(offset: number): number {
    let lo = 0;
    let hi = this.breaks.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.breaks[mid]! < offset) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The [start, end) of the line holding `offset` (its break not included). */
  bounds(offset: number): [number, number] {
    const n = this.lineOf(offset);
    return [n > 0 ? this.breaks[n - 1]! + 1 : 0, n < this.breaks.length ? this.breaks[n]! : this.text.length];
  }

  /** 1-based line and column of `offset`. */
  lineCol(offset: number): { line: number; col: number } {
    const n = this.lineOf(offset);
    return { line: n + 1, col: offset - (n > 0 ? this.breaks[n - 1]! : -1) };
  }
}
