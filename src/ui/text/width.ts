/** Terminal cell widths without dependencies: ANSI stripped, East Asian wide characters count two, combining marks none. */
const ANSI = /\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)/g;

export const stripAnsi = (s: string): string => s.replace(ANSI, '');

export function charWidth(cp: number): number {
  if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0)) return 0;
  if ((cp >= 0x300 && cp <= 0x36f) || (cp >= 0x200b && cp <= 0x200f) || (cp >= 0xfe00 && cp <= 0xfe0f)) return 0;
  if (
    (cp >= 0x1100 && cp <= 0x115f) ||
    (cp >= 0x2e80 && cp <= 0xa4cf && cp !== 0x303f) ||
    (cp >= 0xac00 && cp <= 0xd7a3) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0xfe30 && cp <= 0xfe4f) ||
    (cp >= 0xff00 && cp <= 0xff60) ||
    (cp >= 0xffe0 && cp <= 0xffe6) ||
    (cp >= 0x1f300 && cp <= 0x1faff) ||
    (cp >= 0x20000 && cp <= 0x3fffd)
  ) {
    return 2;
  }
  return 1;
}

export function textWidth(s: string): number {
  let w = 0;
  for (const ch of stripAnsi(s)) w += charWidth(ch.codePointAt(0)!);
  return w;
}

/** How many terminal rows `text` takes at `columns` (each line wraps on its own). */
export function rowsFor(text: string, columns: number): number {
  if (!text) return 0;
  let rows = 0;
  for (const line of text.split('\n')) rows += Math.max(1, Math.ceil(textWidth(line) / Math.max(1, columns)));
  return rows;
}

/**
 * Word-wrap one line that may hold SGR colour codes, to `width` cells. `indent` is put in front of
 * continuation lines (hanging indent for list items and quotes). Words longer than the width are cut.
 */
export function wrapLine(line: string, width: number, indent = ''): string[] {
  width = Math.max(4, width);
  if (textWidth(line) <= width) return [line];
  const out: string[] = [];
  const indentW = textWidth(indent);
  // Tokens: ANSI codes (zero width), spaces, words.
  const tokens = line.match(/\x1b\[[0-9;]*m|\s+|[^\s\x1b]+|\x1b/g) ?? [];
  let cur = '';
  let curW = 0;
  let active = ''; // SGR codes in effect, to carry over a break
  const push = () => {
    out.push(cur.replace(/\s+$/, '') + (active ? '\x1b[0m' : ''));
    cur = indent + active;
    curW = indentW;
  };
  for (const tok of tokens) {
    if (tok.startsWith('\x1b[')) {
      cur += tok;
      active = tok === '\x1b[0m' || tok === '\x1b[m' ? '' : active + tok;
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
      for (const ch of tok) {
        const cw = charWidth(ch.codePointAt(0)!);
        if (curW + cw > width) push();
        cur += ch;
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
