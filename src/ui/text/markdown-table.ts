import { splitRow } from '../../core/text/markdown/blocks.js';
import { type LinkTable, renderInline, styler } from './markdown-inline.js';
import { textWidth, wrapLine } from '../../core/text/width.js';

type Align = 'left' | 'center' | 'right';

/** Each column's alignment from the delimiter row: `:--` left, `:-:` centre, `--:` right, `---` left. */
function alignments(delimiter: string): Align[] {
  return splitRow(delimiter).map((c) => (c.endsWith(':') ? (c.startsWith(':') ? 'center' : 'right') : 'left'));
}

function pad(s: string, w: number, align: Align): string {
  const gap = Math.max(0, w - textWidth(s));
  if (align === 'right') return ' '.repeat(gap) + s;
  if (align === 'center') return ' '.repeat(Math.floor(gap / 2)) + s + ' '.repeat(gap - Math.floor(gap / 2));
  return s + ' '.repeat(gap);
}

/** A GFM table (header, delimiter row, body rows) as a grid, or one record per block when the grid is wider than `width`. */
export function renderTable(rows: string[], width: number, colour: boolean, links?: LinkTable): string[] {
  const st = styler(colour);
  const aligns = alignments(rows[1] ?? '');
  const cells = [rows[0]!, ...rows.slice(2)].map((r) => splitRow(r).map((c) => renderInline(c, colour, links)));
  const cols = Math.max(...cells.map((r) => r.length));
  const widths = Array.from({ length: cols }, (_, c) => Math.max(3, ...cells.map((r) => textWidth(r[c] ?? ''))));
  const total = widths.reduce((a, b) => a + b, 0) + 3 * cols + 1;
  if (total > width) {
    // Too wide for the terminal: one record per block instead of a grid.
    const head = cells[0] ?? [];
    const out: string[] = [];
    for (const row of cells.slice(1)) {
      row.forEach((cell, c) => out.push(...wrapLine(`${st('bold', (head[c] ?? '') + ':')} ${cell}`, width, '  ')));
      out.push('');
    }
    if (out[out.length - 1] === '') out.pop();
    return out;
  }
  const line = (l: string, m: string, r: string) => st('grey', l + widths.map((w) => '─'.repeat(w + 2)).join(m) + r);
  const out = [line('┌', '┬', '┐')];
  cells.forEach((row, ri) => {
    const bar = st('grey', '│');
    out.push(bar + widths.map((w, c) => ' ' + pad(ri === 0 ? st('bold', row[c] ?? '') : (row[c] ?? ''), w, aligns[c] ?? 'left') + ' ').join(bar) + bar);
    if (ri === 0) out.push(line('├', '┼', '┤'));
  });
  out.push(line('└', '┴', '┘'));
  return out;
}
