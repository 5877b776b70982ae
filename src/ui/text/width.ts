import stringWidth from 'string-width';

/**
 * Terminal cell widths: the one measure of text for the whole chat screen (the frame writer's
 * diff, wrapping, Markdown tables, the live rows, the input box). A grapheme cluster is one
 * glyph, as terminals draw it: a family ZWJ sequence, `✅`, `⚠️` (VS16) and a flag are 2 cells,
 * CJK 2, combining marks (Thai, Devanagari) none. The width of text that is not printable ASCII
 * is string-width's (8.3.0, pinned), which is also what Ink lays its boxes out with: a line we
 * measure as fitting, Ink measures as fitting too, and never wraps again. Where terminals disagree
 * among themselves (Devanagari vowel signs that take a cell, and conjuncts: tmux 3.3a sums code
 * points, xterm.js's grapheme mode takes a cluster's first character) this follows string-width.
 */
const ANSI = /\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)/g;

export const stripAnsi = (s: string): string => s.replace(ANSI, '');

/** Printable ASCII only: one cell a character, one character a cluster. */
const PLAIN = /^[\x20-\x7e]*$/;

/** Cells `s` takes on a terminal (colour codes and OSC sequences take none). */
export function textWidth(s: string): number {
  return PLAIN.test(s) ? s.length : stringWidth(s);
}

let segmenter: Intl.Segmenter | undefined;
const segment = (s: string) => (segmenter ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' })).segment(s);

/** The grapheme clusters of `s` (text without escape codes), in order. */
export function clusters(s: string): string[] {
  if (PLAIN.test(s)) return s.split('');
  return Array.from(segment(s), (x) => x.segment);
}

/** A code unit below this never extends the cluster before it (combining marks start at U+0300). */
const NEVER_EXTENDS = 0x300;

/** The index where the cluster that starts at (or contains) `pos` ends. */
export function clusterEnd(text: string, pos: number): number {
  if (pos >= text.length) return text.length;
  const here = text.charCodeAt(pos);
  const next = pos + 1 < text.length ? text.charCodeAt(pos + 1) : 0;
  if (here < NEVER_EXTENDS && here !== 0x0d && next < NEVER_EXTENDS) return pos + 1;
  const s = segment(text).containing(pos)!;
  return s.index + s.segment.length;
}

/** The index where the cluster that ends at `pos` (the one holding `pos - 1`) starts. */
export function clusterStart(text: string, pos: number): number {
  if (pos <= 0) return 0;
  const before = text.charCodeAt(pos - 1);
  // Below U+0300 only a line feed after a carriage return joins the character before it.
  if (before < NEVER_EXTENDS && !(before === 0x0a && text.charCodeAt(pos - 2) === 0x0d)) return pos - 1;
  return segment(text).containing(pos - 1)!.index;
}

/** The index in `line` (no escape codes) of the first cluster at or after `cells` cells from its start. */
export function indexAtWidth(line: string, cells: number): number {
  if (PLAIN.test(line)) return Math.min(cells, line.length);
  let w = 0;
  let i = 0;
  for (const c of clusters(line)) {
    if (w >= cells) break;
    w += textWidth(c);
    i += c.length;
  }
  return i;
}

/** How many terminal rows `text` takes at `columns` (each line wraps on its own). */
export function rowsFor(text: string, columns: number): number {
  if (!text) return 0;
  let rows = 0;
  for (const line of text.split('\n')) rows += Math.max(1, Math.ceil(textWidth(line) / Math.max(1, columns)));
  return rows;
}

/** Tokens of a line: SGR colour codes, OSC sequences (links), other escapes, spaces, words. */
const TOKENS = /\x1b\[[0-9;]*m|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\s+|[^\s\x1b]+|\x1b/g;
const OSC8 = /^\x1b\]8;[^;]*;([^\x07\x1b]*)/;
const OSC8_CLOSE = '\x1b]8;;\x1b\\';

/**
 * Word-wrap one line that may hold SGR colour codes (and OSC 8 links), to `width` cells. `indent`
 * is put in front of continuation lines (hanging indent for list items and quotes); no
 * continuation line starts with a space. Words longer than the width are cut between grapheme
 * clusters. Colours and a link open at a break are closed there and opened again after the indent.
 */
export function wrapLine(line: string, width: number, indent = ''): string[] {
  width = Math.max(4, width);
  if (textWidth(line) <= width) return [line];
  const out: string[] = [];
  const indentW = textWidth(indent);
  const tokens = line.match(TOKENS) ?? [];
  let cur = '';
  let curW = 0;
  let active = ''; // SGR codes in effect, to carry over a break
  let link = ''; // the OSC 8 link open, to carry over a break
  const push = () => {
    out.push(cur.replace(/\s+$/, '') + (link ? OSC8_CLOSE : '') + (active ? '\x1b[0m' : ''));
    cur = indent + active + link;
    curW = indentW;
  };
  for (const tok of tokens) {
    if (tok.startsWith('\x1b')) {
      cur += tok;
      if (tok.startsWith('\x1b[')) active = tok === '\x1b[0m' || tok === '\x1b[m' ? '' : active + tok;
      else {
        const osc = OSC8.exec(tok);
        if (osc) link = osc[1] ? tok : '';
      }
      continue;
    }
    const w = textWidth(tok);
    if (/^\s+$/.test(tok)) {
      if (curW + w > width) push();
      else if (curW > indentW || out.length === 0) {
        cur += tok;
        curW += w;
      }
      continue;
    }
    if (curW + w > width && curW > indentW) push();
    if (w > width - indentW) {
      for (const c of clusters(tok)) {
        const cw = textWidth(c);
        if (curW + cw > width && curW > indentW) push();
        cur += c;
        curW += cw;
      }
      continue;
    }
    cur += tok;
    curW += w;
  }
  if (stripAnsi(cur).trim() || out.length === 0) out.push(cur.replace(/\s+$/, ''));
  return out;
}

/** Each line of `text` wrapped to `width` cells (continuation lines after `indent`), joined again. */
export function wrapText(text: string, width: number, indent = ''): string {
  return text
    .split('\n')
    .map((l) => wrapLine(l, width, indent).join('\n'))
    .join('\n');
}
