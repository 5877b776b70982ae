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
 * where the folded comparison would say yes; only files that pass are parsed. Over
 * WORKER_THRESHOLD files or more, after the first pieces (a search that stops early never pays for
 * it), a worker thread (search-worker.ts) reads beside this one: both take the next piece of 16
 * files of the newest-first list (read, decrypt, pre-filter, compare, with this module's own
 * examineFile), and this thread takes the results in order, so the order and the stop at `limit`
 * are the single thread's. Nothing is written: the bytes are read as SessionStore.readRaw reads them
 * (readSessionFile, sessionJson), decrypted in memory only; the worker gets data keys, never the
 * master key.
 */
import { sanitizeLine } from '../text/sanitize.js';
import { clusters, cutToColumns, textWidth } from '../text/width.js';
import { formatListTime } from '../text/format.js';
import { SESSION_FORMAT } from './session-data.js';
import type { SessionStore } from './store.js';
import { HistoryKeyError, openSealedPart, SealedFileError, sessionJson } from './history-crypto.js';
import { readSessionFile } from './store.js';
import fs from 'node:fs';
import { availableParallelism } from 'node:os';
import { createRequire } from 'node:module';
import type { MessagePort, Worker } from 'node:worker_threads';
import { sessionsText } from '../i18n/messages/sessions.js';

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
  /**
   * Spread the reading over a worker thread too: true always, false never, 'all' the worker reads
   * every file (this thread only takes the results in order: the tests' check that the worker finds
   * what one thread finds). Default: when there are WORKER_THRESHOLD files or more and two processors.
   */
  worker?: boolean | 'all';
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
  /** Of `read`, how many a worker thread read (0: the search ran on one thread). */
  inWorker?: number;
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

/** What a search needs to look at one file, made once per search (and once more in the worker, from its `shared` form). */
export interface FileCheck {
  words: string[];
  filters: (RegExp | undefined)[];
  keys: ReadonlySet<string>;
  role: string | undefined;
  reasoning: boolean;
  keep: number;
  width: number;
}

/** A FileCheck as it crosses to the worker (a RegExp does not: its source does). */
export type SharedCheck = Omit<FileCheck, 'filters' | 'keys'> & { filters: (string | undefined)[] };

export function sharedCheck(c: FileCheck): SharedCheck {
  const { filters, keys: _keys, ...rest } = c;
  return { ...rest, filters: filters.map((f) => f?.source) };
}

export function fromShared(c: SharedCheck): FileCheck {
  return { ...c, filters: c.filters.map((f) => (f === undefined ? undefined : new RegExp(f, 'g'))), keys: c.reasoning ? TEXT_KEYS_REASONING : TEXT_KEYS };
}

type Match = Omit<SearchHit, 'id' | 'lastActivity'>;
/**
 * What one file gave: `read` false when it could not be read at all, `unreadable` when it was read
 * but is not a session; `main` when only the main thread can read it (a sealed file whose key the
 * worker was not given: the main thread reads it and says why not, as a single-thread search does).
 */
export type Outcome = { read: boolean; unreadable?: boolean; hit?: Match } | 'main';

/** Look at one session's JSON bytes: the pre-filter, then (only if it passes) the parse and the exact comparison. */
function examine(raw: Buffer, c: FileCheck): Outcome {
  if (!mayMatch(raw, c.filters, c.keys)) return { read: true };
  let data: { format?: unknown; title?: unknown; role?: unknown; turns?: unknown };
  try {
    data = JSON.parse(raw.toString('utf8')) as typeof data;
  } catch {
    return { read: true, unreadable: true };
  }
  if (!data || data.format !== SESSION_FORMAT || !Array.isArray(data.turns)) return { read: true, unreadable: true };
  const sessionRole = typeof data.role === 'string' ? data.role : undefined;
  if (c.role !== undefined && sessionRole?.toLowerCase() !== c.role) return { read: true };
  const hit = matchTurns(data.turns as RawTurn[], c.words, c);
  if (!hit) return { read: true };
  return { read: true, hit: { title: typeof data.title === 'string' ? data.title : '', ...(sessionRole ? { role: sessionRole } : {}), turns: data.turns.length, ...hit } };
}

/** Read one session through the store and look at it (a missing master key throws: one line, exit 2). */
function examineInStore(store: SessionStore, id: string, c: FileCheck): Exclude<Outcome, 'main'> {
  let raw: Buffer;
  try {
    raw = store.readRaw(id);
  } catch (err) {
    if (err instanceof HistoryKeyError && !(err instanceof SealedFileError)) throw err; // encrypted history without its master key: one line, exit 2
    return { read: false };
  }
  return examine(raw, c) as Exclude<Outcome, 'main'>;
}

const NEEDS_MAIN = new Error('main thread'); // i18n-exempt: an internal signal, never shown
/**
 * Read one session file with data keys in hand (the worker, and the main thread beside it): the
 * same read and opening as SessionStore.readRaw, decrypted bytes in memory only.
 */
export function examineFile(file: string, id: string, keys: ReadonlyMap<string, Uint8Array>, c: FileCheck): Outcome {
  let raw: Buffer;
  try {
    raw = sessionJson(readSessionFile(file), id, (body) => {
      const key = keys.get(id);
      if (!key) throw NEEDS_MAIN;
      return openSealedPart(key as Buffer, id, body, 'body', file);
    });
  } catch (err) {
    if (err === NEEDS_MAIN || (err instanceof HistoryKeyError && !(err instanceof SealedFileError))) return 'main';
    return { read: false };
  }
  return examine(raw, c);
}

/** Search `store`'s sessions, newest first. */
export function searchSessions(store: SessionStore, o: SearchOptions): SearchResult {
  const words = searchWords(o.words);
  const limit = o.limit === undefined ? DEFAULT_LIMIT : o.limit;
  const result: SearchResult = { hits: [], more: false, read: 0, unreadable: 0, inWorker: 0 };
  if (words.length === 0) return result;
  const check: FileCheck = {
    words,
    filters: prefilters(words),
    keys: o.reasoning ? TEXT_KEYS_REASONING : TEXT_KEYS,
    role: o.role?.trim().toLowerCase(),
    reasoning: Boolean(o.reasoning),
    keep: o.linesPerConversation ?? 5,
    width: o.excerptWidth ?? 200,
  };
  let entries = store.byActivity();
  if (o.since !== undefined) {
    const since = o.since;
    const older = entries.findIndex((e) => e.mtimeMs < since); // newest first: all the rest are older
    if (older >= 0) entries = entries.slice(0, older);
  }
  /** Take one file's outcome, in order; true once the search is done. */
  const take = (entry: { id: string; mtimeMs: number }, out: Exclude<Outcome, 'main'>): boolean => {
    if (!out.read) {
      result.unreadable++;
      return false;
    }
    result.read++;
    if (out.unreadable) result.unreadable++;
    if (!out.hit) return false;
    if (limit > 0 && result.hits.length === limit) {
      result.more = true;
      return true;
    }
    result.hits.push({ id: entry.id, lastActivity: new Date(entry.mtimeMs).toISOString(), ...out.hit });
    return false;
  };
  const useWorker = o.worker ?? (entries.length >= WORKER_THRESHOLD && availableParallelism() >= 2);
  if (useWorker) searchInPieces(store, entries, check, take, result, useWorker === 'all');
  else for (const entry of entries) if (take(entry, examineInStore(store, entry.id, check))) break;
  return result;
}

/** Fewer files than this are searched without a worker (starting one costs 30-50 ms). */
export const WORKER_THRESHOLD = 200;
/** Pieces this thread reads before it starts a worker: a search that stops within them (most with words found often) never starts one. */
const WORKER_AFTER_PIECES = 8;
/** Files per piece of work: the main thread and the worker each take the next piece, the results are taken in order. */
const CHUNK = 16;
/** The shared counters: the next piece to take, stop (1: the search is done), pieces the worker has posted. */
const NEXT = 0;
const STOP = 1;
const POSTED = 2;
/** Without a word from the worker this long, the main thread reads its piece itself (a worker that died says nothing). */
const WORKER_SILENCE_MS = 2000;
/** The same for `worker: 'all'`, whose worker may still be starting (from source, under tsx, that takes a while). */
const WORKER_ALONE_SILENCE_MS = 30_000;

export interface WorkerData {
  port: MessagePort;
  ctrl: SharedArrayBuffer;
  files: { id: string; file: string }[];
  check: SharedCheck;
  chunk: number;
}
export interface WorkerPiece {
  chunk: number;
  outcomes: Outcome[];
}

/** Where the worker's entry is: beside this module (from source, or the bundle's entry) or one folder up (a bundle chunk). */
function workerEntry(): URL | undefined {
  const here = import.meta.url;
  const ext = here.endsWith('.ts') ? '.ts' : '.js';
  for (const rel of [`./search-worker${ext}`, `../search-worker${ext}`]) {
    const url = new URL(rel, here);
    if (url.protocol === 'file:' && fs.existsSync(url)) return url;
  }
  return undefined;
}

/** A worker started for a search: its port and the thread. */
interface Helper {
  worker: Worker;
  port: MessagePort;
}

/** node:worker_threads, loaded only when a search starts a worker (loading it costs a search that stops early a few ms). */
let threads: typeof import('node:worker_threads') | undefined;
const workerThreads = () => (threads ??= createRequire(import.meta.url)('node:worker_threads') as typeof import('node:worker_threads'));

/** True in the single executable's bundle (build/package.mjs defines it), false in dist/; undefined from source. */
declare const __MEDCHAT_SEA__: boolean;

/**
 * The worker's code in a single executable: one of its assets (build/package.mjs), run from a string since the
 * executable has no files beside it. Undefined anywhere else, or when the asset cannot be read.
 */
function embeddedWorkerCode(): string | undefined {
  if (typeof __MEDCHAT_SEA__ !== 'boolean' || !__MEDCHAT_SEA__) return undefined;
  try {
    const sea = createRequire(import.meta.url)('node:sea') as { getAsset(key: string, encoding: string): string };
    return sea.getAsset('search-worker.js', 'utf8'); // i18n-exempt: the asset's key, named in build/package.mjs
  } catch {
    return undefined;
  }
}

function startWorker(data: Omit<WorkerData, 'port'>): Helper | undefined {
  const code = embeddedWorkerCode();
  const entry = code === undefined ? workerEntry() : undefined;
  if (code === undefined && !entry) return undefined;
  const { MessageChannel, Worker } = workerThreads();
  const { port1, port2 } = new MessageChannel();
  try {
    const workerData: WorkerData = { ...data, port: port2 };
    const worker =
      code !== undefined
        ? new Worker(code, { eval: true, workerData, transferList: [port2] })
        : entry!.href.endsWith('.ts')
          ? // From source (the tests under tsx): a worker does not inherit tsx's hooks, so it registers them before loading the entry.
            // i18n-exempt: the worker's loader code
            new Worker(`import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((m) => { m.register(); return import(${JSON.stringify(entry!.href)}); })`, { eval: true, workerData, transferList: [port2] })
          : new Worker(entry!, { workerData, transferList: [port2] });
    worker.unref();
    worker.on('error', () => {}); // a worker that fails is seen as silence: this thread reads its pieces
    return { worker, port: port1 };
  } catch {
    port1.close();
    return undefined;
  }
}

/**
 * The search over many files, in pieces of the newest-first list: this thread reads the first pieces
 * alone (a search that stops early never starts a worker), then starts a worker and both take the
 * next piece as they go (read, decrypt in memory, pre-filter, compare); this thread takes the results
 * in order, so the order and the stop at `limit` are the single thread's. The worker gets the data
 * keys in memory, never the master key; nothing is written. Without a worker (none could start, or
 * it went quiet) this thread reads every piece itself.
 */
function searchInPieces(
  store: SessionStore,
  entries: { id: string; mtimeMs: number }[],
  check: FileCheck,
  take: (entry: { id: string; mtimeMs: number }, out: Exclude<Outcome, 'main'>) => boolean,
  result: SearchResult,
  workerAlone: boolean,
): void {
  const ids = entries.map((e) => e.id);
  const chunks = Math.ceil(ids.length / CHUNK);
  const ctrl = new Int32Array(new SharedArrayBuffer(3 * 4));
  const startAt = workerAlone ? 0 : WORKER_AFTER_PIECES;
  let helper: Helper | undefined;
  let noHelper = false;
  const mine = new Map<number, Outcome[]>();
  const theirs = new Map<number, Outcome[]>();
  const doPiece = (c: number): Outcome[] => {
    const from = c * CHUNK;
    const to = Math.min(ids.length, from + CHUNK);
    const keys = store.vault.dataKeys(ids.slice(from, to));
    const out: Outcome[] = [];
    for (let i = from; i < to; i++) out.push(examineFile(store.fileFor(ids[i]!), ids[i]!, keys, check));
    return out;
  };
  const drain = () => {
    if (!helper) return;
    const { receiveMessageOnPort } = workerThreads();
    for (let m = receiveMessageOnPort(helper.port); m; m = receiveMessageOnPort(helper.port)) {
      const piece = m.message as WorkerPiece;
      theirs.set(piece.chunk, piece.outcomes);
    }
  };
  try {
    for (let next = 0; next < chunks; next++) {
      if (!helper && !noHelper && next >= startAt && Atomics.load(ctrl, NEXT) < chunks - 1) {
        const files = ids.map((id) => ({ id, file: store.fileFor(id) }));
        helper = startWorker({ ctrl: ctrl.buffer as SharedArrayBuffer, files, check: sharedCheck(check), chunk: CHUNK });
        noHelper = !helper;
        // The keys of what is left, unwrapped here while the worker starts.
        if (helper) helper.port.postMessage({ keys: store.vault.dataKeys(ids.slice(Atomics.load(ctrl, NEXT) * CHUNK)) });
      }
      const alone = workerAlone && !noHelper;
      let outcomes = mine.get(next);
      let byWorker = false;
      let silentSince = performance.now();
      let posted = Atomics.load(ctrl, POSTED);
      while (!outcomes) {
        drain();
        outcomes = theirs.get(next);
        if (outcomes) {
          byWorker = true;
          break;
        }
        if (!alone) {
          const c = Atomics.add(ctrl, NEXT, 1);
          if (c < chunks) {
            // The next piece nobody has taken (while the worker is busy with `next`).
            mine.set(c, doPiece(c));
            outcomes = mine.get(next);
            continue;
          }
        }
        // Everything is taken: wait for the worker's piece, but not for a worker that went quiet.
        Atomics.wait(ctrl, POSTED, posted, 100);
        const now = Atomics.load(ctrl, POSTED);
        if (now !== posted) {
          posted = now;
          silentSince = performance.now();
        } else if (performance.now() - silentSince > (alone ? WORKER_ALONE_SILENCE_MS : WORKER_SILENCE_MS)) {
          outcomes = doPiece(next);
        }
      }
      const base = next * CHUNK;
      for (let i = 0; i < outcomes.length; i++) {
        const e = entries[base + i]!;
        const out = outcomes[i]!;
        if (byWorker && out !== 'main' && out.read) result.inWorker!++;
        if (take(e, out === 'main' ? examineInStore(store, e.id, check) : out)) return;
      }
      mine.delete(next);
      theirs.delete(next);
    }
  } finally {
    Atomics.store(ctrl, STOP, 1);
    if (helper) {
      helper.port.close();
      void helper.worker.terminate();
    }
  }
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
  if (textWidth(before) + textWidth(rest) <= room) return before + rest;
  const lead = Math.floor(room / 3);
  let head = before;
  if (textWidth(before) > lead) {
    // Keep the end of what comes before the match: drop clusters from its start.
    const parts = clusters(before);
    let cols = textWidth(before);
    while (parts.length && cols > lead - 1) cols -= textWidth(parts.shift()!);
    head = '…' + parts.join('');
  }
  return head + cutToColumns(rest, room - textWidth(head));
}

/** A hit as lines for a terminal: the conversation, then its best line(s) indented, at most `width` columns each. */
export function hitLines(hit: SearchHit, o: { width: number; lines?: number }): string[] {
  const width = Math.max(20, o.width);
  const head = `${hit.id}  ${formatListTime(hit.lastActivity)}  ${sanitizeLine(hit.title)}`;
  const out = [cutToColumns(head, width)];
  const shown = hit.lines.slice(0, o.lines ?? 1);
  for (const l of shown) {
    const label = sessionsText.turnPart(l.turn, l.part);
    out.push(label + cutToColumns(l.excerpt, width - textWidth(label)));
  }
  const others = hit.matchingLines - shown.length;
  if (others > 0) out.push(sessionsText.moreMatching(others));
  return out;
}
