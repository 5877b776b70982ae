import type { Finding } from '../kinds.js';

/**
 * Phone and fax numbers, e-mail addresses, URLs and IP addresses: found by their shape.
 * Phone numbers: international (+44 7700 900123), North American ((555) 014-2287, 555.014.2287),
 * UK and other trunk-prefixed (07700 900481, 0113 496 0872), Chinese mobiles and landlines
 * (138 0013 8000, 010-62345678); any run of 7-15 digits after Tel:, Phone:, Fax:, 电话….
 */
/** An e-mail address is a local part, an @ and this domain (read from each @: see emails()). */
const EMAIL_DOMAIN = /[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/y;
const EMAIL_LOCAL = /[A-Za-z0-9._%+-]/;
const URL_RE = /\b(?:https?:\/\/|www\.)[^\s<>"'`\u0000-\u001f\u007f-\u009f]+/gi; // a URL holds no control character (an escape sequence ends it)
const IPV4 = /(?<![\d.])(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(?:\.(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}(?![\d]|\.\d)/g;
const IPV6 = /(?<![\w:])(?:[0-9a-f]{1,4}:){2,7}(?::|(?::[0-9a-f]{1,4}){1,6}|[0-9a-f]{1,4})(?![\w:])/gi;

const PHONE_SHAPES = [
  // +44 7700 900123, +1 555 016 9087, +86 138 0013 8000, +44 (0)20 7946 0958
  /(?<![\w+])\+\d{1,3}(?:[ .-]?\(0?\d{1,4}\))?(?:[ .-]?\d{1,5}){2,5}(?!\d)/g,
  // (555) 014-2287, 555-014-2287, 555.014.2287, 555 014 2287
  /(?<![\w.-])(?:\(\d{3}\)[ ]?|\d{3}[-. ])\d{3}[-. ]\d{4}(?![\d]|[.-]\d)/g,
  // 07700 900481, 0113 496 0872, 020 7946 0958, 01632 960 418, 0161-496-0775
  /(?<![\w.-])0\d{2,4}[ -]\d{3,4}(?:[ -]?\d{3,4})?(?![\d]|[.-]\d)/g,
  // 07700900481 (UK mobile, no spaces)
  /(?<![\w.-])07\d{9}(?!\d)/g,
  // Chinese mobiles: 13800138000, 138 0013 8000, 186-0013-8000; landlines 010-62345678, 0571-88776655
  /(?<![\w.-])1[3-9]\d(?:[ -]?\d{4}){2}(?!\d)/g,
  /(?<![\w.-])0\d{2,3}-\d{7,8}(?!\d)/g,
];
const PHONE_LABEL_ANY = /(?:\b(?:tel(?:ephone)?|phone|ph|mob(?:ile)?|cell(?:phone)?|fax)\b\.?(?:\s*(?:no\.?|number|#))?\s*(?:[:：]\s*)?|(?:电话|手机|联系电话|传真|手机号|电话号码)[：:\s]*)(\+?\(?\d[\d ()./-]{5,20}\d)/gi;

/**
 * What /[A-Za-z0-9._%+-]+@<domain>/g finds, read from each @ instead of tried from every start: the
 * regex rescanned a run of letters or digits from each of its characters looking for an @ (100 KB
 * of digits took 15 s). The local part has no @, so each match holds exactly one, and its local
 * part is the run of local characters before it (from where the last match ended).
 */
function emails(text: string): Array<{ start: number; text: string }> {
  const out: Array<{ start: number; text: string }> = [];
  let from = 0;
  for (let at = text.indexOf('@'); at >= 0; at = text.indexOf('@', at + 1)) {
    let start = at;
    while (start > from && EMAIL_LOCAL.test(text[start - 1]!)) start--;
    if (start === at) continue;
    EMAIL_DOMAIN.lastIndex = at + 1;
    const domain = EMAIL_DOMAIN.exec(text);
    if (!domain) continue;
    const end = at + 1 + domain[0].length;
    out.push({ start, text: text.slice(start, end) });
    from = end;
  }
  return out;
}

function digits(s: string): number {
  return s.replace(/\D/g, '').length;
}

function trimUrl(u: string): string {
  return u.replace(/[.,;:!?)\]}'"]+$/, '');
}

/**
 * Every shape above needs an @ (e-mail), a colon (URL scheme, IPv6), "www." or digits (IPv4,
 * phones): a text with none of them holds no contact, and the patterns are not compiled for it.
 */
const MAY_HOLD_CONTACT = /[0-9@:]|www\./i;

export function findContacts(text: string): Finding[] {
  if (!MAY_HOLD_CONTACT.test(text)) return [];
  const out: Finding[] = [];
  const add = (kind: Finding['kind'], start: number, t: string, rule: string) => out.push({ kind, start, end: start + t.length, text: t, rule });

  for (const m of emails(text)) add('EMAIL', m.start, m.text, 'shape');
  for (const m of text.matchAll(URL_RE)) add('URL', m.index, trimUrl(m[0]), 'shape');
  for (const m of text.matchAll(IPV4)) {
    // 1.2.3.4 after "version"/"v": a version, not an address.
    if (/\b(?:v|ver|version|release)\.?\s*$/i.test(text.slice(Math.max(0, m.index - 10), m.index))) continue;
    add('IP', m.index, m[0], 'shape');
  }
  for (const m of text.matchAll(IPV6)) {
    // Needs hex letters or "::" (not a time such as 10:30:00 or HLA-B*57:01).
    if (/[a-f]/i.test(m[0]) || m[0].includes('::')) if (m[0].split(':').length >= 4) add('IP', m.index, m[0], 'shape');
  }
  for (const re of PHONE_SHAPES) {
    for (const m of text.matchAll(re)) {
      const t = m[0].replace(/[ .-]+$/, '');
      const n = digits(t);
      if (n < 9 || n > 15) continue;
      add('PHONE', m.index, t, 'shape');
    }
  }
  for (const m of text.matchAll(PHONE_LABEL_ANY)) {
    const value = m[1]!.replace(/[ ()./-]+$/, '');
    const n = digits(value);
    if (n < 6 || n > 15) continue;
    add('PHONE', m.index + m[0].length - m[1]!.length, value, 'label');
  }
  return out;
}

/** Whether a phone label (Tel, Fax, 电话…) comes just before `at` (used to tell a phone from an NHS number). */
export function phoneLabelBefore(text: string, at: number): boolean {
  const before = text.slice(Math.max(0, at - 24), at);
  return /(?:\b(?:tel(?:ephone)?|phone|ph|mob(?:ile)?|cell|fax|call|ring|contact)\b[^\n\d]{0,12}|电话|手机|传真)[：:\s#.]*$/i.test(before);
}
