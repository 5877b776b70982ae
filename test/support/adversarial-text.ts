/**
 * Adversarial text for the "every scan is linear" tests (issue 21 items 8, 9): long runs of one kind
 * of character, alternations, a label followed by a long run, and deep nesting (brackets, JSON,
 * Markdown quotes and lists), at a given size, picked with a seeded PRNG (test/support/prng.ts).
 */
import type { Prng } from './prng.js';

/** One character class each: digits, letters, punctuation, spaces, Chinese. */
export const RUNS = ['1', 'a', 'A', '.', '@', '-', ' ', '\t', '\n', '`', '{', '[', '"', "'", ':', ',', '/', '(', '_', '+', '王', '省', '|'];
/** Alternations and small repeated shapes. */
export const ALTERNATIONS = ['a@', '1.', '1 ', 'A ', 'Aa ', 'a.', '1-', '1/', 'A.', 'A. ', 'Aa, ', '1:', '12 ', 'a.b@', 'www.', '1a', 'A-1', '`a', '``', '{"', '[1,', '患者', '王医生', '1年', 'Mr ', ', MD ', '(wife) '];
/** Labels the detectors read a value after: each is followed by a long run. */
export const LABELS = ['Tel', 'Phone: ', '电话', 'MRN:', 'NHS No', 'SSN', 'Serial', 'on', 'since ', 'Dr', 'Name:', 'Patient', 'wife', 'seen by', 'Address: ', 'zip', 'postcode', '患者', '姓名：', 'aged', 'age ', 'Yours sincerely\n', 'DOB', '|', '—', '+44', 'http://', 'ID:', 'Address: 1', 'Tel: 1', 'age 9', 'on 1', 'MRN 1'];

export interface AdversarialCase {
  name: string;
  text: string;
}

/** What makes every detector run (each skips a text without a digit, an @, a colon, a capital, a bracket or Chinese). */
export const EVERY_DETECTOR = '\nMr Smith: 1 a@b.co (DOB) 王 患者';

const repeat = (unit: string, size: number) => unit.repeat(Math.ceil(size / unit.length)).slice(0, size);

/** Deep nesting, about `size` characters. */
function nested(kind: number, size: number): AdversarialCase {
  switch (kind % 5) {
    case 0: {
      const n = Math.floor(size / 2);
      return { name: `[ x${n} ]`, text: '['.repeat(n) + ']'.repeat(n) };
    }
    case 1: {
      const n = Math.floor(size / 6);
      return { name: `{"a": x${n}`, text: '{"a":'.repeat(n) + '1' + '}'.repeat(n) };
    }
    case 2:
      return { name: 'quote > x', text: repeat('> ', size - 4) + 'text' };
    case 3: {
      const lines: string[] = [];
      for (let i = 0, len = 0; len < size; i++) {
        const line = '  '.repeat(i) + '- item';
        lines.push(line);
        len += line.length + 1;
      }
      return { name: 'nested list', text: lines.join('\n').slice(0, size) };
    }
    default:
      return { name: 'quoted lists', text: repeat('> - ', size) };
  }
}

/** One generated case of about `size` characters (plus EVERY_DETECTOR). */
export function adversarialCase(r: Prng, size: number): AdversarialCase {
  const kind = r.int(0, 3);
  let c: AdversarialCase;
  if (kind === 0) {
    const u = r.pick(RUNS);
    c = { name: `run ${JSON.stringify(u)}`, text: repeat(u, size) };
  } else if (kind === 1) {
    const u = r.pick(ALTERNATIONS);
    c = { name: `alternation ${JSON.stringify(u)}`, text: repeat(u, size) };
  } else if (kind === 2) {
    const l = r.pick(LABELS);
    const u = r.pick(RUNS);
    c = { name: `${JSON.stringify(l)} then ${JSON.stringify(u)}`, text: l + repeat(u, size - l.length) };
  } else {
    c = nested(r.int(0, 4), size);
  }
  return { name: `${c.name} (${Math.round(size / 1000)} KB)`, text: c.text + EVERY_DETECTOR };
}

/** Every run and alternation at `size`: the fixed part of a suite (the PRNG picks the rest). */
export function everyFamily(size: number): AdversarialCase[] {
  return [...RUNS, ...ALTERNATIONS].map((u) => ({ name: `${JSON.stringify(u)} (${Math.round(size / 1000)} KB)`, text: repeat(u, size) + EVERY_DETECTOR }));
}

/** A bound for "ends at all" on `chars` characters: 2 s per 100 KB, at least 0.5 s (the quadratic scans took 10-20 s per 100 KB). */
export function boundMs(chars: number): number {
  return Math.max(500, (chars / 100_000) * 2000);
}
