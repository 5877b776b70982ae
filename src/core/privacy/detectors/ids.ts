import type { Finding } from '../kinds.js';
import { phoneLabelBefore } from './contact.js';

/**
 * National identity numbers: a pluggable list. Each entry has a shape, an optional check (a
 * checksum) and labels; a number of the right shape is found when its check passes, or, for
 * shapes too common to trust alone, only after one of its labels. Add one with
 * `addNationalId({...})` (e.g. a country's health number).
 */
export interface NationalIdRule {
  name: string;
  /** The number's shape (global flag not needed; it is added). */
  shape: RegExp;
  /** A check on the matched text (checksum, date part…); undefined: any number of the shape. */
  check?: (text: string) => boolean;
  /** Labels that may come just before ("NHS No", "SSN"); with `labelRequired`, only then. */
  label?: RegExp;
  labelRequired?: boolean;
  /** Not when a phone label (Tel:, Fax:) comes just before (10-digit numbers that are also phone shapes). */
  notAfterPhoneLabel?: boolean;
}

/** UK NHS number (and Scottish CHI, same check): 10 digits, modulus 11. */
export function nhsChecksumOk(text: string): boolean {
  const d = text.replace(/\D/g, '');
  if (d.length !== 10) return false;
  let sum = 0;
  for (let i = 0; i < 9; i++) sum += Number(d[i]) * (10 - i);
  let check = 11 - (sum % 11);
  if (check === 11) check = 0;
  return check !== 10 && check === Number(d[9]);
}

/** US SSN: not area 000, 666 or 900-999; not group 00; not serial 0000. */
export function ssnOk(text: string): boolean {
  const d = text.replace(/\D/g, '');
  if (d.length !== 9) return false;
  const area = Number(d.slice(0, 3)), group = Number(d.slice(3, 5)), serial = Number(d.slice(5));
  return area !== 0 && area !== 666 && area < 900 && group !== 0 && serial !== 0;
}

/** Chinese resident identity card: 18 characters, ISO 7064 MOD 11-2, a real birth date. */
export function chineseIdOk(text: string): boolean {
  if (!/^\d{17}[\dXx]$/.test(text)) return false;
  const w = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2];
  let sum = 0;
  for (let i = 0; i < 17; i++) sum += Number(text[i]) * w[i]!;
  if ('10X98765432'[sum % 11] !== text[17]!.toUpperCase()) return false;
  const y = Number(text.slice(6, 10)), m = Number(text.slice(10, 12)), d = Number(text.slice(12, 14));
  return y >= 1890 && y <= 2100 && m >= 1 && m <= 12 && d >= 1 && d <= 31;
}

const BUILT_IN: NationalIdRule[] = [
  {
    name: 'NHS number',
    shape: /(?<![\w.-])\d{3} ?\d{3} ?\d{4}(?![\w]|[.-]\d)/,
    check: nhsChecksumOk,
    label: /\b(?:NHS|CHI)(?:\s*(?:No\.?|number|#|num))?\s*[:：.]?\s*$/i,
    notAfterPhoneLabel: true,
  },
  {
    // 485-777-3456 is also a North American phone number: an NHS number only when labelled.
    name: 'NHS number (dashes, labelled)', // i18n-exempt: a rule's name, for tuning
    shape: /(?<![\w.-])\d{3}-\d{3}-\d{4}(?![\w]|[.-]\d)/,
    check: nhsChecksumOk,
    label: /\b(?:NHS|CHI)(?:\s*(?:No\.?|number|#|num))?\s*[:：.]?\s*$/i,
    labelRequired: true,
  },
  { name: 'US SSN', shape: /(?<![\w-])\d{3}-\d{2}-\d{4}(?![\w]|-\d)/, check: ssnOk },
  { name: 'US SSN (labelled)', shape: /(?<![\w-])\d{3}[ -]?\d{2}[ -]?\d{4}(?![\w]|-\d)/, check: ssnOk, label: /\b(?:SSN|SS#|social security(?: number| no\.?)?)\s*[:：#]?\s*$/i, labelRequired: true },
  { name: 'Chinese resident id', shape: /(?<![\dA-Za-z])\d{17}[\dXx](?![\dA-Za-z])/, check: chineseIdOk }, // i18n-exempt: a rule's name, for tuning
  {
    name: 'UK National Insurance number', // i18n-exempt: a rule's name, for tuning
    shape: /(?<![A-Z0-9])(?!BG|GB|KN|NK|NT|TN|ZZ)[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z] ?\d{2} ?\d{2} ?\d{2} ?[A-D](?![A-Za-z0-9])/,
  },
  {
    name: 'passport or national id (labelled)', // i18n-exempt: a rule's name, for tuning
    shape: /(?<![\w-])[A-Z]{0,3}\d(?:[\d]|[ -](?=\d)){3,18}\d?[A-Z]?(?![\w-])/,
    check: (t) => /\d{4}/.test(t.replace(/\D/g, '')),
    label: /\b(?:passport(?:\s*(?:no\.?|number|#))?|national id(?:entity)?(?:\s*(?:no\.?|number|card))?|id card(?:\s*(?:no\.?|number))?|NINO|NI\s*(?:no\.?|number)|national insurance(?:\s*(?:no\.?|number))?|CHI(?:\s*(?:no\.?|number))?|身份证(?:号码?)?|护照号?)\s*[:：#]?\s*$/i,
    labelRequired: true,
  },
];
/** The rules above all need digits; rules added later may not. */
const RULES: NationalIdRule[] = [...BUILT_IN];
const NEEDS_DIGIT: ReadonlySet<NationalIdRule> = new Set(BUILT_IN);

/** Add a national id rule (for numbers of other countries). */
export function addNationalId(rule: NationalIdRule): void {
  RULES.push(rule);
}

export function findNationalIds(text: string): Finding[] {
  const out: Finding[] = [];
  // Without a digit, the built-in shapes cannot match: they are not compiled for such a text.
  const anyDigit = /[0-9]/.test(text);
  for (const rule of RULES) {
    if (!anyDigit && NEEDS_DIGIT.has(rule)) continue;
    const re = new RegExp(rule.shape.source, rule.shape.flags.includes('g') ? rule.shape.flags : rule.shape.flags + 'g');
    for (const m of text.matchAll(re)) {
      const t = m[0].trim();
      const before = text.slice(Math.max(0, m.index - 40), m.index);
      const labelled = rule.label ? rule.label.test(before) : false;
      if (rule.labelRequired && !labelled) continue;
      if (rule.check && !rule.check(t)) continue;
      if (rule.notAfterPhoneLabel && !labelled && phoneLabelBefore(text, m.index)) continue;
      out.push({ kind: 'ID', start: m.index, end: m.index + t.length, text: t, rule: rule.name });
    }
  }
  return out;
}
