/**
 * Terminal cell widths: the one measure of text for the whole chat screen (the frame writer's
 * diff, wrapping, Markdown tables, the live rows, the input box, and Ink's own layout: the build
 * makes Ink's string-width this `textWidth`, see build/build.mjs). CJK is 2 cells, combining marks
 * (Thai, Latin accents) none, a flag 2: every terminal agrees on those.
 *
 * Some clusters are drawn differently from terminal to terminal (measured with a cursor-position
 * query): `⚠️` and `❤️` (VS16) take 1 cell in xterm, urxvt, GNU screen, tmux and VTE
 * and 2 in newer terminals; `👍🏽` 4 in those five, 2 in newer ones; `👩🏽‍🔬` 4 in tmux and 6 in the
 * others; Devanagari `स्ते` 2 where string-width says 1. Terminals either count a cluster as one
 * glyph (string-width's answer) or sum its code points' widths (wcwidth, as xterm, urxvt and
 * screen do). Such a cluster is *disputed*, and medchat reserves the larger of the two: a row
 * medchat lays out as fitting then fits in every one of them and is never wrapped by the
 * terminal itself. When it is written, `pinClusters` makes the terminal draw it into exactly
 * those cells (blanked first) and puts the cursor after them, so a terminal that draws it
 * narrower shows a blank cell and never shifts or overwrites the text after it.
 */
import stringWidth from 'string-width';

const ANSI = /\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)/g;

export const stripAnsi = (s: string): string => s.replace(ANSI, '');

/** Printable ASCII only: one cell a character, one character a cluster. */
const PLAIN = /^[\x20-\x7e]*$/;
/**
 * What can make a cluster disputed: a mark (VS16 and the keycap are marks too), a joiner or a
 * skin tone. Text without any of these is measured by string-width alone.
 */
const MAY_DISPUTE = /[\p{M}\u200D\u{1F3FB}-\u{1F3FF}]/u;

/** Cells `s` takes on a terminal (colour codes and OSC sequences take none). */
export function textWidth(s: string): number {
  if (PLAIN.test(s)) return s.length;
  if (!MAY_DISPUTE.test(s)) return stringWidth(s);
  let w = 0;
  for (const c of clusters(stripAnsi(s))) w += clusterCells(c);
  return w;
}

/** The cells reserved for one cluster: string-width's width, or the sum of its code points' if larger. */
function clusterCells(cluster: string): number {
  const glyph = stringWidth(cluster);
  if (cluster.length < 2 || !MAY_DISPUTE.test(cluster)) return glyph;
  let sum = 0;
  for (const cp of cluster) sum += stringWidth(cp);
  return Math.max(glyph, sum);
}

/** Terminals draw `cluster` in different widths (see above): it is written pinned. */
function isDisputed(cluster: string): boolean {
  if (cluster.length < 2 || !MAY_DISPUTE.test(cluster)) return false;
  let sum = 0;
  for (const cp of cluster) sum += stringWidth(cp);
  return sum !== stringWidth(cluster) || /[\uFE0F\u200D\u{1F3FB}-\u{1F3FF}]/u.test(cluster);
}

const SAVE = '\x1b7';
const RESTORE = '\x1b8';
/** An escape sequence (CSI, OSC, or a two-byte ESC x), matched at a position. */
const ESCAPE_AT = /\x1b(?:\[[0-9;?<=>!]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[^[\]])/y;

/**
 * `bytes` as written to a terminal: every disputed cluster drawn into the cells medchat reserves
 * for it, whatever width the terminal gives it. The cells are blanked first (spaces), the cluster
 * is written from their start, and the cursor is moved to just after them (save, restore and
 * cursor-forward: no column needs to be known). Everything else passes as it is; bytes with no
 * disputed cluster come back unchanged (the common case, checked without segmenting).
 */
export function pinClusters(bytes: string): string {
  if (!MAY_DISPUTE.test(bytes)) return bytes;
  let out = '';
  for (const run of escapeRuns(bytes)) {
    if (run.escape || !MAY_DISPUTE.test(run.text)) {
      out += run.text;
      continue;
    }
    // (A control character is a cluster of its own, so no cluster spans a line end.)
    for (const c of clusters(run.text)) {
      if (!isDisputed(c)) {
        out += c;
        continue;
      }
      const cells = clusterCells(c);
      out += `${SAVE}${' '.repeat(cells)}${RESTORE}${c}${RESTORE}\x1b[${cells}C`;
    }
  }
  return out;
}

/** `s` in runs, in order: each escape sequence (CSI, OSC, or a two-byte ESC x) on its own, and the text between them. */
export function escapeRuns(s: string): Array<{ escape: boolean; text: string }> {
  const runs: Array<{ escape: boolean; text: string }> = [];
  let start = 0;
  for (let i = s.indexOf('\x1b'); i >= 0; i = s.indexOf('\x1b', i + 1)) {
    ESCAPE_AT.lastIndex = i;
    const m = ESCAPE_AT.exec(s);
    if (!m) continue;
    if (i > start) runs.push({ escape: false, text: s.slice(start, i) });
    runs.push({ escape: true, text: m[0] });
    start = i + m[0].length;
    i = start - 1;
  }
  if (start < s.length) runs.push({ escape: false, text: s.slice(start) });
  return runs;
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

/** A web or mail address, as a word of text (a link's visible text when it is the address). */
const URL_WORD = /^[(<\[]?(?:https?:\/\/|ftp:\/\/|mailto:|www\.)\S/i;

/**
 * Word-wrap one line that may hold SGR colour codes (and OSC 8 links), to `width` cells. `indent`
 * is put in front of continuation lines (hanging indent for list items and quotes); no
 * continuation line starts with a space. Words longer than the width are cut between grapheme
 * clusters. Colours and a link open at a break are closed there and opened again after the indent.
 * With `wholeUrls`, an address longer than the width is never cut: it gets a row of its own, wider
 * than the width, for the terminal to wrap (copied or clicked, it is then whole).
 */
export function wrapLine(line: string, width: number, indent = '', wholeUrls = false): string[] {
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
    // (the first row has no indent: anything on it is content)
    const started = curW > (out.length === 0 ? 0 : indentW);
    if (curW + w > width && started) push();
    if (wholeUrls && w > width - indentW && URL_WORD.test(tok)) {
      cur += tok;
      curW += w;
      continue;
    }
    if (w > width - indentW) {
      for (const c of clusters(tok)) {
        const cw = textWidth(c);
        if (curW + cw > width && curW > (out.length === 0 ? 0 : indentW)) push();
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
