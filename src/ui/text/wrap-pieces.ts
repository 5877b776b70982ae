import { textWidth, wrapLine } from '../../core/text/width.js';

/**
 * `text` cut into rows of at most `width` cells only where `sep` stands between two of its pieces,
 * so a piece ("1 record/account number", "r redact") is never split across rows nor left alone
 * by a break inside it. With `keepSeparator` the separator's visible part ends the row it breaks
 * (`1 date,`); without it the break drops the separator (`… · r redact` / `e edit`).
 * Continuation rows start with `indent`. A piece wider than a row on its own is word-wrapped.
 */
export function wrapAtSeparators(text: string, sep: string, width: number, { indent = '', keepSeparator = false }: { indent?: string; keepSeparator?: boolean } = {}): string[] {
  const pieces = text.split(sep);
  const tail = keepSeparator ? sep.trimEnd() : '';
  const rows: string[] = [];
  let cur = pieces[0]!;
  for (let i = 1; i < pieces.length; i++) {
    const joined = cur + sep + pieces[i]!;
    const last = i === pieces.length - 1;
    if (textWidth(joined) + (last ? 0 : textWidth(tail)) <= width) cur = joined;
    else {
      rows.push(cur + tail);
      cur = indent + pieces[i]!;
    }
  }
  rows.push(cur);
  return rows.flatMap((r) => (textWidth(r) <= width ? [r] : wrapLine(r, width, indent)));
}
