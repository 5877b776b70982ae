/**
 * A compact Markdown-to-terminal renderer: headings, paragraphs, lists, quotes, rules, tables
 * (with column alignment), fenced code with simple syntax colours, and inline emphasis, code,
 * links, escapes and entities. Input must already be sanitised (no control characters); the only
 * escape codes in the output are our own SGR colours and, with `hyperlinks`, OSC 8 links to
 * checked http(s)/mailto targets. Output is wrapped to `width` with hanging indents, so Ink never
 * has to re-wrap it; a URL is never broken at a word boundary (it moves to a row of its own), and
 * a code line too long for the screen is cut at the edge with a `↪` on each row that continues it.
 */
import { LINK_CLOSE, linkOpen } from '../../core/text/hyperlinks.js';
import { MAX_QUOTE_DEPTH, parseBlocks } from '../../core/text/markdown/blocks.js';
import { codeRows } from './markdown-code.js';
import { applyLinks, LinkTable, renderInline, styler } from './markdown-inline.js';
import { renderTable } from './markdown-table.js';
import { textWidth, wrapLine as wrapWords } from '../../core/text/width.js';

export { highlightCode } from './markdown-code.js';
export { renderInline } from './markdown-inline.js';

interface MarkdownOptions {
  width: number;
  colour?: boolean;
  /** Make links clickable with OSC 8 (only where the terminal is known to support it: see core/text/hyperlinks.ts). */
  hyperlinks?: boolean;
  /**
   * An address longer than the width keeps a row of its own, uncut, for the terminal to wrap (the
   * printed transcript: copied or clicked it is whole). Without it, it is cut at the width.
   */
  wholeUrls?: boolean;
}

function renderBlocks(src: string, width: number, colour: boolean, links: LinkTable | undefined, wholeUrls: boolean, depth = 0): string[] {
  const st = styler(colour);
  const wrapLine = (line: string, w: number, indent = '') => wrapWords(line, w, indent, wholeUrls);
  const out: string[] = [];
  let lastBlank = true;
  for (const block of parseBlocks(src)) {
    switch (block.kind) {
      case 'blank':
        if (!lastBlank) out.push('');
        lastBlank = true;
        continue;
      case 'heading': {
        const text = renderInline(block.lines[0]!, colour, links);
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
        for (const l of block.lines) out.push(...codeRows(l, lang, width, colour));
        break;
      }
      case 'table':
        out.push(...renderTable(block.lines, width, colour, links));
        break;
      case 'quote': {
        // Deeper than MAX_QUOTE_DEPTH the quote marks are text (see blocks.ts).
        const inner = depth < MAX_QUOTE_DEPTH ? renderBlocks(block.lines.join('\n'), width - 2, colour, links, wholeUrls, depth + 1) : block.lines.flatMap((l) => wrapLine(l, width - 2));
        for (const l of inner) out.push(st('grey', '│ ') + st('italic', l));
        break;
      }
      case 'list': {
        for (const raw of block.lines) {
          const m = /^(\s*)([-*+]|\d{1,9}[.)])\s+(.*)$/.exec(raw);
          if (m) {
            const depth = Math.floor(m[1]!.length / 2);
            const indent = '  '.repeat(depth);
            const bullet = /\d/.test(m[2]!) ? m[2]! : depth % 2 ? '◦' : '•';
            let body = m[3]!;
            const task = /^\[([ xX])\]\s+(.*)$/.exec(body);
            if (task) body = `${task[1] === ' ' ? '☐' : '☑'} ${task[2]}`;
            const lead = `${indent}${st('cyan', bullet)} `;
            out.push(...wrapLine(lead + renderInline(body, colour, links), width, indent + ' '.repeat(textWidth(bullet) + 1)));
          } else {
            const depth = Math.floor((/^\s*/.exec(raw)?.[0].length ?? 0) / 2);
            out.push(...wrapLine('  '.repeat(depth) + renderInline(raw.trim(), colour, links), width, '  '.repeat(depth)));
          }
        }
        break;
      }
      case 'para': {
        // Markdown joins soft line breaks; a trailing two spaces or backslash is a hard break.
        const joined = block.lines.map((l, idx) => (idx < block.lines.length - 1 && / {2,}$|\\$/.test(l) ? l.replace(/( {2,}|\\)$/, '\n') : l + ' ')).join('');
        for (const l of renderInline(joined.trim(), colour, links).split('\n')) out.push(...wrapLine(l.trim(), width));
        break;
      }
    }
    lastBlank = false;
  }
  while (out.length && out[out.length - 1] === '') out.pop();
  return out;
}

export function renderMarkdown(src: string, opts: MarkdownOptions): string {
  const colour = opts.colour !== false;
  // Links ride on SGR codes while the text is wrapped: none without colour.
  const links = opts.hyperlinks && colour ? new LinkTable() : undefined;
  const lines = renderBlocks(src, Math.max(20, opts.width), colour, links, opts.wholeUrls ?? false);
  return (links ? applyLinks(lines, links, linkOpen, LINK_CLOSE) : lines).join('\n');
}

/** Plain wrapping of text that is still streaming (no markup applied yet). */
export function wrapPlain(text: string, width: number): string {
  return text
    .split('\n')
    .map((l) => wrapWords(l, Math.max(20, width)).join('\n'))
    .join('\n');
}
