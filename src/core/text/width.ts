/**
 * Terminal cell widths: the one measure of text for the whole chat screen (the frame writer's
 * diff, wrapping, Markdown tables, the live rows, the input box, and Ink's own layout: the build
 * makes Ink's string-width this `textWidth`, see build/build.mjs), and for commands that fit text
 * to a terminal's width (`sessions search`, `sessions purge`). CJK is 2 cells, combining marks
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

/** `s` followed by spaces up to `cells` terminal cells: a column of Chinese words (2 cells a character) lines up as English does. */
export function padToCells(s: string, cells: number): string {
  return s + ' '.repeat(Math.max(0, cells - textWidth(s)));
}

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

/**
 * Chinese and Japanese are written without spaces: a row may break after any ideograph or kana, not
 * only at a space, so each one is a word of its own, with the closing punctuation that follows it
 * (，。、；：！？）」』”’…), which never starts a row, and the opening mark before it (（「『“‘), which never
 * ends one.
 */
const IDEOGRAPH = '\\u2e80-\\u2fff\\u3040-\\u30ff\\u3100-\\u312f\\u3400-\\u4dbf\\u4e00-\\u9fff\\uf900-\\ufaff';
const CLOSING = '\\u3001\\u3002\\uff0c\\uff1b\\uff1a\\uff01\\uff1f\\uff09\\u300d\\u300f\\u201d\\u2019\\u2026';
/** Opening marks (（「『“‘), which never end a row: they go with the ideograph after them. */
const OPENING = '\\uff08\\u300c\\u300e\\u201c\\u2018';
/** Tokens of a line: SGR colour codes, OSC sequences (links), other escapes, spaces, words. */
const TOKENS = new RegExp(`\\x1b\\[[0-9;]*m|\\x1b\\][^\\x07\\x1b]*(?:\\x07|\\x1b\\\\)|\\s+|[${OPENING}]*[${IDEOGRAPH}][${CLOSING}]*|[${OPENING}]*[^\\s\\x1b${IDEOGRAPH}${CLOSING}${OPENING}]+[${CLOSING}]*|[${OPENING}${CLOSING}]+|\\x1b`, 'g');
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
  if (textWidth(line) <= Math.max(4, width)) return [line];
  const w = new LineWrap(width, indent, wholeUrls);
  w.add(line);
  return w.rows();
}

/**
 * `wrapLine`'s greedy wrap, a token at a time, for a line that grows: what was added is wrapped
 * once; `rows()` gives the rows so far without changing the state, so more may be added after.
 * A line that fits the width whole is `wrapLine`'s to answer (it keeps the line as it is).
 * `add` takes whole tokens: text cut inside a word or a run of spaces must not be added in two
 * parts (see `lastTokenStart`).
 */
export class LineWrap {
  private readonly width: number;
  private readonly indentW: number;
  private readonly out: string[] = [];
  private cur = '';
  private curW = 0;
  private active = ''; // SGR codes in effect, to carry over a break
  private link = ''; // the OSC 8 link open, to carry over a break
  private pushed = 0;

  constructor(
    width: number,
    private readonly indent = '',
    private readonly wholeUrls = false,
  ) {
    this.width = Math.max(4, width);
    this.indentW = textWidth(indent);
  }

  /** Rows finished so far (never changed by what is added after), forgotten ones included. */
  get finished(): number {
    return this.pushed;
  }

  add(text: string): void {
    for (const tok of text.match(TOKENS) ?? []) this.token(tok);
  }

  /** All rows: the finished ones and the one being filled. */
  rows(): string[] {
    return this.last(Infinity);
  }

  /**
   * The last `max` rows there would be with `more` added (whole tokens, the line's last one
   * included), leaving the state as it was: for a line that may still grow.
   */
  peek(more: string, max: number): string[] {
    const { cur, curW, active, link, pushed } = this;
    const kept = this.out.length;
    this.add(more);
    const rows = this.last(max);
    this.out.length = kept;
    Object.assign(this, { cur, curW, active, link, pushed });
    return rows;
  }

  /** Keep only the last `n` finished rows (the earlier ones are not asked for again). */
  forget(n: number): void {
    if (this.out.length > n) this.out.splice(0, this.out.length - n);
  }

  private last(max: number): string[] {
    const { cur } = this;
    const open = stripAnsi(cur).trim() || this.pushed === 0;
    const from = Math.max(0, this.out.length - (open ? max - 1 : max));
    const rows = this.out.slice(from);
    if (open) rows.push(cur.trimEnd());
    return rows.length > max ? rows.slice(-max) : rows;
  }

  private push(): void {
    this.out.push(this.cur.trimEnd() + (this.link ? OSC8_CLOSE : '') + (this.active ? '\x1b[0m' : ''));
    this.pushed++;
    this.cur = this.indent + this.active + this.link;
    this.curW = this.indentW;
  }

  private token(tok: string): void {
    const { width, indentW } = this;
    if (tok.startsWith('\x1b')) {
      this.cur += tok;
      if (tok.startsWith('\x1b[')) this.active = tok === '\x1b[0m' || tok === '\x1b[m' ? '' : this.active + tok;
      else {
        const osc = OSC8.exec(tok);
        if (osc) this.link = osc[1] ? tok : '';
      }
      return;
    }
    const w = textWidth(tok);
    if (/^\s+$/.test(tok)) {
      if (this.curW + w > width) this.push();
      else if (this.curW > indentW || this.pushed === 0) {
        this.cur += tok;
        this.curW += w;
      }
      return;
    }
    // (the first row has no indent: anything on it is content)
    const started = this.curW > (this.pushed === 0 ? 0 : indentW);
    if (this.curW + w > width && started) this.push();
    if (this.wholeUrls && w > width - indentW && URL_WORD.test(tok)) {
      this.cur += tok;
      this.curW += w;
      return;
    }
    if (w > width - indentW) {
      for (const c of clusters(tok)) {
        const cw = textWidth(c);
        if (this.curW + cw > width && this.curW > (this.pushed === 0 ? 0 : indentW)) this.push();
        this.cur += c;
        this.curW += cw;
      }
      return;
    }
    this.cur += tok;
    this.curW += w;
  }
}

/**
 * Where the last token of `text` begins (`LineWrap`'s tokens): text before it is whole tokens,
 * whatever is appended later; the last one may still grow.
 */
export function lastTokenStart(text: string): number {
  if (text.includes('\x1b')) {
    let last = 0;
    for (const m of text.matchAll(TOKENS)) last = m.index;
    return last;
  }
  // No escape codes: the last run of white space, or of anything else, read from the end.
  let i = text.length;
  const space = i > 0 && SPACE.test(text[i - 1]!);
  while (i > 0 && SPACE.test(text[i - 1]!) === space) i--;
  return i;
}

const SPACE = /\s/;

/** Each line of `text` wrapped to `width` cells (continuation lines after `indent`), joined again. */
export function wrapText(text: string, width: number, indent = ''): string {
  return text
    .split('\n')
    .map((l) => wrapLine(l, width, indent).join('\n'))
    .join('\n');
}

/** `text` cut to at most `width` cells, between clusters, ending in … when cut. */
export function cutToColumns(text: string, width: number): string {
  if (width <= 0) return '';
  if (textWidth(text) <= width) return text;
  const keep = indexAtWidth(text, width - 1);
  const head = text.slice(0, keep);
  // indexAtWidth gives the first cluster at or past the cells: step back over one that would not fit.
  const fits = textWidth(head) <= width - 1 ? head : head.slice(0, clusterStart(head, head.length));
  return fits + '…';
}
