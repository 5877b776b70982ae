import { safeLinkTarget } from '../../core/text/hyperlinks.js';
import { decodeEntities, decodeEntity, ENTITY } from '../../core/text/markdown/entities.js';

/** The SGR colours and styles the Markdown renderer uses (its only escape codes besides links). */
const SGR = {
  bold: ['\x1b[1m', '\x1b[22m'],
  dim: ['\x1b[2m', '\x1b[22m'],
  italic: ['\x1b[3m', '\x1b[23m'],
  underline: ['\x1b[4m', '\x1b[24m'],
  strike: ['\x1b[9m', '\x1b[29m'],
  cyan: ['\x1b[36m', '\x1b[39m'],
  green: ['\x1b[32m', '\x1b[39m'],
  yellow: ['\x1b[33m', '\x1b[39m'],
  magenta: ['\x1b[35m', '\x1b[39m'],
  blue: ['\x1b[34m', '\x1b[39m'],
  grey: ['\x1b[90m', '\x1b[39m'],
} as const;
type Style = keyof typeof SGR;
type Styler = (style: Style, s: string) => string;

export function styler(colour: boolean): Styler {
  return (style, s) => (colour && s ? SGR[style][0] + s + SGR[style][1] : s);
}

/**
 * The link targets of one rendering. While Markdown is laid out, a link is marked by two SGR
 * codes the renderer never uses otherwise (underline colour `58;5;n` and its reset `59`): they
 * are zero-width to the wrapper, which carries them over a line break like any colour. `applyLinks`
 * then turns them into OSC 8 sequences, closed at the end of each row and opened again on the next.
 */
export class LinkTable {
  readonly targets: string[] = [];

  /** The start mark for `target`, or undefined when there are too many links to mark. */
  open(target: string): string | undefined {
    let n = this.targets.indexOf(target);
    if (n === -1) {
      if (this.targets.length >= 256) return undefined;
      n = this.targets.push(target) - 1;
    }
    return `\x1b[58;5;${n}m`;
  }

  static readonly CLOSE = '\x1b[59m';
}

const LINK_MARK = /^\x1b\[58;5;(\d+)m$/;

/** Lines with link marks made into OSC 8 links (`open`/`close` from src/core/text/hyperlinks.ts); the marks are removed. */
export function applyLinks(lines: string[], links: LinkTable, open: (target: string) => string, close: string): string[] {
  if (links.targets.length === 0) return lines;
  let want = -1; // the link the text is in, carried from row to row
  return lines.map((line) => {
    let out = '';
    let shown = -1; // the link open in this row's output
    for (const part of line.split(/(\x1b\[[0-9;]*m)/)) {
      if (part.startsWith('\x1b[')) {
        const mark = LINK_MARK.exec(part);
        if (mark) want = Number(mark[1]);
        else if (part === LinkTable.CLOSE) want = -1;
        else out += part;
        if (shown !== -1 && shown !== want) {
          out += close;
          shown = -1;
        }
        continue;
      }
      if (want !== -1 && shown !== want) {
        // Open it at the first visible character (not over a row's leading indent).
        const k = part.search(/\S/);
        if (k === -1) {
          out += part;
          continue;
        }
        out += part.slice(0, k) + open(links.targets[want]!);
        shown = want;
        out += part.slice(k);
        continue;
      }
      out += part;
    }
    return shown !== -1 ? out + close : out;
  });
}

function emphasis(s: string, st: Styler): string {
  return s
    .replace(/\*\*\*(?=\S)([\s\S]*?\S)\*\*\*(?!\*)|___(?=\S)([\s\S]*?\S)___(?!_)/g, (_m, a?: string, b?: string) => st('bold', st('italic', a ?? b ?? '')))
    .replace(/\*\*\*(?=\S)([\s\S]*?\S)\*\*(?!\*)([\s\S]*?\S)\*(?!\*)/g, (_m, a: string, b: string) => st('italic', st('bold', a) + b))
    .replace(/\*\*\*(?=\S)([\s\S]*?\S)\*(?!\*)([\s\S]*?\S)\*\*(?!\*)/g, (_m, a: string, b: string) => st('bold', st('italic', a) + b))
    .replace(/\*\*(?=\S)([\s\S]*?\S)\*\*|__(?=\S)([\s\S]*?\S)__/g, (_m, a?: string, b?: string) => st('bold', a ?? b ?? ''))
    .replace(/(^|[^*\w])\*(?=\S)([^*]*?\S)\*(?!\*)/g, (_m, pre: string, body: string) => pre + st('italic', body))
    .replace(/(^|[^_\w])_(?=\S)([^_]*?\S)_(?![_\w])/g, (_m, pre: string, body: string) => pre + st('italic', body))
    .replace(/~~(?=\S)([\s\S]*?\S)~~/g, (_m, body: string) => st('strike', body));
}

// One pass, left to right, so that whichever starts first wins: a code span (its text literal),
// a backslash escape (any ASCII punctuation), an autolink <url>.
const LITERALS = /(`+)([^`]|[^`][\s\S]*?[^`])\1(?!`)|\\([!-/:-@[-`{-~])|<((?:https?:\/\/|mailto:)[^\s<>\u0000]+)>/g;
// [label](url "title"): the URL may hold one level of balanced parentheses (Wikipedia's do).
const LINK = /\[([^\]]+)\]\(((?:[^\s()\u0000]|\([^\s()\u0000]*\))+)(?:\s+"[^"]*")?\)/g;
const BARE_URL = /(^|[^\w/\u0000])(https?:\/\/[^\s<>\u0000]+)/g;

/** A bare URL without what follows it in the sentence: trailing punctuation, an unbalanced ')'. */
function trimUrl(url: string): [string, string] {
  let end = url.length;
  for (;;) {
    const u = url.slice(0, end);
    if (/[.,:;!?'"*_~]$/.test(u)) end--;
    else if (u.endsWith(')') && (u.match(/\(/g)?.length ?? 0) < (u.match(/\)/g)?.length ?? 0)) end--;
    else break;
  }
  return [url.slice(0, end), url.slice(end)];
}

/**
 * Inline markup: `code`, **bold**, *italic*, _italic_, ***both***, ~~strike~~, [text](url), <url>,
 * bare http(s) URLs, backslash escapes and HTML entities. With `links`, link text is marked for
 * OSC 8 (see LinkTable); without, links are plain text as before.
 */
export function renderInline(text: string, colour = true, links?: LinkTable): string {
  if (!/[`\\&<*_~[]|https?:/.test(text)) return text; // nothing here is markup (most table cells, many sentences)
  const st = styler(colour);
  const stash: string[] = [];
  const put = (s: string) => `\u0000${stash.push(s) - 1}\u0000`;
  // A link's marks go only where a word already starts or ends (next to a space or one of our
  // own colour codes), so that making links clickable never changes where the text wraps.
  const link = (url: string, linked: string, plain = linked) => {
    const target = links && safeLinkTarget(url);
    const mark = target && links.open(target);
    return mark ? mark + linked + LinkTable.CLOSE : plain;
  };
  let s = text.replace(LITERALS, (_m, _ticks, code?: string, esc?: string, auto?: string) => {
    if (code !== undefined) return put(st('cyan', code.trim() === '' ? code : code.replace(/^ (.*) $/, '$1')));
    if (esc !== undefined) return put(esc);
    const url = decodeEntities(auto!);
    return put(link(url, st('underline', url)));
  });
  s = s
    .replace(LINK, (_m, label: string, rawUrl: string) => {
      const url = decodeEntities(rawUrl);
      const shown = emphasis(decodeEntities(label), st);
      if (label === rawUrl || label === url) return put(link(url, st('underline', url)));
      // The label is underlined only when it can be clicked; the URL is shown either way.
      return put(`${link(url, st('underline', shown), shown)} ${link(url, st('grey', `(${url})`))}`);
    })
    .replace(BARE_URL, (_m, pre: string, raw: string) => {
      const [core, rest] = trimUrl(raw);
      const url = decodeEntities(core);
      // Sentence punctuation after it stays in the same word (and so in the link) unless it could be markup.
      return /^[.,:;!?'")]*$/.test(rest) ? pre + put(link(url, url + rest)) : pre + put(link(url, url)) + rest;
    })
    .replace(ENTITY, (e) => {
      const ch = decodeEntity(e);
      return ch === undefined ? e : put(ch);
    });
  s = emphasis(s, st);
  const restore = (x: string): string => x.replace(/\u0000(\d+)\u0000/g, (_m, i: string) => restore(stash[Number(i)] ?? ''));
  return restore(s);
}
