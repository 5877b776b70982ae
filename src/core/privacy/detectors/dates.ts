import type { Finding } from '../kinds.js';
import { findDates } from '../date-parse.js';

/**
 * Dates more specific than a year (see date-parse.ts), and ages over 89 (Safe Harbor folds
 * those into "90 or older"): 92-year-old, 94 yo, aged 93, Age: 95, 91岁.
 */
const AGE_UNIT = /(?<![\d.,])(9\d|1[01]\d)(?=[ \u00a0-]*(?:years?[ \u00a0-]*old|year-old|yr-old|yrs?\b|years?\b|y\/o\b|y\.o\.|yo\b|y\b|岁|歲))/g;
/** "(90M)", "92F": an age with a sex letter, not a temperature ("T 99F"). */
const AGE_SEX = /(?<![\d.,]|\b(?:T|temp|temperature)[ :]*)(9\d|1[01]\d)(?=[MF]\b)/gi;
// `\s*(?:[:：]\s*)?`, not `\s*[:：]?\s*`: two stars side by side split a run of spaces every way (quadratic).
const AGE_LABEL = /\b(?:aged?|age)\s*(?:[:：]\s*)?(9\d|1[01]\d)(?![\d.,%])/gi;
const AGE_ZH = /(?:年龄|年齡)\s*(?:[:：]\s*)?(9\d|1[01]\d)(?![\d.])/g;

export function findDateFindings(text: string): Finding[] {
  return findDates(text).map((d) => ({ kind: 'DATE', start: d.start, end: d.end, text: d.text, rule: 'date' }));
}

export function findAges(text: string): Finding[] {
  // Every age here is digits (90-119): without a digit there is none, and the patterns are not compiled.
  if (!/[0-9]/.test(text)) return [];
  const out: Finding[] = [];
  for (const m of text.matchAll(AGE_UNIT)) out.push({ kind: 'AGE', start: m.index, end: m.index + m[1]!.length, text: m[1]!, rule: 'unit' });
  for (const re of [AGE_LABEL, AGE_ZH, AGE_SEX]) {
    for (const m of text.matchAll(re)) {
      const start = m.index + m[0].lastIndexOf(m[1]!);
      out.push({ kind: 'AGE', start, end: start + m[1]!.length, text: m[1]!, rule: 'label' });
    }
  }
  return out;
}
