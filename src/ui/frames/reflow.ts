/**
 * When the terminal gets narrower, most terminals re-wrap what they show: a line drawn 80 cells
 * wide takes two rows at 50 columns. Ink then erases its live region by counting the lines it
 * wrote, which no longer covers the rows they take, and the top of the old region stays on screen
 * (a stale block). These work out the rows the lines take after the narrowing instead.
 */
import { clusters, escapeRuns, textWidth } from '../../core/text/width.js';

/** Whether the terminal re-wraps lines already on screen when it narrows. xterm and the Linux console cut them instead. */
export function terminalReflows(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.TMUX) return true;
  return !(env.XTERM_VERSION || env.TERM === 'linux');
}

/** The rows `line` takes once the terminal is `columns` wide (1 without reflow). */
export function rowsAfterNarrowing(line: string, columns: number, reflows: boolean): number {
  return reflows ? Math.max(1, Math.ceil(textWidth(line) / Math.max(1, columns))) : 1;
}

/**
 * The bytes that erase `lines` (what the terminal showed from the start of the first of them, one
 * row each when drawn) now that it is `columns` wide, leaving the cursor at the start of where the
 * first one began: up over every row they take now, then erase to the end of the screen. The
 * cursor is at `cursor` (row: an index into `lines`; col undefined: just after the line's end),
 * by default at the start of the last line.
 */
export function eraseNarrowed(
  lines: readonly string[],
  columns: number,
  reflows: boolean,
  cursor: { row: number; col: number | undefined } = { row: lines.length - 1, col: 0 },
): string {
  let up = 0;
  for (let i = 0; i < cursor.row && i < lines.length; i++) up += rowsAfterNarrowing(lines[i]!, columns, reflows);
  if (reflows && cursor.row < lines.length) {
    const col = cursor.col ?? textWidth(lines[cursor.row]!);
    up += Math.min(Math.floor(col / Math.max(1, columns)), rowsAfterNarrowing(lines[cursor.row]!, columns, reflows) - 1);
  }
  return `${up > 0 ? (up === 1 ? '\x1b[A' : `\x1b[${up}A`) : ''}\r\x1b[J`;
}


/**
 * `line` cut to `columns` cells, its escape codes all kept (a style opened is still closed). For
 * the moment after a narrowing when Ink still lays out at the old width: a line wider than the
 * terminal would wrap onto rows nobody counts.
 */
export function clipLine(line: string, columns: number): string {
  if (textWidth(line) <= columns) return line;
  let out = '';
  let used = 0;
  let full = false;
  for (const run of escapeRuns(line)) {
    if (run.escape) out += run.text;
    else if (!full) {
      for (const c of clusters(run.text)) {
        const w = textWidth(c);
        if (used + w > columns) {
          full = true;
          break;
        }
        out += c;
        used += w;
      }
    }
  }
  return out;
}

/**
 * Marks a row of the frame writer's picture of the screen that continues the row above it by the terminal's own
 * wrap (a line wider than the window, such as a long address): written right after that row, never on its own.
 */
export const SOFT_WRAPPED = '\u0000';

/**
 * The rows `line` takes on a terminal `columns` wide when it is written in one piece: itself when it fits, else the
 * pieces the terminal's own wrapping makes (a glyph that does not fit in what is left of a row starts the next),
 * each after the first marked SOFT_WRAPPED. Escape codes stay in the piece where they are.
 */
export function wrappedRows(line: string, columns: number): string[] {
  if (textWidth(line) <= columns) return [line];
  const rows: string[] = [];
  let cur = '';
  let used = 0;
  for (const run of escapeRuns(line)) {
    if (run.escape) {
      cur += run.text;
      continue;
    }
    for (const c of clusters(run.text)) {
      const w = textWidth(c);
      if (used + w > columns && used > 0) {
        rows.push(cur);
        cur = SOFT_WRAPPED;
        used = 0;
      }
      cur += c;
      used += w;
    }
  }
  rows.push(cur);
  return rows;
}
