/**
 * Markdown's block structure, shared by the screen's renderer (src/ui/text/markdown.ts) and by
 * `/copy code` (code-blocks.ts), so the code blocks a user sees are the ones counted. A compact
 * subset of CommonMark/GFM: headings, paragraphs, fenced code, lists, quotes, rules, tables.
 * Code keeps its lines exactly as written (tabs too); the other blocks have tabs as 4 spaces.
 */
export interface Block {
  kind: 'heading' | 'para' | 'code' | 'list' | 'quote' | 'rule' | 'table' | 'blank';
  lines: string[];
  level?: number;
  /** Code: the first word of the info string ('' when none). */
  lang?: string;
  /** Code: false when the text ended before the closing fence. */
  closed?: boolean;
}

/**
 * Quotes inside quotes are read as quotes down to this depth; deeper `>` are text. Each level is
 * read again from its lines (and drawn two columns narrower), so 10,000 levels ran out of stack.
 */
export const MAX_QUOTE_DEPTH = 32;

export interface Fence {
  char: '`' | '~';
  length: number;
  /** Spaces before the opening fence: removed (at most that many) from each line of the code. */
  indent: number;
  info: string;
}

/** The code fence `line` opens, if it is one: 3+ backticks or tildes indented at most 3 spaces (a backtick fence's info has no backtick). */
function openFence(line: string): Fence | undefined {
  const m = /^( {0,3})(`{3,}|~{3,})(.*)$/.exec(line);
  if (!m) return undefined;
  const marker = m[2]!;
  const info = m[3]!.trim();
  if (marker[0] === '`' && info.includes('`')) return undefined;
  return { char: marker[0] as '`' | '~', length: marker.length, indent: m[1]!.length, info };
}

/** Whether `line` closes `fence`: the same character, at least as many, indented at most 3 spaces, nothing after. */
function closesFence(line: string, fence: Fence): boolean {
  const m = /^ {0,3}(`{3,}|~{3,})[ \t]*$/.exec(line);
  return m !== null && m[1]![0] === fence.char && m[1]!.length >= fence.length;
}

const LIST_ITEM = /^(\s*)([-*+]|\d{1,9}[.)])\s+(.*)$/;
const TABLE_SEP = /^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$/;
const expandTabs = (line: string) => (line.includes('\t') ? line.replace(/\t/g, '    ') : line);

/** The cells of a table row (outer pipes dropped, `\|` kept as a pipe). */
export function splitRow(row: string): string[] {
  let r = row.trim();
  if (r.startsWith('|')) r = r.slice(1);
  if (r.endsWith('|') && !r.endsWith('\\|')) r = r.slice(0, -1);
  return r.split(/(?<!\\)\|/).map((c) => c.trim().replace(/\\\|/g, '|'));
}

function isTableStart(line: string, next: string | undefined): boolean {
  if (!line.includes('|') || next === undefined || !TABLE_SEP.test(next)) return false;
  if (!next.includes('|') && !/^\s*:?-+:?\s*$/.test(next)) return false;
  return splitRow(line).length === splitRow(next).length;
}

export function parseBlocks(src: string): Block[] {
  const raw = src.split(/\r?\n/);
  const lines = raw.map(expandTabs);
  const blocks: Block[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    const fence = openFence(line);
    if (fence) {
      const body: string[] = [];
      i++;
      while (i < lines.length && !closesFence(lines[i]!, fence)) {
        const l = raw[i++]!;
        body.push(l.slice(Math.min(fence.indent, /^ */.exec(l)![0].length)));
      }
      const closed = i < lines.length;
      if (!closed && body.length > 0 && body[body.length - 1] === '') body.pop(); // the newline that ended the text
      i++;
      blocks.push({ kind: 'code', lines: body, lang: /^[^\s`]*/.exec(fence.info)![0], closed });
      continue;
    }
    if (line.trim() === '') {
      blocks.push({ kind: 'blank', lines: [] });
      i++;
      continue;
    }
    const heading = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/.exec(line);
    if (heading) {
      blocks.push({ kind: 'heading', lines: [heading[2] ?? ''], level: heading[1]!.length });
      i++;
      continue;
    }
    if (/^ {0,3}([-*_])(\s*\1){2,}\s*$/.test(line)) {
      blocks.push({ kind: 'rule', lines: [] });
      i++;
      continue;
    }
    if (isTableStart(line, lines[i + 1])) {
      const rows = [line, lines[i + 1]!];
      i += 2;
      while (i < lines.length && lines[i]!.includes('|') && lines[i]!.trim() !== '') rows.push(lines[i++]!);
      blocks.push({ kind: 'table', lines: rows });
      continue;
    }
    if (/^ {0,3}>/.test(line)) {
      const body: string[] = [];
      while (i < lines.length && /^ {0,3}>/.test(lines[i]!)) body.push(raw[i++]!.replace(/^ {0,3}> ?/, ''));
      blocks.push({ kind: 'quote', lines: body });
      continue;
    }
    if (LIST_ITEM.test(line)) {
      const body: string[] = [];
      while (
        i < lines.length &&
        lines[i]!.trim() !== '' &&
        (body.length === 0 || !openFence(lines[i]!)) &&
        (LIST_ITEM.test(lines[i]!) || /^\s+\S/.test(lines[i]!) || body.length === 0)
      ) {
        body.push(lines[i++]!);
      }
      blocks.push({ kind: 'list', lines: body });
      continue;
    }
    const body: string[] = [];
    while (
      i < lines.length &&
      lines[i]!.trim() !== '' &&
      !openFence(lines[i]!) &&
      !/^ {0,3}(#{1,6}(\s|$)|>)/.test(lines[i]!) &&
      !(body.length > 0 && LIST_ITEM.test(lines[i]!) && !/^\s*\d/.test(lines[i]!))
    ) {
      body.push(lines[i++]!);
    }
    if (body.length === 0) body.push(lines[i++]!);
    blocks.push({ kind: 'para', lines: body });
  }
  return blocks;
}
