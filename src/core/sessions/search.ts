/**
 * Search the saved conversations (`medchat sessions search`, `/sessions WORDS`).
 *
 * The match rule: a conversation matches when every word occurs in its questions and answers
 * (and reasoning, when asked for), each anywhere, as part of a word too ("diabet" finds
 * "diabetic"); case and accents do not count ("resume" and "RÉSUMÉ" find "Résumé"; "œ" and "ß"
 * are letters of their own). Text is compared folded: decomposed (NFD), the combining accents
 * U+0300–U+036F dropped, lower-cased.
 *
 * How it is fast: sessions are scanned newest first (by their file's last save) and reading
 * stops once `limit` conversations matched and one more showed there are more. Each file's raw
 * bytes go through a byte-level pre-filter first (one regular expression per word over the
 * bytes read as latin1: every letter with its upper case and the UTF-8 bytes of every accented
 * letter that folds to it, each optionally followed by combining accents), which never says no
 * where the folded comparison would say yes; only files that pass are parsed. Nothing is
 * written: the bytes come from SessionStore.readRaw, the one read of a session's bytes.
 */
import { sanitizeLine } from '../text/sanitize.js';
import { formatListTime } from '../text/format.js';
import { SESSION_FORMAT } from './session-data.js';
import type { SessionStore } from './store.js';
import { HistoryKeyError, SealedFileError } from './history-crypto.js';

export interface SearchOptions {
  /** The words, as typed (split on white space; each folded). */
  words: string[];
  /** Only conversations last saved at or after this time (ms since the epoch). */
  since?: number;
  /** Only conversations recorded with this role (case-insensitive). */
  role?: string;
  /** Search the reasoning too. */
  reasoning?: boolean;
  /** At most this many conversations (0: all). Default 20. */
  limit?: number;
  /** At most this many lines kept per conversation (the best first). Default 5. */
  linesPerConversation?: number;
  /** How many characters of a line an excerpt keeps at most (columns, wide characters count 2). Default 200. */
  excerptWidth?: number;
}

export type SearchPart = 'question' | 'answer' | 'reasoning';

export interface SearchLine {
  /** 1 for the first turn. */
  turn: number;
  part: SearchPart;
  /** The line around its first match, at most `excerptWidth` columns, safe for a terminal (one line, controls shown). */
  excerpt: string;
  /** How many of the words this line holds. */
  words: number;
}

export interface SearchHit {
  id: string;
  title: string;
  /** The file's last save (ISO). */
  lastActivity: string;
  role?: string;
  turns: number;
  /** The best lines: most words first, then the earliest. */
  lines: SearchLine[];
  /** How many lines hold at least one word. */
  matchingLines: number;
}

export interface SearchResult {
  hits: SearchHit[];
  /** More conversations match than `limit`. */
  more: boolean;
  /** Sessions read (past the pre-filter or not). */
  read: number;
  /** Sessions that could not be read (damaged, too big, not a file). */
  unreadable: number;
}

const DEFAULT_LIMIT = 20;

/** Text as it is compared: NFD, combining accents (U+0300–U+036F) dropped, lower case. */
export function foldText(text: string): string {
  return text.normalize('NFD').replace(/[\u0300-\u036f]/g, '').toLowerCase();
}

/** The words to look for: split on white space, folded, each once; empty ones dropped. */
export function searchWords(words: string[]): string[] {
  const out = new Set<string>();
  for (const w of words) for (const part of w.split(/\s+/)) if (part) out.add(foldText(part));
  out.delete('');
  return [...out];
}

let reverse: Map<string, string[]> | undefined;
/** Every BMP character whose fold is one character, by that character (built once, ~25 ms). */
function foldsTo(c: string): string[] {
  if (!reverse) {
    reverse = new Map();
    for (let cp = 0x80; cp < 0x10000; cp++) {
      if (cp >= 0xd800 && cp < 0xe000) continue;
      const ch = String.fromCharCode(cp);
      const f = foldText(ch);
      if (f === ch || f.length !== 1) continue;
      let list = reverse.get(f);
      if (!list) reverse.set(f, (list = []));
      list.push(ch);
    }
  }
  return reverse.get(c) ?? [];
}

const hex = (b: number) => '\\x' + b.toString(16).padStart(2, '0');
/** Optional combining accents (U+0300–U+036F: UTF-8 CC 80 – CD AF) after a character. */
const MARKS = '(?:\\xcc[\\x80-\\xbf]|\\xcd[\\x80-\\xaf])*';

/** The latin1 pattern of one folded character: itself, its upper case, and every character folding to it, as UTF-8 bytes. */
function bytePattern(c: string): string {
  // More forms than needed only lets more files through to the exact comparison; none may be missing.
  const forms = new Set<string>([c, c.toUpperCase(), ...foldsTo(c)]);
  // Group the UTF-8 encodings by every byte but the last: \xc3[\xa8-\xab] rather than four alternatives.
  const byPrefix = new Map<string, number[]>();
  for (const form of forms) {
    const bytes = Buffer.from(form, 'utf8');
    const prefix = [...bytes.subarray(0, bytes.length - 1)].map(hex).join('');
    let lasts = byPrefix.get(prefix);
    if (!lasts) byPrefix.set(prefix, (lasts = []));
    lasts.push(bytes[bytes.length - 1]!);
  }
  const parts = [...byPrefix].map(([prefix, lasts]) => prefix + (lasts.length === 1 ? hex(lasts[0]!) : `[${lasts.sort((a, b) => a - b).map(hex).join('')}]`));
  return parts.length === 1 ? parts[0]! : `(?:${parts.join('|')})`;
}

/**
 * A pre-filter per word over a session file's bytes read as latin1: undefined where the word
 * cannot be looked for in the raw JSON as it is (it holds `"`, `\` or a control character, which
 * JSON escapes), so any file passes for that word.
 */
export function prefilters(words: string[]): (RegExp | undefined)[] {
  return words.map((w) => {
    if (/["\\\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(w)) return undefined;
    let source = '';
    for (const c of w) source += bytePattern(c) + MARKS;
    return new RegExp(source, 'g');
  });
}

/** A line of a session file as medchat writes it (JSON.stringify with an indent: one key a line), up to its value. */
const KEY_LINE = / *"([A-Za-z_]+)": /y;

/**
 * Whether a file's bytes may hold every word in the searched texts (false only when one surely
 * is not there). A session file has one key a line (line breaks inside texts are escaped), so a
 * match on a line that starts with another key (`"status": "complete"`, `"reasoning"` itself)
 * does not count; a line that starts otherwise (a file written without the indent) always does.
 */
export function mayMatch(raw: Buffer, filters: (RegExp | undefined)[], keys: ReadonlySet<string> = TEXT_KEYS): boolean {
  if (filters.every((f) => f === undefined)) return true;
  const text = raw.toString('latin1');
  return filters.every((f) => f === undefined || inTexts(text, f, keys));
}

const TEXT_KEYS: ReadonlySet<string> = new Set(['user', 'answer']);
const TEXT_KEYS_REASONING: ReadonlySet<string> = new Set(['user', 'answer', 'reasoning']);

function inTexts(text: string, re: RegExp, keys: ReadonlySet<string>): boolean {
  re.lastIndex = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const lineStart = text.lastIndexOf('\n', m.index) + 1;
    KEY_LINE.lastIndex = lineStart;
    const key = KEY_LINE.exec(text);
    if (!key || keys.has(key[1]!)) return true;
    const next = text.indexOf('\n', m.index);
    if (next < 0) return false;
    re.lastIndex = next + 1;
  }
  return false;
}

interface RawTurn {
  user?: unknown;
  answer?: unknown;
  reasoning?: unknown;
}

/** Search `store`'s sessions, newest first. */
export function searchSessions(store: SessionStore, o: SearchOptions): SearchResult {
  const words = searchWords(o.words);
  const limit = o.limit === undefined ? DEFAULT_LIMIT : o.limit;
  const keep = o.linesPerConversation ?? 5;
  const width = o.excerptWidth ?? 200;
  const role = o.role?.trim().toLowerCase();
  const result: SearchResult = { hits: [], more: false, read: 0, unreadable: 0 };
  if (words.length === 0) return result;
  const filters = prefilters(words);
  for (const { id, mtimeMs } of store.byActivity()) {
    if (o.since !== undefined && mtimeMs < o.since) break; // newest first: all the rest are older
    let raw: Buffer;
    try {
      raw = store.readRaw(id);
    } catch (err) {
      if (err instanceof HistoryKeyError && !(err instanceof SealedFileError)) throw err; // encrypted history without its master key: one line, exit 2
      result.unreadable++;
      continue;
    }
    result.read++;
    if (!mayMatch(raw, filters, o.reasoning ? TEXT_KEYS_REASONING : TEXT_KEYS)) continue;
    let data: { format?: unknown; title?: unknown; role?: unknown; turns?: unknown };
    try {
      data = JSON.parse(raw.toString('utf8')) as typeof data;
    } catch {
      result.unreadable++;
      continue;
    }
    if (!data || data.format !== SESSION_FORMAT || !Array.isArray(data.turns)) {
      result.unreadable++;
      continue;
    }
    const sessionRole = typeof data.role === 'string' ? data.role : undefined;
    if (role !== undefined && sessionRole?.toLowerCase() !== role) continue;
    const hit = matchTurns(data.turns as RawTurn[], words, { reasoning: Boolean(o.reasoning), keep, width });
    if (!hit) continue;
    if (limit > 0 && result.hits.length === limit) {
      result.more = true;
      break;
    }
    result.hits.push({
      id,
      title: typeof data.title === 'string' ? data.title : '',
      lastActivity: new Date(mtimeMs).toISOString(),
      ...(sessionRole ? { role: sessionRole } : {}),
      turns: data.turns.length,
      ...hit,
    });
  }
  return result;
}

/** The lines of one conversation that hold the words, when together they hold all of them. */
function matchTurns(turns: RawTurn[], words: string[], o: { reasoning: boolean; keep: number; width: number }): Pick<SearchHit, 'lines' | 'matchingLines'> | undefined {
  const found = new Set<string>();
  const candidates: { turn: number; part: SearchPart; line: string; folded: string; words: number }[] = [];
  let matchingLines = 0;
  const parts: [SearchPart, keyof RawTurn][] = [['question', 'user'], ['answer', 'answer']];
  if (o.reasoning) parts.push(['reasoning', 'reasoning']);
  turns.forEach((t, i) => {
    if (!t || typeof t !== 'object') return;
    for (const [part, key] of parts) {
      const text = t[key];
      if (typeof text !== 'string' || !text) continue;
      const folded = foldText(text);
      if (!words.some((w) => folded.includes(w))) continue;
      // Folding keeps every line break, so the folded lines are the text's lines, one for one.
      const lines = text.split('\n');
      const foldedLines = folded.split('\n');
      foldedLines.forEach((fl, j) => {
        let n = 0;
        for (const w of words) {
          if (fl.includes(w)) {
            n++;
            found.add(w);
          }
        }
        if (n === 0) return;
        matchingLines++;
        candidates.push({ turn: i + 1, part, line: lines[j] ?? '', folded: fl, words: n });
      });
    }
  });
  if (found.size < words.length) return undefined;
  // The best lines: most words first, then in the conversation's order (sort is stable).
  const best = candidates.sort((a, b) => b.words - a.words).slice(0, Math.max(1, o.keep));
  return {
    lines: best.map((c) => ({ turn: c.turn, part: c.part, words: c.words, excerpt: excerpt(c.line, c.folded, words, o.width) })),
    matchingLines,
  };
}

/** Columns a code point takes: 0 for combining marks, 2 for wide (East Asian, emoji), else 1. */
function columnsOf(cp: number): number {
  if ((cp >= 0x300 && cp <= 0x36f) || (cp >= 0x200b && cp <= 0x200d) || (cp >= 0xfe00 && cp <= 0xfe0f)) return 0;
  if (
    (cp >= 0x1100 && cp <= 0x115f) ||
    (cp >= 0x2e80 && cp <= 0xa4cf) ||
    (cp >= 0xac00 && cp <= 0xd7a3) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0xfe30 && cp <= 0xfe4f) ||
    (cp >= 0xff00 && cp <= 0xff60) ||
    (cp >= 0xffe0 && cp <= 0xffe6) ||
    (cp >= 0x1f300 && cp <= 0x1faff) ||
    cp >= 0x20000
  )
    return 2;
  return 1;
}

/** How many columns `text` takes (see columnsOf). */
export function textColumns(text: string): number {
  let n = 0;
  for (const ch of text) n += columnsOf(ch.codePointAt(0)!);
  return n;
}

/** `text` cut to at most `width` columns, ending in … when cut. */
export function cutToColumns(text: string, width: number): string {
  if (width <= 0) return '';
  let used = 0;
  let out = '';
  for (const ch of text) {
    const w = columnsOf(ch.codePointAt(0)!);
    if (used + w > width) {
      // Room for the ellipsis: drop characters until it fits.
      const chars = [...out];
      while (chars.length && used + 1 > width) used -= columnsOf(chars.pop()!.codePointAt(0)!);
      return chars.join('') + '…';
    }
    used += w;
    out += ch;
  }
  return out;
}

/**
 * One line around its first match, made safe for a terminal and one line (controls and escape
 * sequences shown, never obeyed; tabs and runs of spaces made one space), at most `width`
 * columns: a third of the room before the match, `…` where it was cut.
 */
export function excerpt(line: string, folded: string, words: readonly string[], width: number): string {
  let at = -1;
  for (const w of words) {
    const i = folded.indexOf(w);
    if (i >= 0 && (at < 0 || i < at)) at = i;
  }
  // Where the match starts in the line itself: fold character by character until as far.
  let start = 0;
  if (at > 0) {
    let foldedSoFar = 0;
    for (const ch of line) {
      if (foldedSoFar >= at) break;
      foldedSoFar += foldText(ch).length;
      start += ch.length;
    }
  }
  const before = sanitizeLine(line.slice(0, start)).replace(/\s+/g, ' ').trimStart();
  const rest = sanitizeLine(line.slice(start)).replace(/\s+/g, ' ').trimEnd();
  const room = Math.max(8, width);
  if (textColumns(before) + textColumns(rest) <= room) return before + rest;
  const lead = Math.floor(room / 3);
  let head = before;
  if (textColumns(before) > lead) {
    // Keep the end of what comes before the match: drop characters from its start.
    const chars = [...before];
    let cols = textColumns(before);
    while (chars.length && cols > lead - 1) cols -= columnsOf(chars.shift()!.codePointAt(0)!);
    head = '…' + chars.join('');
  }
  return head + cutToColumns(rest, room - textColumns(head));
}

/** A hit as lines for a terminal: the conversation, then its best line(s) indented, at most `width` columns each. */
export function hitLines(hit: SearchHit, o: { width: number; lines?: number }): string[] {
  const width = Math.max(20, o.width);
  const head = `${hit.id}  ${formatListTime(hit.lastActivity)}  ${sanitizeLine(hit.title)}`;
  const out = [cutToColumns(head, width)];
  const shown = hit.lines.slice(0, o.lines ?? 1);
  for (const l of shown) {
    const label = `  turn ${l.turn} ${l.part}: `;
    out.push(label + cutToColumns(l.excerpt, width - label.length));
  }
  const others = hit.matchingLines - shown.length;
  if (others > 0) out.push(`  (${others} more matching ${others === 1 ? 'line' : 'lines'})`);
  return out;
}
