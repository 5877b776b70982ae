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
  const longest = Math.max(0, ...[...file.text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  const body = file.text.replace(/\s+$/, '');
  return `File: ${file.name}\n${fence}\n${body}\n${fence}`;
}

/** The user message: the files (in the order given), then piped text, then the question. */
export function composeQuestion(parts: { files?: readonly InputFile[]; stdin?: string; prompt?: string }): string {
  const out: string[] = [];
  for (const f of parts.files ?? []) out.push(fileBlock(f));
  const s = parts.stdin?.trim() ? parts.stdin.replace(/\s+$/, '') : '';
  if (s) out.push(s);
  if (parts.prompt?.trim()) out.push(parts.prompt);
  return out.join('\n\n');
}
