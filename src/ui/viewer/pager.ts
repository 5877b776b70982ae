/**
 * Paging through lines, as `less` does, in plain TypeScript (no terminal, no React): where the
 * view is, what a key does to it, searching, and the status line. The transcript viewer draws
 * what this says; the tests drive it key by key.
 *
 * Keys: ↑/k/y and ↓/j/e/Enter a line; PgUp/b and PgDn/Space/f/z a page; u/d half a page;
 * Home/g/< and End/G/> the ends; / searches (Enter to find, Esc to give up), n/N the next and
 * previous match; q, Esc, Ctrl+O or Ctrl+C leave.
 */
import type { Key } from '../text/keys.js';
import { stripAnsi, textWidth } from '../../core/text/width.js';
import { uiScreenText } from '../../core/i18n/messages/ui-screen.js';

export interface PagerState {
  /** The first line shown. */
  top: number;
  /** Rows for lines: the screen's height less the status line. */
  height: number;
  /** At the end, and staying there as lines are added (like `tail -f`). */
  follow: boolean;
  /** The search being typed after `/`; undefined when not typing one. */
  typing?: string;
  /** The last search, and the line of the match last shown. */
  query?: string;
  match?: number;
  /** A note for the status line until the next key ("not found: …"). */
  note?: string;
}

interface PagerResult {
  state: PagerState;
  /** Leave the viewer. */
  close?: boolean;
  /** Draw everything again (Ctrl+L). */
  redraw?: boolean;
}

const maxTop = (s: PagerState, count: number) => Math.max(0, count - s.height);

function at(s: PagerState, top: number, count: number): PagerState {
  const m = maxTop(s, count);
  const t = Math.max(0, Math.min(top, m));
  return { ...s, top: t, follow: t >= m };
}

/** A pager `height` rows tall over `count` lines, at `top` (default: the end, following). */
export function openPager(height: number, count: number, top?: number): PagerState {
  const s: PagerState = { top: 0, height: Math.max(1, height), follow: false };
  return at(s, top ?? count, count);
}

/** The lines changed (more of them, or the window's height): stay at the end when following, else where it was. */
export function syncPager(s: PagerState, count: number, height = s.height): PagerState {
  const next = { ...s, height: Math.max(1, height) };
  return at(next, s.follow ? count : s.top, count);
}

/** The lines on screen now. */
export function visibleLines(s: PagerState, lines: readonly string[]): readonly string[] {
  return lines.slice(s.top, s.top + s.height);
}

/** Smart case, as in less -i: a query with a capital letter matches case exactly. */
function matcher(query: string): (line: string) => boolean {
  const exact = query !== query.toLowerCase();
  const q = exact ? query : query.toLowerCase();
  return (line) => (exact ? stripAnsi(line) : stripAnsi(line).toLowerCase()).includes(q);
}

/** The next line matching `query` after `from` (or before it, `dir` -1), wrapping around; undefined when none does. */
export function findLine(lines: readonly string[], query: string, from: number, dir: 1 | -1): { line: number; wrapped: boolean } | undefined {
  if (!query || lines.length === 0) return undefined;
  const match = matcher(query);
  const n = lines.length;
  for (let step = 1; step <= n; step++) {
    const i = (((from + dir * step) % n) + n) % n;
    if (match(lines[i]!)) return { line: i, wrapped: dir === 1 ? i <= from : i >= from };
  }
  return undefined;
}

function search(s: PagerState, lines: readonly string[], query: string, dir: 1 | -1, from: number): PagerState {
  const found = findLine(lines, query, from, dir);
  if (!found) return { ...s, query, note: uiScreenText.notFound(query) };
  const next = { ...at({ ...s, query }, found.line, lines.length), match: found.line };
  return found.wrapped ? { ...next, note: dir === 1 ? uiScreenText.wrappedToTop : uiScreenText.wrappedToEnd } : next;
}

/** What `key` does. Typed text may hold several keys at once ("jj"): each is applied in turn. */
export function pagerKey(state: PagerState, key: Key, lines: readonly string[]): PagerResult {
  const s: PagerState = { ...state, note: undefined };
  const count = lines.length;
  if (s.typing !== undefined) {
    switch (key.name) {
      case 'text':
      case 'paste':
        // One line, no control characters (a paste could hold escape codes; this is echoed on the status line).
        return { state: { ...s, typing: s.typing + key.text.split(/[\r\n]/)[0]!.replace(/[\u0000-\u001f\u007f-\u009f]/g, '') } };
      case 'backspace':
        return { state: { ...s, typing: s.typing ? s.typing.slice(0, -1) : undefined } };
      case 'enter':
        return { state: s.typing ? search({ ...s, typing: undefined }, lines, s.typing, 1, s.top - 1) : { ...s, typing: undefined } };
      case 'escape':
      case 'ctrl-c':
        return { state: { ...s, typing: undefined } };
      default:
        return { state: s };
    }
  }
  const page = Math.max(1, s.height - 1);
  const half = Math.max(1, Math.floor(s.height / 2));
  switch (key.name) {
    case 'escape':
    case 'ctrl-o':
    case 'ctrl-c':
      return { state: s, close: true };
    case 'ctrl-l':
      return { state: s, redraw: true };
    case 'up':
      return { state: at(s, s.top - 1, count) };
    case 'down':
    case 'enter':
    case 'newline':
      return { state: at(s, s.top + 1, count) };
    case 'page-up':
      return { state: at(s, s.top - page, count) };
    case 'page-down':
      return { state: at(s, s.top + page, count) };
    case 'home':
      return { state: at(s, 0, count) };
    case 'end':
      return { state: at(s, count, count) };
    case 'text': {
      let r: PagerResult = { state: s };
      const chars = [...key.text];
      for (let i = 0; i < chars.length; i++) {
        // After a `/` in the same read, the rest is the search being typed.
        if (r.state.typing !== undefined) return { state: { ...r.state, typing: r.state.typing + chars.slice(i).join('') } };
        r = letter(r.state, chars[i]!, lines, page, half);
        if (r.close) return r;
      }
      return r;
    }
    default:
      return { state: s };
  }
}

function letter(s: PagerState, ch: string, lines: readonly string[], page: number, half: number): PagerResult {
  const count = lines.length;
  // n/N go on from the match last shown while it is on screen (near the end it may not be the top line).
  const from = s.match !== undefined && s.match >= s.top && s.match < s.top + s.height ? s.match : s.top;
  switch (ch) {
    case 'q':
    case 'Q':
      return { state: s, close: true };
    case 'k':
    case 'y':
      return { state: at(s, s.top - 1, count) };
    case 'j':
    case 'e':
      return { state: at(s, s.top + 1, count) };
    case 'b':
      return { state: at(s, s.top - page, count) };
    case ' ':
    case 'f':
    case 'z':
      return { state: at(s, s.top + page, count) };
    case 'u':
      return { state: at(s, s.top - half, count) };
    case 'd':
      return { state: at(s, s.top + half, count) };
    case 'g':
    case '<':
      return { state: at(s, 0, count) };
    case 'G':
    case '>':
      return { state: at(s, count, count) };
    case '/':
      return { state: { ...s, typing: '' } };
    case 'n':
      return { state: s.query ? search(s, lines, s.query, 1, from) : { ...s, note: uiScreenText.noSearch } };
    case 'N':
      return { state: s.query ? search(s, lines, s.query, -1, from) : { ...s, note: uiScreenText.noSearch } };
    default:
      return { state: s };
  }
}

/** The status line under the lines: where the view is and the keys, or the search being typed. */
export function statusLine(s: PagerState, count: number, width: number, title = uiScreenText.transcript): string {
  if (s.typing !== undefined) return `/${s.typing}`;
  const last = Math.min(count, s.top + s.height);
  const where = count === 0 ? uiScreenText.empty : uiScreenText.linesOf(s.top + 1, last, count) + (last >= count ? uiScreenText.atEnd : uiScreenText.percent(Math.floor((last / count) * 100)));
  const tries = s.note
    ? [[title, where, s.note], [where, s.note]]
    : [
        [title, where, uiScreenText.pagerKeysLong],
        [title, where, uiScreenText.pagerKeysShort],
        [title, where, uiScreenText.pagerBack],
        [where, uiScreenText.pagerBack],
      ];
  for (const parts of tries) {
    const text = parts.join(' · ');
    if (textWidth(text) <= width) return text;
  }
  return where.slice(0, Math.max(0, width));
}

/** `line` with each match of `query` in reverse video (the line's own styling dropped); as it is without colour. */
export function highlight(line: string, query: string | undefined, colour: boolean): string {
  if (!query || !colour) return line;
  const plain = stripAnsi(line);
  const exact = query !== query.toLowerCase();
  const hay = exact ? plain : plain.toLowerCase();
  const q = exact ? query : query.toLowerCase();
  if (!hay.includes(q)) return line;
  let out = '';
  let from = 0;
  for (let i = hay.indexOf(q); i !== -1; i = hay.indexOf(q, i + q.length)) {
    const hit = plain.slice(i, i + q.length);
    out += `${plain.slice(from, i)}\x1b[7m${hit}\x1b[27m`;
    from = i + q.length;
  }
  return out + plain.slice(from);
}
