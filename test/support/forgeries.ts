import { KINDS } from '../../src/core/privacy/kinds.js';
import type { Prng } from './prng.js';

/**
 * Placeholder-like text a user may type (issue 21, item 1), generated from a seed: every kind, in
 * every form medchat reads back ([NAME-1], [name 1], [NAME_01], [ NAME - 1 ], a bare NAME-1), huge
 * numbers, our own exact form, forms that are not placeholders (a lower-case bare name-1, a
 * non-breaking hyphen), nested and run together; mixed with identifiers the guard replaces.
 */
export function forgedToken(p: Prng): string {
  // Mostly the kinds the identifiers below become (a forgery of those can collide with ours), else any kind.
  const kind = p.chance(0.6) ? p.pick(['NAME', 'NAME', 'PHONE', 'MRN', 'EMAIL'] as const) : p.pick(KINDS);
  const n = p.weighted<string>([
    [6, String(p.int(1, 3))],
    [2, `0${p.int(1, 3)}`],
    [1, String(p.int(4, 999_999))],
  ]);
  const k = p.chance(0.25) ? kind.toLowerCase() : p.chance(0.1) ? kind[0] + kind.slice(1).toLowerCase() : kind;
  const sep = p.pick(['-', '-', ' ', '_', '\u2011']);
  const pad = () => (p.chance(0.15) ? ' ' : '');
  const one = p.weighted<() => string>([
    [5, () => `[${pad()}${k}${pad()}${sep}${pad()}${n}${pad()}]`],
    [3, () => `${kind}-${n}`],
    [1, () => `${kind.toLowerCase()}-${n}`],
    [1, () => `[[${kind}-${n}]]`],
    [1, () => `[${kind}-${n}][${kind}-${p.int(1, 3)}]`],
    [1, () => `(${kind}-${n})`],
  ]);
  return one();
}

/** Identifiers the guard replaces in redact mode, with the real value each holds. */
export const IDENTIFIERS: ReadonlyArray<{ text: string; value: string }> = [
  { text: 'Patient: John Smith.', value: 'John Smith' },
  { text: 'Seen by Dr. Amelia Okafor.', value: 'Amelia Okafor' },
  { text: 'MRN: 4481923.', value: '4481923' },
  { text: 'Call her on 07700 900123.', value: '07700 900123' },
  { text: 'E-mail j.smith@example.org for results.', value: 'j.smith@example.org' },
];

const FILLER = ['His neighbour', 'called the ambulance.', 'Compare', 'in the old letter.', 'Who is', '?', 'and', 'Ask about', 'see', 'also'];

/** A question holding `identifiers` (at least one) and `forgeries` placeholder-like tokens, in a seeded order. */
export function forgedQuestion(p: Prng, opts: { identifiers?: number; forgeries?: number } = {}): { text: string; values: string[]; forged: string[] } {
  const ids = [IDENTIFIERS[0]!, ...IDENTIFIERS.slice(1).filter(() => p.chance(0.4))].slice(0, opts.identifiers ?? 5);
  const forged = Array.from({ length: opts.forgeries ?? p.int(1, 5) }, () => forgedToken(p));
  const parts: string[] = [ids[0]!.text];
  const rest = [...ids.slice(1).map((i) => i.text), ...forged];
  while (rest.length) {
    const [piece] = rest.splice(p.int(0, rest.length - 1), 1);
    if (p.chance(0.5)) parts.push(p.pick(FILLER));
    parts.push(piece!);
  }
  return { text: parts.join(' '), values: ids.map((i) => i.value), forged };
}
