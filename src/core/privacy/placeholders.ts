import type { Kind } from './kinds.js';

/**
 * One conversation's placeholders: each distinct identifier gets one ([NAME-1], [DATE-2]) and
 * keeps it on every later turn, so the model can follow "[NAME-1]" across questions. Held in
 * memory only. Numbers already used as placeholders in the user's own text (a note redacted
 * before) are skipped, so putting values back never mistakes them for ours.
 */
export class PlaceholderMap {
  private readonly byKey = new Map<string, string>();
  private readonly values = new Map<string, string>();
  private readonly next = new Map<Kind, number>();

  /** The placeholder for this value (a new one the first time it is seen). */
  placeholderFor(kind: Kind, value: string): string {
    const key = `${kind}\u0000${normalise(kind, value)}`;
    const known = this.byKey.get(key);
    if (known) return known;
    const n = this.next.get(kind) ?? 1;
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

  /** Skip numbers the text already uses as placeholders ("[NAME-3]" in a pasted note: ours start at 4). */
  reserveFrom(text: string): void {
    for (const m of text.matchAll(/\[([A-Z]+)-(\d{1,6})\]/g)) {
      const kind = m[1] as Kind;
      const n = Number(m[2]);
      if (this.values.has(m[0])) continue;
      if ((this.next.get(kind) ?? 1) <= n) this.next.set(kind, n + 1);
    }
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
