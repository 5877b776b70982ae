/**
 * Everything the guard finds in a text: every detector's findings, the words of each name found
 * looked for again elsewhere in the text ("Patient: Margaret Ellison … Margaret says"), and
 * overlaps settled (a higher-ranked kind keeps its characters: an e-mail address is not also a
 * name; what is left of the other, if anything, stays). Sorted, none overlapping.
 */
import { KIND_RANK, type Finding, type Kind } from './kinds.js';
import { findAddresses } from './detectors/address.js';
import { findContacts } from './detectors/contact.js';
import { findAges, findDateFindings } from './detectors/dates.js';
import { findNationalIds } from './detectors/ids.js';
import { findNames } from './detectors/names.js';
import { findChineseNames } from './detectors/names-zh.js';
import { findNamesInPassing } from './detectors/names-passing.js';
import { findChineseNamesInPassing } from './detectors/names-passing-zh.js';
import { findRecordNumbers } from './detectors/records.js';
import { COMMON_WORDS, LC, isStop } from './detectors/words.js';

const DETECTORS: ReadonlyArray<(text: string) => Finding[]> = [
  findContacts,
  findNationalIds,
  findRecordNumbers,
  findDateFindings,
  findAges,
  findNames,
  findChineseNames,
  findAddresses,
];

export function scan(text: string): Finding[] {
  if (!text) return [];
  const found: Finding[] = [];
  // (Appended one by one: a long text can hold more findings than a spread may pass as arguments.)
  for (const detect of DETECTORS) for (const f of detect(text)) found.push(f);
  for (const f of namesInPassing(text, found)) found.push(f);
  for (const f of namesAgain(text, found)) found.push(f);
  for (const f of agesAfterNames(text, found)) found.push(f);
  return settle(text, found);
}

/**
 * Names with no label or title (detectors/names-passing*.ts), where no other detector found
 * something: a town in an address or a word of an e-mail address is not a name in passing.
 */
function namesInPassing(text: string, found: readonly Finding[]): Finding[] {
  const taken = found.filter((f) => f.kind !== 'NAME');
  const free = (f: Finding) => !taken.some((t) => t.start < f.end && f.start < t.end);
  return [...findNamesInPassing(text), ...findChineseNamesInPassing(text)].filter(free);
}

const MAX_NAME_WORD = 64;
const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** After a word found as a name, these make it an eponym or a thing: Wilson's disease, Graves disease. */
const EPONYM_AFTER = /^(?:['’]s)?[ \u00a0]+(?:disease|syndrome|sign|palsy|score|test|scale|procedure|operation|manoeuvre|maneuver|criteria|classification|catheter|lymphoma|tumou?r)\b/i;

function namesAgain(text: string, found: readonly Finding[]): Finding[] {
  return findNameWords(text, found.filter((f) => f.kind === 'NAME').map((f) => f.text), 'again');
}

/**
 * The words of these names wherever they stand alone in `text` ("Margaret" after "Margaret
 * Ellison"): each word of two letters or more that starts with a capital and is no common word,
 * as written, in capitals, and (for a name found in capitals) capitalised. Names in Chinese
 * characters are looked for whole.
 */
export function findNameWords(text: string, names: Iterable<string>, rule: string): Finding[] {
  const words = new Set<string>();
  for (const name of names) {
    if (/[\u4e00-\u9fff]/.test(name)) {
      if (name.length >= 2) words.add(name);
      continue;
    }
    for (const w of name.split(/[\s,]+/)) {
      const bare = w.replace(/[.'’]+$/, '');
      // (No name has a word of 64 letters; a run that long read as one would make the pattern too large to compile.)
      if (bare.length < 2 || bare.length > MAX_NAME_WORD || !CAPITAL.test(bare) || isStop(bare) || COMMON_WORDS.has(bare.toLowerCase())) continue;
      words.add(bare);
      words.add(bare.toUpperCase());
      // "SMITH" found: "Smith" too.
      if (bare === bare.toUpperCase()) words.add(bare[0] + bare.slice(1).toLowerCase());
    }
  }
  if (!words.size) return [];
  const sorted = [...words].sort((a, b) => b.length - a.length).map(escape);
  const re = new RegExp(`(?<![${LC}0-9@._-])(?:${sorted.join('|')})(?![${LC}0-9]|@|\\.[a-z])`, 'g');
  const out: Finding[] = [];
  for (const m of text.matchAll(re)) {
    if (CAPITAL.test(m[0]) && EPONYM_AFTER.test(text.slice(m.index + m[0].length, m.index + m[0].length + 24))) continue;
    out.push({ kind: 'NAME', start: m.index, end: m.index + m[0].length, text: m[0], rule });
  }
  return out;
}

/** "Mrs Evelyn Hartley-Jones (96)": an age over 89 in brackets right after a name. */
function agesAfterNames(text: string, found: readonly Finding[]): Finding[] {
  const out: Finding[] = [];
  for (const f of found) {
    if (f.kind !== 'NAME') continue;
    const m = /^[ \u00a0]*\((9\d|1[01]\d)\)/.exec(text.slice(f.end, f.end + 8));
    if (m) {
      const start = f.end + m[0].indexOf(m[1]!);
      out.push({ kind: 'AGE', start, end: start + m[1]!.length, text: m[1]!, rule: 'after name' }); // i18n-exempt: a rule's name, for tuning
    }
  }
  return out;
}

/** Left over at the edges of a piece: spaces and separators (not a dot after an initial, not a phone number's bracket). */
const EDGE = /^[\s,;:.|/-]+|[\s,;:(\[{|/-]+$/g;
const CAPITAL = /^[A-Z\u00c0-\u00de\u0100-\u017f]/;

/**
 * One finding per stretch of text: same-kind findings that overlap (or names a space apart) are
 * joined; across kinds the higher rank keeps the overlap and the lower keeps what is left.
 */
function settle(text: string, found: Finding[]): Finding[] {
  const byKind = new Map<Kind, Finding[]>();
  for (const f of found) {
    if (f.end <= f.start) continue;
    const list = byKind.get(f.kind) ?? [];
    list.push(f);
    byKind.set(f.kind, list);
  }
  const kinds = [...byKind.keys()].sort((a, b) => KIND_RANK[b] - KIND_RANK[a]);
  // What the higher kinds kept: sorted, none overlapping (each kind keeps only what is left).
  let taken: Array<[number, number]> = [];
  const out: Finding[] = [];
  for (const kind of kinds) {
    const merged = mergeSameKind(text, byKind.get(kind)!, kind);
    const mine: Array<[number, number]> = [];
    for (const f of merged) {
      for (const [s, e] of subtract(f.start, f.end, taken)) {
        const piece = text.slice(s, e);
        const lead = piece.length - piece.replace(/^[\s,;:.|/-]+/, '').length;
        const trimmed = piece.replace(EDGE, '');
        if (!trimmed) continue;
        const start = s + lead;
        out.push({ kind, start, end: start + trimmed.length, text: trimmed, rule: f.rule });
        mine.push([start, start + trimmed.length]);
      }
    }
    taken = mergeSorted(taken, mine);
  }
  return out.sort((a, b) => a.start - b.start);
}

/** Two sorted lists of ranges as one sorted list. */
function mergeSorted(a: Array<[number, number]>, b: Array<[number, number]>): Array<[number, number]> {
  if (!b.length) return a;
  const out: Array<[number, number]> = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) out.push(j >= b.length || (i < a.length && a[i]![0] <= b[j]![0]) ? a[i++]! : b[j++]!);
  return out;
}

function mergeSameKind(text: string, list: Finding[], kind: Kind): Finding[] {
  list.sort((a, b) => a.start - b.start || b.end - a.end);
  const out: Finding[] = [];
  for (const f of list) {
    const last = out[out.length - 1];
    const gap = last ? text.slice(last.end, f.start) : '';
    if (last && (f.start < last.end || (kind === 'NAME' && f.start >= last.end && /^[ \u00a0]$/.test(gap)))) {
      if (f.end > last.end) out[out.length - 1] = { ...last, end: f.end, text: text.slice(last.start, f.end) };
      continue;
    }
    out.push({ ...f });
  }
  return out;
}

/** [start, end) less every range in `taken` (sorted, none overlapping): found by a binary search, not a walk over all of them. */
function subtract(start: number, end: number, taken: ReadonlyArray<[number, number]>): Array<[number, number]> {
  let lo = 0;
  let hi = taken.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (taken[mid]![1] <= start) lo = mid + 1;
    else hi = mid;
  }
  const pieces: Array<[number, number]> = [];
  let s = start;
  for (let k = lo; k < taken.length && taken[k]![0] < end; k++) {
    const [ts, te] = taken[k]!;
    if (ts > s) pieces.push([s, ts]);
    s = Math.max(s, te);
  }
  if (s < end) pieces.push([s, end]);
  return pieces;
}
