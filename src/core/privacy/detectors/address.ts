import type { Finding } from '../kinds.js';
import { NOT_TOWN } from './words.js';
import { LineIndex } from '../../text/line-index.js';

/**
 * Street addresses (a number, street words and a street type: 22 Willow Crescent, 3920 Peachtree
 * St NE), with what goes with them on the line (flat, building, town, state, postcode) or on the
 * lines of an address block; UK postcodes; US ZIP codes after a state or a label; the value after
 * Address: / 住址：; Chinese addresses (…省…市…区…路…号…室).
 * A town named on its own ("lives in Leeds") is not found.
 */
const SP = '[ \\u00a0]';
const STREET_TYPES =
  '(?:Street|St|Road|Rd|Avenue|Ave|Av|Lane|Ln|Drive|Dr|Close|Cl|Way|Court|Ct|Place|Pl|Boulevard|Blvd|Crescent|Cres|Terrace|Terr|Gardens|Gdns|Grove|Gr|Square|Sq|Parkway|Pkwy|Row|Mews|Walk|Highway|Hwy|Circle|Cir|Trail|Park|Rise|View|Hill|Green|Vale|Paddocks|Meadows|Wharf|Quay|Parade|Broadway|Esplanade|Embankment|Gate|Croft|Fold|Chase|Heights|Loop|Pike|Alley|Plaza)';
const FACILITY =
  '(?:House|Court|Lodge|Cottage|Farm|Hall|Manor|Mansions|Surgery|Centre|Center|Practice|Home|Clinic|Building|Tower|Apartments|Estate|Flats|Buildings|Group|Associates|Partnership|Hospital|Infirmary|Pharmacy|Health Centre|Medical Centre|Medical Center)';
const UNIT = `(?:Flat|Apt|Apartment|Unit|Suite|Ste|Room|Floor|Fl)\\.?${SP}*#?\\w{1,5}`;
const UK_POSTCODE = '(?:GIR ?0AA|[A-Z]{1,2}\\d[A-Z\\d]?[ ]?\\d[ABD-HJLNP-UW-Z]{2})';
const STATES =
  '(?:AL|AK|AZ|AR|CA|CO|CT|DE|DC|FL|GA|HI|ID|IL|IN|IA|KS|KY|LA|ME|MD|MA|MI|MN|MS|MO|MT|NE|NV|NH|NJ|NM|NY|NC|ND|OH|OK|OR|PA|RI|SC|SD|TN|TX|UT|VT|VA|WA|WV|WI|WY|PR)';
const US_ZIP = `${STATES}${SP}+\\d{5}(?:-\\d{4})?`;
/** A capitalised word in a place name (Willow, St, O'Connell, Ashby-de-la-Zouch, Zürich). */
const WORD = "[A-Z\\u00c0-\\u00de][A-Za-z\\u00c0-\\u00ff'’-]*";
const TOWN = `(?:${WORD})(?:${SP}+(?:${WORD}|upon|on|under|in|by|le|en))*`;

/** The street itself: number, optional direction, one to four words, a street type, optional direction. */
const STREET = new RegExp(
  `(?<![\\w/.-])\\d{1,5}[A-Za-z]?(?:-\\d{1,5})?,?${SP}+(?:The${SP}+${WORD}(?:${SP}+${WORD})?|(?:[NSEW]\\.?${SP}+)?(?:(?:${WORD}|\\d{1,3}(?:st|nd|rd|th))${SP}+){1,4}${STREET_TYPES}\\b\\.?(?:${SP}+(?:NE|NW|SE|SW|N|S|E|W)\\b)?)`,
  'g',
);
/** What may follow a street on the same line: ", Apt 4", ", Harrogate", ", Columbus, OH 43215", " LS6 2AB". */
const AFTER_STREET = new RegExp(
  `^(?:,?${SP}*${UNIT})?(?:,?${SP}*(?:${UK_POSTCODE}|${US_ZIP})\\b|,${SP}*(?:${TOWN}))*(?:,?${SP}*(?:${UK_POSTCODE}|${US_ZIP}|\\d{5}(?:-\\d{4})?)\\b)?`,
  '',
);
/** What may come before a street on the same line: "Flat 3, ", "Carlton House, ", "Parkside Surgery, ". */
const BEFORE_STREET = new RegExp(`(?:(?:${UNIT}|(?:${WORD}${SP}+){0,3}${FACILITY}),?${SP}*)+$`);
/** A whole line before the street made of one or two names of places ("Internal Medicine Associates, 1200 Elm St"). */
const LINE_BEFORE_STREET = new RegExp(`^[ \\t]*(?:(?:${WORD}(?:['’]s)?|&|and|of|the)(?:${SP}+(?:${WORD}(?:['’]s)?|&|and|of|the)){0,5},${SP}*){1,2}$`);
const POSTCODE = new RegExp(`(?<![A-Za-z0-9])(?:${UK_POSTCODE}|${US_ZIP})(?![A-Za-z0-9])`, 'g');
/** Before a postcode on the same line: "Manchester ", "Moss Side Health Centre, Manchester ", "Columbus, ". */
const BEFORE_POSTCODE = new RegExp(`(?:(?:${WORD}${SP}+){0,3}${FACILITY},${SP}*)?(?:${TOWN}),?${SP}*$`);
const ZIP_LABEL = /\b(?:zip(?:\s*code)?|post\s*code|postal\s*code|邮编|邮政编码)\s*(?:[:：]\s*)?(\d{5,6}(?:-\d{4})?|[A-Z]{1,2}\d[A-Z\d]? ?\d[A-Z]{2})\b/gi;
const ADDRESS_LABEL = /(?<![A-Za-z\u00c0-\u00ff\u0100-\u017f])(?:(?:home |postal |current |permanent |residential )?address|addr\.?|home|residence|lives at|现住址|家庭住址|住址|地址|户籍地址|居住地址|联系地址)[ \t]*[:：][ \t]*/gi;
const LINE_REST = /[^\n;|]*/y;
const ZH_ADDRESS =
  /(?:[\u4e00-\u9fff]{2,7}?(?:省|自治区|市|区|县|镇|乡|街道)){1,4}[\u4e00-\u9fff\d]{0,14}?(?:路|街|大道|巷|弄|胡同|村|里)(?:[\d一二三四五六七八九十]+(?:号|弄|巷))*(?:[\d一二三四五六七八九十-]+(?:号楼|栋|幢|单元|室|楼|层|号))*/y;
/** A line that is a town or county in an address block ("Market Harborough", "North Yorkshire"). */
const TOWN_LINE = new RegExp(`^[ \\t]*${TOWN},?[ \\t]*$`);
const POSTCODE_LINE = new RegExp(`^[ \\t]*(?:${TOWN},?${SP}+)?(?:${UK_POSTCODE}|${US_ZIP})[ \\t]*$`);
/** A line of an address block above its postcode: "The Old Forge Medical Practice", "High Street", "21 Church Street", "Chipping Norton". */
const BLOCK_LINE = new RegExp(`^[ \\t]*(?:\\d{1,5}[A-Za-z]?,?${SP}+)?(?:${WORD}|of|the|upon|on)(?:${SP}+(?:${WORD}|of|the|upon|on|&))*,?[ \\t]*$`);
const FACILITY_LINE = new RegExp(`^[ \\t]*(?:${WORD}${SP}+){0,4}${FACILITY}[ \\t]*$`);

const isHan = (c: number) => c >= 0x4e00 && c <= 0x9fff;
const isDigit = (c: number) => c >= 48 && c <= 57;
/** The last character of each place suffix of ZH_ADDRESS (省, 自治区, 市, 区, 县, 镇, 乡, 街道). */
const SUFFIX_END = new Set([...'省市区县镇乡道'].map((c) => c.charCodeAt(0)));
const STREET_AT = /路|街|大道|巷|弄|胡同|村|里/y;

/**
 * What ZH_ADDRESS would find with /g, tried only where it can match. The pattern splits a run of
 * Chinese characters into places in every way it can ("省省省…" is all place suffixes), so tried
 * from each character of a long run it took 0.3 s per 1,000 characters. A match starts with two
 * Chinese characters and, within 40 of them, a place suffix followed within 15 characters (Chinese
 * or digits) by a street word: it is tried only where that holds, which leaves the same matches.
 */
function zhAddresses(text: string): Array<{ start: number; end: number }> {
  if (!/[\u4e00-\u9fff]/.test(text)) return [];
  const n = text.length;
  // streetFrom[i]: the first street word at or after i with only Chinese characters or digits before it.
  const streetFrom = new Int32Array(n + 1).fill(-1);
  for (let i = n - 1; i >= 0; i--) {
    const c = text.charCodeAt(i);
    STREET_AT.lastIndex = i;
    if (isHan(c) && STREET_AT.test(text)) streetFrom[i] = i;
    else if (isHan(c) || isDigit(c)) streetFrom[i] = streetFrom[i + 1]!;
  }
  // suffixFrom[i]: the first place suffix at or after i that a street word follows closely enough; hanTo[i]: where i's run of Chinese characters ends.
  const suffixFrom = new Int32Array(n + 2).fill(n + 1);
  const hanTo = new Int32Array(n + 1).fill(n);
  for (let i = n - 1; i >= 0; i--) {
    const c = text.charCodeAt(i);
    const s = streetFrom[i + 1]!;
    suffixFrom[i] = SUFFIX_END.has(c) && s >= 0 && s - (i + 1) <= 14 ? i : suffixFrom[i + 1]!;
    hanTo[i] = isHan(c) ? hanTo[i + 1]! : i;
  }
  const out: Array<{ start: number; end: number }> = [];
  for (let p = 0; p + 2 < n; p++) {
    const r = suffixFrom[p + 2]!;
    if (hanTo[p]! < p + 2 || r > p + 40 || r >= hanTo[p]!) continue;
    ZH_ADDRESS.lastIndex = p;
    const m = ZH_ADDRESS.exec(text);
    if (!m) continue;
    out.push({ start: p, end: p + m[0].length });
    p += m[0].length - 1;
  }
  return out;
}

/** What comes before a street or postcode on its line is read from at most this many characters back (the patterns anchored at its end are tried from every start). */
const BEFORE_WINDOW = 200;

/** Towns made of words that are not place names ("Consultant", "Dear") are not towns. */
function townOk(s: string): boolean {
  return !s.split(/[\s,]+/).filter(Boolean).some((w) => NOT_TOWN.has(w.toLowerCase().replace(/\.$/, '')));
}

/** Two spaces or more before another field; the start of a next sentence (". Lives alone"). */
const GAP_THEN_FIELD = /(?<!\s)\s{2,}\S/g;
const SENTENCE_AFTER = /\.\s+[A-Z][a-z]+\s+[a-z]/g;

/**
 * What text.replace(/<re>.*$/, '') does, in one pass: `text` up to the first match of `re` after
 * which no line terminator follows ('.' does not pass one). As a regex, `.*$` read to the end of a
 * line from every space of a long run (a line of 100 KB of spaces after "Address: 1" took 8 s).
 */
function cutAtTail(text: string, re: RegExp): string {
  const terminator = Math.max(text.lastIndexOf('\r'), text.lastIndexOf('\u2028'), text.lastIndexOf('\u2029'));
  re.lastIndex = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) if (m.index + m[0].length > terminator) return text.slice(0, m.index);
  return text;
}

/**
 * Every address found has a digit (a street number, a postcode, a ZIP, a labelled value with a
 * number) or Chinese characters (a Chinese address, a labelled value with 省市区县路街号): a text
 * with neither holds none, and the patterns above are not compiled for it.
 */
const MAY_HOLD_ADDRESS = /[0-9\u4e00-\u9fff]/;

export function findAddresses(text: string): Finding[] {
  if (!MAY_HOLD_ADDRESS.test(text)) return [];
  const out: Finding[] = [];
  const lines = new LineIndex(text);
  const lineBounds = (at: number) => lines.bounds(at);
  const add = (start: number, end: number, rule: string) => {
    const t = text.slice(start, end).replace(/[\s,]+$/, '');
    if (t.trim()) out.push({ kind: 'ADDRESS', start, end: start + t.length, text: t, rule });
  };

  for (const m of text.matchAll(STREET)) {
    let start = m.index;
    let end = m.index + m[0].length;
    const [ls, le] = lineBounds(start);
    const after = AFTER_STREET.exec(text.slice(end, le));
    if (after && townOk(after[0])) end += after[0].length;
    const lineBefore = text.slice(ls, start);
    const near = Math.max(ls, start - BEFORE_WINDOW);
    const beforeM = BEFORE_STREET.exec(text.slice(near, start));
    if (LINE_BEFORE_STREET.test(lineBefore) && townOk(lineBefore)) start = ls + (lineBefore.length - lineBefore.trimStart().length);
    else if (beforeM && townOk(beforeM[0])) start -= beforeM[0].length;
    // An address block: the street on a line of its own, then town lines down to a postcode line; a facility line above.
    if (text.slice(ls, start).trim() === '' && text.slice(end, le).trim() === '') {
      let pos = le;
      const lines: number[] = [];
      for (let i = 0; i < 3 && pos < text.length; i++) {
        const [s, e] = lineBounds(pos + 1);
        const line = text.slice(s, e);
        if (POSTCODE_LINE.test(line)) {
          end = e;
          break;
        }
        if (!TOWN_LINE.test(line) || !townOk(line)) break;
        lines.push(e);
        pos = e;
      }
      if (ls > 0) {
        const [ps, pe] = lineBounds(ls - 1);
        if (FACILITY_LINE.test(text.slice(ps, pe))) start = ps + (text.slice(ps, pe).length - text.slice(ps, pe).trimStart().length);
      }
    }
    add(start, end, 'street');
  }
  for (const m of text.matchAll(POSTCODE)) {
    const [ls, le] = lineBounds(m.index);
    let start = m.index;
    const before = BEFORE_POSTCODE.exec(text.slice(Math.max(ls, start - BEFORE_WINDOW), start));
    if (before && townOk(before[0])) start -= before[0].length;
    // A postcode alone on its line ends an address block: take the lines above it that look like
    // one (a building, a street with or without a number, a town), up to four, to a blank line.
    if (POSTCODE_LINE.test(text.slice(ls, le))) {
      for (let i = 0, top = ls; i < 4 && top > 0; i++) {
        const [ps, pe] = lineBounds(top - 1);
        const line = text.slice(ps, pe);
        if (!BLOCK_LINE.test(line) || !townOk(line)) break;
        start = ps + (line.length - line.trimStart().length);
        top = ps;
      }
    }
    add(start, m.index + m[0].length, 'postcode');
  }
  for (const m of text.matchAll(ZIP_LABEL)) add(m.index + m[0].length - m[1]!.length, m.index + m[0].length, 'label');
  for (const m of text.matchAll(ADDRESS_LABEL)) {
    const at = m.index + m[0].length;
    LINE_REST.lastIndex = at;
    // Up to two spaces before another field, or the end of a sentence (". Lives alone").
    const rest = cutAtTail(cutAtTail(LINE_REST.exec(text)![0], GAP_THEN_FIELD), SENTENCE_AFTER);
    // A value with a number or a Chinese place word ("Home: lives with his wife" is no address).
    if (/\d|[省市区县路街号]/.test(rest)) add(at, at + rest.length, 'label');
  }
  for (const m of zhAddresses(text)) add(m.start, m.end, 'zh');
  return out;
}
