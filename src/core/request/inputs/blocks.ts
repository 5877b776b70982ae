import type { InputFile } from './files.js';

/**
 * How a file travels in the question: a label line with its name, then its text in a code fence
 * one backtick longer than the longest run of backticks inside it (at least three), so a file
 * holding Markdown fences cannot end the block early.
 *
 *   File: labs.csv
 *   ```
 *   …
 *   ```
 */
export function fileBlock(file: InputFile): string {
  const fence = '`'.repeat(Math.max(3, longestRun(file.text, '`') + 1));
  const body = file.text.trimEnd(); // (not /\s+$/: tried from every space of a long run, that was quadratic)
  return `File: ${file.name}\n${fence}\n${body}\n${fence}`;
}

/** The longest run of `ch` in `text` (one pass; a file may hold 400,000 runs: no spread into Math.max). */
function longestRun(text: string, ch: string): number {
  let longest = 0;
  for (let i = text.indexOf(ch); i >= 0; i = text.indexOf(ch, i)) {
    let end = i + 1;
    while (text[end] === ch) end++;
    if (end - i > longest) longest = end - i;
    i = end;
  }
  return longest;
}

/** The user message: the files (in the order given), then piped text, then the question. */
export function composeQuestion(parts: { files?: readonly InputFile[]; stdin?: string; prompt?: string }): string {
  const out: string[] = [];
  for (const f of parts.files ?? []) out.push(fileBlock(f));
  const s = parts.stdin?.trim() ? parts.stdin.trimEnd() : '';
  if (s) out.push(s);
  if (parts.prompt?.trim()) out.push(parts.prompt);
  return out.join('\n\n');
}
