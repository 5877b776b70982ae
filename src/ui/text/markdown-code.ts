import { clusters, textWidth } from '../../core/text/width.js';
import { styler } from './markdown-inline.js';

const KEYWORDS = new Set(
  (
    'if else elif for while do return function def class const let var import from export default new try catch finally throw raise ' + // i18n-exempt: code keywords
    'async await yield switch case break continue in of is not and or None null undefined true false True False self this with as ' + // i18n-exempt: code keywords
    'public private protected static void int float double char bool boolean string struct enum interface type fn pub mut use match impl ' + // i18n-exempt: code keywords
    'select insert update delete where join on create table values into package func go defer lambda pass' // i18n-exempt: code keywords
  ).split(' '),
);

/** Very small highlighter: comments, strings, numbers, keywords. Good enough for reading, never wrong about text. */
export function highlightCode(line: string, lang: string, colour = true): string {
  if (!colour) return line;
  const st = styler(true);
  const hashComments = /^(py|python|sh|bash|zsh|shell|ruby|rb|r|yaml|yml|toml|perl|conf|ini)$/i.test(lang);
  const re = hashComments
    ? /(#.*$)|("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')|(\b\d+(?:\.\d+)?\b)|([A-Za-z_][\w]*)/g
    : /(\/\/.*$|--\s.*$)|("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`(?:[^`\\]|\\.)*`)|(\b\d+(?:\.\d+)?\b)|([A-Za-z_][\w]*)/g;
  return line.replace(re, (m, comment?: string, str?: string, num?: string, word?: string) => {
    if (comment) return st('grey', comment);
    if (str) return st('green', str);
    if (num) return st('yellow', num);
    if (word && KEYWORDS.has(word)) return st('magenta', word);
    return m;
  });
}

/** What starts a row that continues the code line above it (the line was longer than the screen). */
export const CONTINUATION = '↪';

/**
 * One line of code as screen rows `width` cells wide at most: indented two cells, and when it is
 * longer, cut exactly at the edge (no character lost or moved, spaces kept) with each further row
 * starting with a dim `↪` where the indent was, so a reader sees the line goes on.
 */
export function codeRows(line: string, lang: string, width: number, colour: boolean): string[] {
  const text = line.includes('\t') ? line.replace(/\t/g, '    ') : line;
  const styled = highlightCode(text, lang, colour);
  const room = Math.max(1, width - 2);
  if (textWidth(text) <= room) return [`  ${styled}`];
  const mark = `${styler(colour)('dim', CONTINUATION)} `;
  const rows: string[] = [];
  let cur = '';
  let curW = 0;
  let active = ''; // the highlighter's colour in effect (it never nests)
  for (const part of styled.split(/(\x1b\[[0-9;]*m)/)) {
    if (part.startsWith('\x1b[')) {
      cur += part;
      active = /^\x1b\[(?:0|39)?m$/.test(part) ? '' : part;
      continue;
    }
    for (const g of clusters(part)) {
      const w = textWidth(g);
      if (curW + w > room && curW > 0) {
        rows.push(cur + (active ? '\x1b[39m' : ''));
        cur = active;
        curW = 0;
      }
      cur += g;
      curW += w;
    }
  }
  rows.push(cur);
  return rows.map((r, i) => (i === 0 ? '  ' : mark) + r);
}
