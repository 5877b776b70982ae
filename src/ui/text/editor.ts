/**
 * The input box as plain data: the text, the cursor (a UTF-16 index), and the pastes that are
 * shown as `[pasted N lines]` but sent in full. Every edit is a pure function returning a new state.
 */
import { clusterEnd, clusterStart, indexAtWidth, textWidth } from '../../core/text/width.js';

export interface EditorState {
  text: string;
  cursor: number;
  /** Placeholder text shown in the box -> the pasted text it stands for. */
  pastes: ReadonlyMap<string, string>;
}

export const emptyEditor = (): EditorState => ({ text: '', cursor: 0, pastes: new Map() });

export const fromText = (text: string): EditorState => ({ text, cursor: text.length, pastes: new Map() });

/** Pastes with more lines than this show as a placeholder. */
export const PASTE_FOLD_LINES = 8;

export function insert(s: EditorState, str: string): EditorState {
  const text = s.text.slice(0, s.cursor) + str + s.text.slice(s.cursor);
  return { ...s, text, cursor: s.cursor + str.length };
}

/** Lines in a text as a person counts them: a newline at the very end does not start another. */
export const lineCount = (text: string): number => (text === '' ? 0 : text.replace(/\n$/, '').split('\n').length);

export function insertPaste(s: EditorState, raw: string): EditorState {
  const text = raw.replace(/\r\n?/g, '\n');
  const lines = lineCount(text);
  if (lines <= PASTE_FOLD_LINES) return insert(s, text);
  let label = `[pasted ${lines} lines]`;
  for (let n = 2; s.pastes.has(label) || s.text.includes(label); n++) label = `[pasted ${lines} lines #${n}]`;
  const pastes = new Map(s.pastes);
  pastes.set(label, text);
  return insert({ ...s, pastes }, label);
}

/** What is sent: the text with each paste placeholder replaced by what was pasted. */
export function expandedText(s: EditorState): string {
  let out = s.text;
  for (const [label, body] of s.pastes) out = out.split(label).join(body);
  return out;
}

function placeholderEndingAt(s: EditorState, pos: number): string | undefined {
  for (const label of s.pastes.keys()) if (s.text.slice(pos - label.length, pos) === label) return label;
  return undefined;
}
function placeholderStartingAt(s: EditorState, pos: number): string | undefined {
  for (const label of s.pastes.keys()) if (s.text.startsWith(label, pos)) return label;
  return undefined;
}

/** Moves and deletes go by grapheme cluster: one glyph on screen (an emoji sequence, a letter with its marks). */
const prevCharLen = (text: string, pos: number) => pos - clusterStart(text, pos);
const nextCharLen = (text: string, pos: number) => clusterEnd(text, pos) - pos;

function remove(s: EditorState, from: number, to: number): EditorState {
  if (from >= to) return s;
  const text = s.text.slice(0, from) + s.text.slice(to);
  const pastes = new Map([...s.pastes].filter(([label]) => text.includes(label)));
  return { text, cursor: from, pastes };
}

export function backspace(s: EditorState): EditorState {
  if (s.cursor === 0) return s;
  const label = placeholderEndingAt(s, s.cursor);
  return remove(s, s.cursor - (label?.length ?? prevCharLen(s.text, s.cursor)), s.cursor);
}

export function deleteForward(s: EditorState): EditorState {
  if (s.cursor >= s.text.length) return s;
  const label = placeholderStartingAt(s, s.cursor);
  return remove(s, s.cursor, s.cursor + (label?.length ?? nextCharLen(s.text, s.cursor)));
}

export const left = (s: EditorState): EditorState => ({ ...s, cursor: Math.max(0, s.cursor - prevCharLen(s.text, s.cursor)) });
export const right = (s: EditorState): EditorState => ({ ...s, cursor: Math.min(s.text.length, s.cursor + nextCharLen(s.text, s.cursor)) });

const lineStart = (s: EditorState) => s.text.lastIndexOf('\n', s.cursor - 1) + 1;
const lineEnd = (s: EditorState) => {
  const i = s.text.indexOf('\n', s.cursor);
  return i === -1 ? s.text.length : i;
};

export const home = (s: EditorState): EditorState => ({ ...s, cursor: lineStart(s) });
export const end = (s: EditorState): EditorState => ({ ...s, cursor: lineEnd(s) });

const isWord = (ch: string | undefined) => ch !== undefined && /[\p{L}\p{N}_]/u.test(ch);

function wordStartBefore(text: string, pos: number): number {
  let i = pos;
  while (i > 0 && !isWord(text[i - 1])) i--;
  while (i > 0 && isWord(text[i - 1])) i--;
  return i;
}
function wordEndAfter(text: string, pos: number): number {
  let i = pos;
  while (i < text.length && !isWord(text[i])) i++;
  while (i < text.length && isWord(text[i])) i++;
  return i;
}

export const wordLeft = (s: EditorState): EditorState => ({ ...s, cursor: wordStartBefore(s.text, s.cursor) });
export const wordRight = (s: EditorState): EditorState => ({ ...s, cursor: wordEndAfter(s.text, s.cursor) });

/** Ctrl+W: delete the word before the cursor (shell style: back to the previous whitespace). */
export function deleteWordBefore(s: EditorState): EditorState {
  const label = placeholderEndingAt(s, s.cursor);
  if (label) return remove(s, s.cursor - label.length, s.cursor);
  let i = s.cursor;
  while (i > 0 && /\s/.test(s.text[i - 1]!)) i--;
  while (i > 0 && !/\s/.test(s.text[i - 1]!)) i--;
  return remove(s, i, s.cursor);
}
/** Alt+D: delete the word after the cursor. */
export const deleteWordAfter = (s: EditorState): EditorState => remove(s, s.cursor, wordEndAfter(s.text, s.cursor));

/** Ctrl+U: delete from the start of the line to the cursor (or the newline before, at a line start). */
export function killToLineStart(s: EditorState): EditorState {
  const start = lineStart(s);
  return start === s.cursor && s.cursor > 0 ? remove(s, s.cursor - 1, s.cursor) : remove(s, start, s.cursor);
}
/** Ctrl+K: delete from the cursor to the end of the line (or the newline, at a line end). */
export function killToLineEnd(s: EditorState): EditorState {
  const stop = lineEnd(s);
  return stop === s.cursor && s.cursor < s.text.length ? remove(s, s.cursor, s.cursor + 1) : remove(s, s.cursor, stop);
}

/** The cursor's line and column (in terminal cells). */
export function position(s: EditorState): { line: number; col: number; lines: number } {
  const before = s.text.slice(0, s.cursor);
  const line = before.split('\n').length - 1;
  return { line, col: textWidth(before.slice(before.lastIndexOf('\n') + 1)), lines: s.text.split('\n').length };
}

/** Up/Down inside a multi-line draft. Returns undefined at the first/last line (history takes over). */
export function verticalMove(s: EditorState, dir: -1 | 1): EditorState | undefined {
  const { line, col, lines } = position(s);
  const target = line + dir;
  if (target < 0 || target >= lines) return undefined;
  const all = s.text.split('\n');
  let offset = 0;
  for (let i = 0; i < target; i++) offset += all[i]!.length + 1;
  return { ...s, cursor: offset + indexAtWidth(all[target]!, col) };
}
