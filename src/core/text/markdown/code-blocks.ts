import { MAX_QUOTE_DEPTH, parseBlocks } from './blocks.js';

/** A fenced code block of an answer, its text exactly as written (no fence, no colour, no wrapping). */
interface CodeBlock {
  /** The info string's first word ('' when none). */
  lang: string;
  /** The lines between the fences, joined by '\n' (no newline at the end). */
  code: string;
  /** False when the answer ended before the closing fence. */
  closed: boolean;
}

/** The fenced code blocks of `markdown`, in order, including those inside quotes (the same blocks the screen draws as code). */
export function codeBlocks(markdown: string, depth = 0): CodeBlock[] {
  const out: CodeBlock[] = [];
  for (const b of parseBlocks(markdown)) {
    if (b.kind === 'code') out.push({ lang: b.lang ?? '', code: b.lines.join('\n'), closed: b.closed !== false });
    else if (b.kind === 'quote' && depth < MAX_QUOTE_DEPTH) for (const c of codeBlocks(b.lines.join('\n'), depth + 1)) out.push(c);
  }
  return out;
}
