import { KINDS, type Kind } from './kinds.js';

const KIND_ALT = KINDS.join('|');
/**
 * Every form in which a placeholder is recognised when an answer comes back ([NAME-1], [name-1],
 * [NAME 1], [NAME_01], a bare capital NAME-1): the model rewrites ours in these forms. The same
 * pattern finds placeholder-looking text in what the user typed, so nothing is put back that
 * medchat did not put there (see reserveFrom and escapeForgeries).
 */
const PLACEHOLDER_LIKE = new RegExp(`\\[\\s*(${KIND_ALT})\\s*([-_ ])\\s*(\\d+)\\s*\\]|\\b(${KIND_ALT})(-)(\\d+)\\b`, 'gi');

export interface PlaceholderLike {
  /** The canonical placeholder it reads as: "[NAME 01]" → "[NAME-1]". */
  placeholder: string;
  kind: Kind;
  n: number;
  start: number;
  end: number;
  /** Where the separator ("-", "_" or " ") is in the text. */
  sep: number;
}

/** The placeholder-looking spans of a text, as restoring an answer reads them. */
export function* placeholderLike(text: string): Generator<PlaceholderLike> {
  for (const m of text.matchAll(PLACEHOLDER_LIKE)) {
    const k = (m[1] ?? m[4])!;
    // A bare NAME-1 only in capitals ("name-1" in prose is left alone).
    if (m[4] && k !== k.toUpperCase()) continue;
    const kind = k.toUpperCase() as Kind;
    const n = Number(m[3] ?? m[6]);
    const start = m.index!;
    const sep = start + m[0].indexOf((m[2] ?? m[5])!, m[0].indexOf(k) + k.length);
    yield { placeholder: `[${kind}-${n}]`, kind, n, start, end: start + m[0].length, sep };
  }
}

/**
 * One conversation's placeholders: each distinct identifier gets one ([NAME-1], [DATE-2]) and
 * keeps it on every later turn, so the model can follow "[NAME-1]" across questions. Held in
 * memory only. Placeholders are unforgeable by the text they replace: a number the user's own
 * text already uses in any placeholder-looking form ("[NAME 1]", "NAME-1", "[name-01]", "[NAME-999999]")
 * is skipped (ours take the smallest free number, so they stay short), and placeholder-looking text
 * the user types after ours was made is escaped (escapeForgeries), so only where medchat put a
 * placeholder is a value ever put back.
 */
export class PlaceholderMap {
  private readonly byKey = new Map<string, string>();
  private readonly values = new Map<string, string>();
  /** Numbers not to use, per kind: the user's own placeholder-looking text used them. */
  private readonly reserved = new Map<Kind, Set<number>>();
  private readonly next = new Map<Kind, number>();

  /** The placeholder for this value (a new one the first time it is seen). */
  placeholderFor(kind: Kind, value: string): string {
    const key = `${kind}\u0000${normalise(kind, value)}`;
    const known = this.byKey.get(key);
    if (known) return known;
    const taken = this.reserved.get(kind);
    let n = this.next.get(kind) ?? 1;
    while (taken?.has(n)) n++;
    this.next.set(kind, n + 1);
    const placeholder = `[${kind}-${n}]`;
    this.byKey.set(key, placeholder);
    this.values.set(placeholder, value);
    return placeholder;
  }

  /** The value a placeholder stands for, or undefined for one this conversation never made. */
  valueOf(placeholder: string): string | undefined {
    return this.values.get(placeholder);
  }

  /** Skip numbers the text already uses in a placeholder-looking form ("[NAME-3]" or "[NAME 3]" in a pasted note: ours skip 3). */
  reserveFrom(text: string): void {
    for (const p of placeholderLike(text)) {
      if (this.values.has(p.placeholder)) continue;
      let set = this.reserved.get(p.kind);
      if (!set) this.reserved.set(p.kind, (set = new Set()));
      set.add(p.n);
    }
  }

  /**
   * `text` with each placeholder-looking span that reads as one of ours made unreadable as a
   * placeholder (its separator becomes a non-breaking hyphen, "[NAME‑1]", which looks the same to
   * a reader and to the model but is never put back). `keepExact`: leave our exact form "[NAME-1]"
   * (text medchat itself redacted, resent).
   */
  escapeForgeries(text: string, keepExact = false): string {
    let out = '';
    let last = 0;
    for (const p of placeholderLike(text)) {
      if (!this.values.has(p.placeholder)) continue;
      if (keepExact && text.slice(p.start, p.end) === p.placeholder) continue;
      out += text.slice(last, p.sep) + '\u2011';
      last = p.sep + 1;
    }
    return last ? out + text.slice(last) : text;
  }

  get size(): number {
    return this.values.size;
  }

  entries(): IterableIterator<[placeholder: string, value: string]> {
    return this.values.entries();
  }
}

/** The same identifier written differently is one: case and spacing for words, digits for numbers. */
function normalise(kind: Kind, value: string): string {
  switch (kind) {
    case 'PHONE':
      return value.replace(/\D/g, '');
    case 'ID':
    case 'MRN':
    case 'DEVICE':
      return value.replace(/[^0-9A-Za-z]/g, '').toUpperCase();
    default:
      return value.toLowerCase().replace(/\s+/g, ' ').trim();
  }
}
