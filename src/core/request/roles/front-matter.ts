import { requestText } from '../../i18n/messages/request.js';
/**
 * The small front matter a role file starts with, parsed strictly (a typo is an error with its
 * line number, never silently ignored):
 *
 *   ---
 *   description: Clinical notes into a SOAP note
 *   thinking: off
 *   schema: |
 *     { "type": "object", … }
 *   ---
 *   The system prompt…
 *
 * Between the `---` lines: blank lines, `# comments`, `key: value` (a value in matching single or
 * double quotes has them removed), and `key: |` followed by lines indented by at least two
 * spaces (a block, dedented). Keys are lower-case words with `-` or `_`. Nothing else: no nesting,
 * no lists, no anchors. A file without a first `---` line is all body.
 */
interface FrontMatter {
  meta: Record<string, string>;
  body: string;
}

export class FrontMatterError extends Error {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(requestText.frontMatterLine(line, message));
    this.name = 'FrontMatterError';
  }
}

const KEY_LINE = /^([a-z][a-z0-9_-]*)[ \t]*:(?:[ \t]+(.*?))?[ \t]*$/;

export function parseFrontMatter(text: string): FrontMatter {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  if (lines[0]?.trimEnd() !== '---') return { meta: {}, body: text.replace(/^\uFEFF/, '').trim() };
  const meta: Record<string, string> = {};
  let i = 1;
  for (;;) {
    if (i >= lines.length) throw new FrontMatterError(1, requestText.frontMatterUnclosed);
    const line = lines[i]!;
    const n = i + 1;
    if (line.trimEnd() === '---') break;
    if (!line.trim() || /^\s*#/.test(line)) {
      i++;
      continue;
    }
    if (/^\s/.test(line)) throw new FrontMatterError(n, requestText.frontMatterIndented);
    const m = KEY_LINE.exec(line);
    if (!m) throw new FrontMatterError(n, requestText.frontMatterNotKey(line.trim().slice(0, 60)));
    const key = m[1]!;
    if (Object.hasOwn(meta, key)) throw new FrontMatterError(n, requestText.frontMatterTwice(key));
    const value = m[2] ?? '';
    i++;
    if (value === '|') {
      const block: string[] = [];
      while (i < lines.length && (lines[i]!.trim() === '' || /^ {2}/.test(lines[i]!)) && lines[i]!.trimEnd() !== '---') {
        block.push(lines[i]!);
        i++;
      }
      while (block.length && !block[block.length - 1]!.trim()) block.pop();
      if (!block.length) throw new FrontMatterError(n, requestText.frontMatterEmptyBlock(key));
      const indent = Math.min(...block.filter((l) => l.trim()).map((l) => /^ */.exec(l)![0].length));
      meta[key] = block.map((l) => l.slice(indent)).join('\n');
      continue;
    }
    meta[key] = unquote(value);
  }
  return { meta, body: lines.slice(i + 1).join('\n').trim() };
}

function unquote(v: string): string {
  if (v.length >= 2 && ((v.startsWith('"') && v.endsWith('"')) || (v.startsWith("'") && v.endsWith("'")))) return v.slice(1, -1);
  return v;
}
