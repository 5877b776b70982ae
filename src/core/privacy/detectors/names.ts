import type { Finding } from '../kinds.js';
import { INITIAL, LC, NAME_SEQ, SURNAME_FIRST, UPC, UPPER, WORD, isStop } from './words.js';

/**
 * Names of people, found by their context, never by a list of names: a title (Mr, Dr, Prof…),
 * a label (Patient:, Name:, NOK:, Seen by…), a relation (her daughter Helen), a credential after
 * the name (Sarah Kim, MD), a signature after "Yours sincerely", "SURNAME, Given" heading a note.
 * A name with no such context ("spoke to Tom") is not found here; the scanner then looks for the
 * words of every name found elsewhere in the text.
 */
const SP = '[ \\u00a0]';
const NAME_AT = new RegExp(`(?:${SURNAME_FIRST}|${NAME_SEQ})`, 'y');
const SEQ_AT = new RegExp(NAME_SEQ, 'y');
const TITLE_AT = new RegExp(`(?:Mr|Mrs|Ms|Miss|Mx|Dr|DR|Prof|Professor|Sister|Nurse|Rev|Sir|Dame)\\.?${SP}+`, 'y');

const TITLE = /\b(?:Mr|Mrs|Ms|Miss|Mx|Dr|DR|MR|MRS|MS|Prof|Professor|Sister|Nurse|Rev|Sir|Dame)\.?[ \u00a0]+(?=[A-Z\u00c0-\u00de\u0100-\u017f])/g;

/** Labels whose value is a name. `strong`: one word after a colon is enough. */
const LABELS_COLON =
  /(?<![A-Za-z\u00c0-\u00ff\u0100-\u017f])(?:(?:patient|pt|child|baby|client|resident|service user|proband)(?:'s)?(?: full)? name|full name|surnames?|forenames?|forename\(s\)|first names?|last name|given names?|given name\(s\)|family name|name|patient|pt|child|baby|proband|service user|client|resident|nok|next[ -]of[ -]kin|emergency contact|contact person|partner|spouse|husband|wife|son|daughter|mother|father|carer|guardian|gp|pcp|consultant|attending|surgeon|physician|clinician|referrer|referring (?:gp|doctor|clinician|physician|provider|consultant)|requesting (?:provider|physician|clinician|doctor)|ordering (?:provider|physician|clinician)|submitting (?:physician|clinician)|responsible clinician|admitting (?:doctor|physician|clinician)|operator|author|midwife|anaesthetist|anesthetist|registrar|key worker|care coordinator|social worker|interpreter|witness|secretary|signed|signature|electronically signed(?: by)?|(?:dictated|transcribed|written|clerked|seen|reviewed|examined|reported|authori[sz]ed|verified|requested|referred|documented|checked|collected|completed|prepared|entered|signed|approved) by|to|from|cc|attn|re)[ \t]*[:：][ \t]*/gi;
/** A role before a colon: Sonographer:, Radiographer:, Pharmacist:, Resident:, Scrub nurse:. */
const ROLE_COLON =
  /(?<![A-Za-z\u00c0-\u00ff\u0100-\u017f])(?:[a-z]+ )?(?:[a-z]*(?:grapher|ologist|ician|ist|nurse|doctor|clinician|practitioner|technician|technologist|scientist|therapist|worker|officer|assistant|manager|coordinator|surgeon|physician|resident|intern|fellow|midwife|operator|reviewer|author|scribe)|ANP|HCA|BMS)[ \t]*[:：][ \t]*/gi;
const WEAK_COLON = /^(?:to|from|cc|attn|re|secretary|interpreter|witness)\b/i;

/** The same without a colon: the name must be two words or more (or follow a title, found anyway). */
const LABELS_BARE =
  /(?<![A-Za-z\u00c0-\u00ff\u0100-\u017f])(?:patient|(?:patient |pt )?name|surname|forename|handed over to|handover to|(?:seen|reviewed|clerked|dictated|written|referred|requested|reported|authori[sz]ed|verified|examined|accompanied|brought in|escorted|signed|electronically signed|documented|completed|prepared) by|discussed with|spoke (?:to|with)|on behalf of|care of|c\/o|dear|cc|by)[ \t]+/gi;

const JOB_AFTER = /^[ \u00a0]+[A-Za-z]*(?:ologist|iatrist|ician|surgeon|specialist|practitioner|therapist|nurse|physician|pharmacist|scientist)\b/i;
const RELATION =
  /\b(?:wife|husband|son|daughter|mother|father|brother|sister|partner|spouse|carer|friend|niece|nephew|grand-?daughter|grand-?son|aunt|uncle|cousin|girlfriend|boyfriend|fianc[eé]e?|neighbou?r|secretary|step-?(?:son|daughter|mother|father)|mum|mom|dad|midwife|nurse|physio(?:therapist)?|pharmacist|dietitian|paramedic|receptionist|registrar|consultant|manager|key ?worker|social worker|care coordinator|advocate|chaplain|interpreter|colleague)(?:,|:|'s name is| called| named)?[ \u00a0]+\(?(?=[A-Z\u00c0-\u00de\u0100-\u017f])/gi;
/** "Funmi Adeyemi (wife)": a relation in brackets after a name (the name is read backwards from it). */
const RELATION_AFTER =
  /(?<![ \u00a0])[ \u00a0]*\((?:wife|husband|son|daughter|mother|father|brother|sister|partner|spouse|carer|friend|niece|nephew|grand-?daughter|grand-?son|aunt|uncle|cousin|patient|NOK|next of kin|guardian)\)/gi;
/** A name ending where the text ends (for reading a name backwards from what follows it). */
const NAME_END = new RegExp(`(?:^|[^${LC}.'’-])(${NAME_SEQ})$`);

/** A credential after a name ("Sarah Kim, MD", "K. Rowe (BMS)"): the name is read backwards from it. */
const CREDENTIAL =
  /(?:,[ \u00a0]*|(?<![ \u00a0])[ \u00a0]+\(?)(?:MD|DO|PA-C|PA|NP|RN|MBBS|MBChB|MRCP|FRCP|FRCS|FRCPath|PhD|DNP|APRN|CNM|BMS|CRNA|LPN|PharmD|FY1|FY2|CT1|CT2|CT3|ST\d|SpR|PGY-?\d|DPM|MSc|BSc)\b/g;

/** A name followed by age and sex: "Zoe Papadopoulos, 29F", "Kamal Hossain (90M)", "J. Smith, 45 y/o". */
/** Age and sex after a name ("Zoe Papadopoulos, 29F", "Kamal Hossain (90M)", "J. Smith, 45 y/o"). */
const WITH_AGE = /,?[ \u00a0]?\(?\d{1,3}[ \u00a0]?(?:[MF]\b|yo\b|y\/o|y\.o\.|yrs?\b|years?\b|-year-old)|, \d{1,3}(?=, [a-z])/g;

const CLOSING = /^[ \t]*(?:yours sincerely|yours faithfully|yours truly|kind regards|best regards|warm regards|with best wishes|best wishes|regards|many thanks|thank you|thanks|sincerely|respectfully)[,.!]?[ \t]*$/gim;
const SIGNATURE_LINE = new RegExp(`^[ \\t]*(?:(?:Dr|Mr|Mrs|Ms|Miss|Prof|Professor)\\.?${SP}+)?(${NAME_SEQ})[ \\t]*(?:,.*)?$`);

/** A name heading a note's first lines: "BAXTER, Leonard | DOB …", "Fatima Zahra Benali   DOB …". */
const HEADING = new RegExp(
  `(?:^|[—–|])[ \\t]*(${UPPER},${SP}*${WORD}(?:${SP}+${INITIAL})?|${NAME_SEQ})(?=[ \\t]*(?:\\||\\(|[ \\t]{2,}|$))(?=[^\\n]*\\b(?:DOB|D\\.O\\.B|MRN|NHS|Hosp|Hospital|born|Unit No)\\b)`,
  'gm',
);

/** HEADING needs one of these after the name (its lookahead, case as written). */
const HEADING_WORDS = ['DOB', 'D.O.B', 'MRN', 'NHS', 'Hosp', 'born', 'Unit No'];

function tokensOf(name: string): string[] {
  return name.split(/[\s,]+/).filter(Boolean);
}

/**
 * The name at `at` (after a title or label), trimmed of words that are not names: none when it
 * starts with one ("Seen by Cardiology"). `minWords`: how many name words (initials count) it needs.
 */
function nameAt(text: string, at: number, re: RegExp, minWords: number): { start: number; end: number } | undefined {
  re.lastIndex = at;
  const m = re.exec(text);
  if (!m) return undefined;
  let raw = m[0];
  // Leading words that are not names are skipped ("Baby Lily Chapman", "Seen by Cardiology" → nothing).
  let start = at;
  for (let lead = /^(\S+?)([ \u00a0,]+)/.exec(raw); lead && isStop(lead[1]!); lead = /^(\S+?)([ \u00a0,]+)/.exec(raw)) {
    start += lead[0].length;
    raw = raw.slice(lead[0].length);
  }
  const tokens = raw.split(/(?=[\s,])/);
  // Drop trailing words that are not names ("Dr Smith Cardiology", "Mr Jones Ward").
  while (tokens.length && isStop(tokens[tokens.length - 1]!.replace(/^[\s,]+/, ''))) tokens.pop();
  raw = tokens.join('').replace(/[\s,]+$/, '');
  const words = tokensOf(raw);
  if (words.length < minWords || words.length === 0 || isStop(words[0]!)) return undefined;
  // Every word in capitals and short (ECG, CRP): not a name.
  if (words.every((w) => /^[A-Z]{2,4}$/.test(w)) && words.length < 2) return undefined;
  return { start, end: start + raw.length };
}

/**
 * Every name this file finds is read by `nameAt` with NAME_AT or SEQ_AT, which start with a capital
 * (an initial or a capitalised word): a text without one holds none, and the patterns below are not
 * compiled for it (their first run is most of a short question's guard time).
 */
const ANY_CAPITAL = new RegExp(`[${UPC}]`);

export function findNames(text: string): Finding[] {
  if (!ANY_CAPITAL.test(text)) return [];
  const out: Finding[] = [];
  const add = (span: { start: number; end: number } | undefined, rule: string) => {
    if (span && span.end > span.start) out.push({ kind: 'NAME', start: span.start, end: span.end, text: text.slice(span.start, span.end), rule });
  };

  for (const m of text.matchAll(TITLE)) add(nameAt(text, m.index + m[0].length, SEQ_AT, 1), 'title');

  // The patterns that need a colon, a bracket, a digit or a heading's word run only when the text has one (so are compiled only then).
  const colon = text.includes(':') || text.includes('：');
  for (const m of colon ? text.matchAll(LABELS_COLON) : []) {
    let at = m.index + m[0].length;
    TITLE_AT.lastIndex = at;
    const titled = TITLE_AT.exec(text);
    if (titled) at += titled[0].length;
    const weak = WEAK_COLON.test(m[0]) && !titled;
    add(nameAt(text, at, titled ? SEQ_AT : NAME_AT, weak ? 2 : 1), 'label');
  }

  for (const m of colon ? text.matchAll(ROLE_COLON) : []) {
    let at = m.index + m[0].length;
    TITLE_AT.lastIndex = at;
    const titled = TITLE_AT.exec(text);
    if (titled) at += titled[0].length;
    add(nameAt(text, at, NAME_AT, 1), 'label');
  }

  for (const m of text.matchAll(LABELS_BARE)) {
    let at = m.index + m[0].length;
    TITLE_AT.lastIndex = at;
    const titled = TITLE_AT.exec(text);
    if (titled) at += titled[0].length;
    add(nameAt(text, at, NAME_AT, titled ? 1 : 2), 'label');
  }

  for (const m of text.matchAll(RELATION)) {
    const span = nameAt(text, m.index + m[0].length, SEQ_AT, 1);
    // "Consultant Old Age Psychiatrist", "Specialist Nurse": a job title, not a name.
    if (span && JOB_AFTER.test(text.slice(span.end, span.end + 30))) continue;
    add(span, 'relation');
  }
  for (const m of text.includes('(') ? text.matchAll(RELATION_AFTER) : []) add(nameBefore(text, m.index, 1), 'relation');
  for (const m of text.matchAll(CREDENTIAL)) add(nameBefore(text, m.index, 1), 'credential');
  for (const m of /[0-9]/.test(text) ? text.matchAll(WITH_AGE) : []) add(nameBefore(text, m.index, 2), 'age');
  for (const m of HEADING_WORDS.some((w) => text.includes(w)) ? text.matchAll(HEADING) : []) add(trimmed(text, m.index + m[0].indexOf(m[1]!), m[1]!, 2), 'heading');

  for (const m of text.matchAll(CLOSING)) {
    // The first non-blank line within the next four.
    let pos = m.index + m[0].length;
    for (let i = 0; i < 4 && pos < text.length; i++) {
      const nl = text.indexOf('\n', pos + 1);
      const lineStart = text[pos] === '\n' ? pos + 1 : pos;
      const lineEnd = nl < 0 ? text.length : nl;
      const line = text.slice(lineStart, lineEnd);
      if (line.trim()) {
        const s = SIGNATURE_LINE.exec(line);
        if (s) add(trimmed(text, lineStart + line.indexOf(s[1]!), s[1]!, 1), 'signature');
        break;
      }
      pos = lineEnd;
    }
  }
  return out;
}

/** The name that ends at `end` on its line, if any. */
function nameBefore(text: string, end: number, minWords: number): { start: number; end: number } | undefined {
  // The line's start, looked for only within the 80 characters that count (searching back over a whole long line for each credential was quadratic).
  const near = Math.max(0, end - 80);
  const from = near + text.slice(near, end).lastIndexOf('\n') + 1;
  const m = NAME_END.exec(text.slice(from, end));
  if (!m) return undefined;
  // Read forward again on the text up to `end` only (the name cannot run into what follows it).
  return trimmed(text.slice(0, end), from + m.index + m[0].length - m[1]!.length, m[1]!, minWords);
}

/** A name matched inside a larger pattern, with leading words that are not names dropped. */
function trimmed(text: string, start: number, name: string, minWords: number): { start: number; end: number } | undefined {
  let s = start;
  let rest = name;
  for (;;) {
    const first = /^(\S+?)([\s,]+)/.exec(rest);
    if (!first || !isStop(first[1]!)) break;
    s += first[0].length;
    rest = rest.slice(first[0].length);
  }
  return nameAt(text, s, SEQ_AT_OR_SURNAME, minWords);
}
const SEQ_AT_OR_SURNAME = NAME_AT;
