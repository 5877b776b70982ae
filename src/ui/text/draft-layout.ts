/**
 * The input box's draft as rows on screen: each line cut into rows of at most `width` cells (by
 * grapheme, so a wide character or an emoji is never split), a window of `maxRows` rows that
 * keeps the cursor in view, and where in it the cursor is (row, and column in cells). The box
 * draws these rows as they are, so the terminal's cursor can be put exactly on the caret.
 */
import { clusters, textWidth } from '../../core/text/width.js';

interface DraftRow {
  text: string;
  /** The first row of the draft's first line (it gets the prompt mark). */
  first: boolean;
}

interface DraftLayout {
  rows: DraftRow[];
  /** Rows of the draft hidden above the window. */
  above: number;
  /** The cursor: a row of `rows`, and a column in cells from the row's start. */
  caretRow: number;
  caretCol: number;
  /** The cursor as an index into its row's text, and the text under it ('' at the end of a row). */
  caretIndex: number;
  atCaret: string;
}

export function layoutDraft(text: string, cursor: number, width: number, maxRows: number): DraftLayout {
  width = Math.max(1, width);
  const all: Array<{ text: string; start: number; end: number; first: boolean }> = [];
  let caretRow = 0;
  let caretCol = 0;
  let atCaret = '';
  let offset = 0;
  text.split('\n').forEach((line, lineNo) => {
    let row = '';
    let rowW = 0;
    let rowStart = offset;
    const rowsBefore = all.length;
    const flush = (end: number) => {
      all.push({ text: row, start: rowStart, end, first: lineNo === 0 && all.length === rowsBefore });
      row = '';
      rowW = 0;
      rowStart = end;
    };
    let at = offset;
    for (const segment of clusters(line)) {
      const w = textWidth(segment);
      if (rowW + w > width && row !== '') flush(at);
      if (at === cursor) {
        caretRow = all.length;
        caretCol = rowW;
        atCaret = segment;
      } else if (at < cursor && cursor < at + segment.length) {
        caretRow = all.length; // inside a cluster (should not happen): on it
        caretCol = rowW;
        atCaret = segment;
      }
      row += segment;
      rowW += w;
      at += segment.length;
    }
    if (cursor === at) {
      // At the end of the line: after its last cell, or at the start of a new row when it is full.
      if (rowW >= width) flush(at);
      caretRow = all.length;
      caretCol = rowW;
      atCaret = '';
    }
    flush(at);
    offset = at + 1;
  });
  const first = Math.max(0, Math.min(caretRow - maxRows + 1, all.length - maxRows));
  const row = all[caretRow]!;
  return {
    caretIndex: Math.min(row.text.length, Math.max(0, cursor - row.start)),
    rows: all.slice(first, first + maxRows).map(({ text: t, first: f }) => ({ text: t, first: f })),
    above: first,
    caretRow: caretRow - first,
    caretCol,
    atCaret,
  };
}
