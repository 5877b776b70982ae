import { textWidth, wrapLine } from './width.js';

/**
 * A compact Markdown-to-terminal renderer: headings, paragraphs, lists, quotes, rules, tables,
 * fenced code with simple syntax colours, and inline emphasis/code/links. Input must already be
 * sanitised (no control characters); the only escape codes in the output are our own SGR colours.
 * Output is wrapped to `width` with hanging indents, so Ink never has to re-wrap it.
 */
export interface MarkdownOptions {
  width: number;
  colour?: boolean;
}

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

function styler(colour: boolean) {
  return (style: Style, s: string) => (colour && s ? SGR[style][0] + s + SGR[style][1] : s);
}

/** Inline markup: `code`, **bold**, *italic*, _italic_, ~~strike~~, [text](url), <url>. */
export function renderInline(text: string, colour = true): string {
  const st = styler(colour);
  const codes: string[] = [];
  // Protect code spans first so their contents are not touched.
  let s = text.replace(/(`+)([^`]|[^`][\s\S]*?[^`])\1(?!`)/g, (_m, _t, code: string) => {
    codes.push(st('cyan', code.trim() === '' ? code : code.replace(/^ (.*) $/, '$1')));
    return `\u0000${codes.length - 1}\u0000`;
  });
  s = s
    .replace(/\[([^\]]+)\]\((\S+?)(?:\s+"[^"]*")?\)/g, (_m, label: string, url: string) =>
      label === url ? st('underline', url) : `${label} ${st('grey', `(${url})`)}`,
    )
    .replace(/<(https?:\/\/[^\s>]+)>/g, (_m, url: string) => st('underline', url))
    .replace(/\*\*(?=\S)([\s\S]*?\S)\*\*|__(?=\S)([\s\S]*?\S)__/g, (_m, a?: string, b?: string) => st('bold', a ?? b ?? ''))
    .replace(/(^|[^*\w])\*(?=\S)([^*]*?\S)\*(?!\*)/g, (_m, pre: string, body: string) => pre + st('italic', body))
    .replace(/(^|[^_\w])_(?=\S)([^_]*?\S)_(?![_\w])/g, (_m, pre: string, body: string) => pre + st('italic', body))
    .replace(/~~(?=\S)([\s\S]*?\S)~~/g, (_m, body: string) => st('strike', body));
  return s.replace(/\u0000(\d+)\u0000/g, (_m, i: string) => codes[Number(i)] ?? '');
}

const KEYWORDS = new Set(
  (
    'if else elif for while do return function def class const let var import from export default new try catch finally throw raise ' +
    'async await yield switch case break continue in of is not and or None null undefined true false True False self this with as ' +
    'public private protected static void int float double char bool boolean string struct enum interface type fn pub mut use match impl ' +
    'select insert update delete where join on create table values into package func go defer lambda pass'
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

interface Block {
  kind: 'heading' | 'para' | 'code' | 'list' | 'quote' | 'rule' | 'table' | 'blank';
  lines: string[];
  level?: number;
  lang?: string;
}

const LIST_ITEM = /^(\s*)([-*+]|\d{1,9}[.)])\s+(.*)$/;
const TABLE_SEP = /^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$/;

function parseBlocks(src: string): Block[] {
  const lines = src.replace(/\t/g, '    ').split('\n');
  const blocks: Block[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    const fence = /^ {0,3}(`{3,}|~{3,})\s*([\w+#.-]*)/.exec(line);
    if (fence) {
      const marker = fence[1]!;
      const body: string[] = [];
      i++;
      while (i < lines.length && !(lines[i]!.trim().startsWith(marker) && /^\s*[`~]+\s*$/.test(lines[i]!))) body.push(lines[i++]!);
      i++;
      blocks.push({ kind: 'code', lines: body, lang: fence[2] ?? '' });
      continue;
    }
    if (line.trim() === '') {
      blocks.push({ kind: 'blank', lines: [] });
      i++;
      continue;
    }
    const heading = /^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading) {
      blocks.push({ kind: 'heading', lines: [heading[2]!], level: heading[1]!.length });
      i++;
      continue;
    }
    if (/^ {0,3}([-*_])(\s*\1){2,}\s*$/.test(line)) {
      blocks.push({ kind: 'rule', lines: [] });
      i++;
      continue;
    }
    if (line.includes('|') && i + 1 < lines.length && TABLE_SEP.test(lines[i + 1]!)) {
      const rows = [line];
      i += 2;
      while (i < lines.length && lines[i]!.includes('|') && lines[i]!.trim() !== '') rows.push(lines[i++]!);
      blocks.push({ kind: 'table', lines: rows });
      continue;
    }
    if (/^ {0,3}>/.test(line)) {
      const body: string[] = [];
      while (i < lines.length && /^ {0,3}>/.test(lines[i]!)) body.push(lines[i++]!.replace(/^ {0,3}> ?/, ''));
      blocks.push({ kind: 'quote', lines: body });
      continue;
    }
    if (LIST_ITEM.test(line)) {
      const body: string[] = [];
      while (i < lines.length && lines[i]!.trim() !== '' && (LIST_ITEM.test(lines[i]!) || /^\s+\S/.test(lines[i]!) || body.length === 0)) {
        body.push(lines[i++]!);
      }
      blocks.push({ kind: 'list', lines: body });
      continue;
    }
    const body: string[] = [];
    while (
      i < lines.length &&
      lines[i]!.trim() !== '' &&
      !/^ {0,3}(#{1,6}\s|`{3,}|~{3,}|>)/.test(lines[i]!) &&
      !(body.length > 0 && LIST_ITEM.test(lines[i]!) && !/^\s*\d/.test(lines[i]!))
    ) {
      body.push(lines[i++]!);
    }
    if (body.length === 0) body.push(lines[i++]!);
    blocks.push({ kind: 'para', lines: body });
  }
  return blocks;
}

function splitRow(row: string): string[] {
  let r = row.trim();
  if (r.startsWith('|')) r = r.slice(1);
  if (r.endsWith('|') && !r.endsWith('\\|')) r = r.slice(0, -1);
  return r.split(/(?<!\\)\|/).map((c) => c.trim().replace(/\\\|/g, '|'));
}

function renderTable(rows: string[], width: number, colour: boolean): string[] {
  const st = styler(colour);
  const cells = rows.map((r) => splitRow(r).map((c) => renderInline(c, colour)));
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
  const pad = (s: string, w: number) => s + ' '.repeat(Math.max(0, w - textWidth(s)));
  const line = (l: string, m: string, r: string) => st('grey', l + widths.map((w) => '─'.repeat(w + 2)).join(m) + r);
  const out = [line('┌', '┬', '┐')];
  cells.forEach((row, ri) => {
    const bar = st('grey', '│');
    out.push(bar + widths.map((w, c) => ' ' + pad(ri === 0 ? st('bold', row[c] ?? '') : (row[c] ?? ''), w) + ' ').join(bar) + bar);
    if (ri === 0) out.push(line('├', '┼', '┤'));
  });
  out.push(line('└', '┴', '┘'));
  return out;
}

export function renderMarkdown(src: string, opts: MarkdownOptions): string {
  const colour = opts.colour !== false;
  const st = styler(colour);
  const width = Math.max(20, opts.width);
  const out: string[] = [];
  let lastBlank = true;
  for (const block of parseBlocks(src)) {
    switch (block.kind) {
      case 'blank':
        if (!lastBlank) out.push('');
        lastBlank = true;
        continue;
      case 'heading': {
        const text = renderInline(block.lines[0]!, colour);
        const styled = block.level === 1 ? st('bold', st('underline', text)) : block.level === 2 ? st('bold', text) : st('bold', st('italic', text));
        out.push(...wrapLine(styled, width));
        break;
      }
      case 'rule':
        out.push(st('grey', '─'.repeat(Math.min(width, 40))));
        break;
      case 'code': {
        const lang = block.lang ?? '';
        if (lang) out.push(st('grey', `  ${lang}`));
        for (const l of block.lines) {
          for (const w of wrapLine('  ' + highlightCode(l, lang, colour), width, '  ')) out.push(w);
        }
        break;
      }
      case 'table':
        out.push(...renderTable(block.lines, width, colour));
        break;
      case 'quote': {
        const inner = renderMarkdown(block.lines.join('\n'), { width: width - 2, colour }).split('\n');
        for (const l of inner) out.push(st('grey', '│ ') + st('italic', l));
        break;
      }
      case 'list': {
        for (const raw of block.lines) {
          const m = LIST_ITEM.exec(raw);
          if (m) {
            const depth = Math.floor(m[1]!.length / 2);
            const indent = '  '.repeat(depth);
            const bullet = /\d/.test(m[2]!) ? m[2]! : depth % 2 ? '◦' : '•';
            let body = m[3]!;
            const task = /^\[([ xX])\]\s+(.*)$/.exec(body);
            if (task) body = `${task[1] === ' ' ? '☐' : '☑'} ${task[2]}`;
            const lead = `${indent}${st('cyan', bullet)} `;
            out.push(...wrapLine(lead + renderInline(body, colour), width, indent + ' '.repeat(textWidth(bullet) + 1)));
          } else {
            const depth = Math.floor((/^\s*/.exec(raw)?.[0].length ?? 0) / 2);
            out.push(...wrapLine('  '.repeat(depth) + renderInline(raw.trim(), colour), width, '  '.repeat(depth)));
          }
        }
        break;
      }
      case 'para': {
        // Markdown joins soft line breaks; a trailing two spaces or backslash is a hard break.
        const joined = block.lines.map((l, idx) => (idx < block.lines.length - 1 && / {2,}$|\\$/.test(l) ? l.replace(/( {2,}|\\)$/, '\n') : l + ' ')).join('');
        for (const l of renderInline(joined.trim(), colour).split('\n')) out.push(...wrapLine(l.trim(), width));
        break;
      }
    }
    lastBlank = false;
  }
  while (out.length && out[out.length - 1] === '') out.pop();
  return out.join('\n');
}

/** Plain wrapping of text that is still streaming (no markup applied yet). */
export function wrapPlain(text: string, width: number): string {
  return text
    .split('\n')
    .map((l) => wrapLine(l, Math.max(20, width)).join('\n'))
    .join('\n');
}
