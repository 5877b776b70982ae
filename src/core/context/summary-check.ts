/**
 * The cheap fact check a clinical summary must pass before it replaces the turns it condenses:
 * allergies (and "no known drug allergies"), medications with a dose, and ages found in the
 * folded text must each appear in the summary. Plain regular expressions, deterministic, no
 * I/O. English first; Chinese text never breaks it (对…过敏 and 72岁 are understood too).
 *
 * It is a floor, not a judge: it only sees facts written in the usual short forms, and a fact
 * counts as kept when the summary states it in one of those forms too (case, spacing and
 * unit spelling do not matter: "5 mg" == "5mg", "µg" == "mcg").
 */

import { contextText } from '../i18n/messages/context.js';

type FactKind = 'allergy' | 'no-allergies' | 'medication' | 'age';

export interface Fact {
  kind: FactKind;
  /** What the user is told, e.g. `penicillin allergy`, `warfarin 5 mg`, `age 72`. */
  label: string;
  /** Normalised pieces the check looks for (see `factIsKept`). */
  key: string;
  dose?: string;
}

const ALLERGY_MARKER = /allerg|anaphyla|hypersensitiv|intoleran|reaction|过敏/;
/** Words skipped before an allergen. */
// i18n-exempt: words to match, not a message
const ALLERGEN_LEAD = new Set('a an the any all some her his their its several multiple'.split(' '));
/** A word that ends an allergen list, or cannot be an allergen itself. */
const ALLERGEN_STOP = new Set(
  // i18n-exempt: words to match, not a message
  'no not known severe mild true documented reported which that who with since in on at after when while causing caused but was were is are has had and or to of for from as during last this these those possible suspected previous prior history years year she he they i we you it says said per'.split(' '),
);
/** Words before a dose that are not a medicine (labs, vitals, body measures, counting words). */
const NOT_A_DRUG = new Set(
  // i18n-exempt: words to match, not a message
  'max maximum min minimum had has have having given gave give got received receive receives need needs needed needing extra another more less further over than of to is was at the a an and or with about around approximately approx only daily every each per total dose doses dosage up by from than over under took takes take taking on in plus weight weighs weighed height bmi hba1c a1c spo2 sats saturation saturations sat ef fev1 fvc o2 oxygen fio2 glucose sugar hb hgb haemoglobin hemoglobin sodium potassium creatinine egfr urea albumin protein calcium magnesium phosphate bilirubin cholesterol ldl hdl triglycerides inr crp esr ferritin lactate troponin bnp tsh pulse temperature temp fever bp volume output intake fluids fluid water juice drank drink drinks drinking ate eat eats eating lost gained milk coffee tea alcohol beer wine increased decreased reduced raised lowered changed switched stopped started restarted'.split(
    ' ',
  ),
);

/** Second words of a medicine's name: `folic acid`, `potassium chloride`, `insulin glargine` are labelled with the first word too. */
const NAME_TAIL = /^(?:acid|sulfate|sulphate|chloride|carbonate|citrate|phosphate|hydrochloride|fumarate|succinate|tartrate|mononitrate|dinitrate|bromide|acetate|gluconate|sodium|potassium|glargine|aspart|lispro|detemir|degludec|isophane)$/i;

const UNIT = String.raw`(?:mg|mcg|µg|μg|ug|micrograms?|milligrams?|grams?|g|ml|millilitres?|milliliters?|units?|iu|mmol|meq|%)`;
const PER = String.raw`(?:\s*(?:\/|per\s+)(?:kg|day|d|h|hr|hour|dose|week|wk))?`;
/** A number as written: starts where its digits start (no quadratic retries inside a long digit run), `1,000` or `0,5`. */
const NUM = String.raw`(?<![\d.,])\d{1,7}(?:[.,]\d{1,4})*`;
const UNIT_CANON: Record<string, string> = {
  mcg: 'mcg', µg: 'mcg', μg: 'mcg', ug: 'mcg', microgram: 'mcg', micrograms: 'mcg',
  mg: 'mg', milligram: 'mg', milligrams: 'mg', g: 'g', gram: 'g', grams: 'g',
  ml: 'ml', millilitre: 'ml', millilitres: 'ml', milliliter: 'ml', milliliters: 'ml',
  unit: 'units', units: 'units', iu: 'iu', mmol: 'mmol', meq: 'meq', '%': '%',
};

function canonNumber(n: string): string {
  const v = Number(/^[1-9]\d{0,2}(?:,\d{3})+(?:\.\d+)?$/.test(n) ? n.replace(/,/g, '') : n.replace(',', '.'));
  return Number.isFinite(v) ? String(v) : n;
}

/** A dose as the check compares it: `5 mg` → `5mg`, `0,5 µg per kg` → `0.5mcg/kg`. */
function canonDose(num: string, unit: string, per = ''): string {
  const u = UNIT_CANON[unit.toLowerCase()] ?? unit.toLowerCase();
  const p = per ? '/' + per.toLowerCase().replace(/^\s*(?:\/|per\s+)/, '').replace(/^(?:d|hour|hr)$/, (m) => (m === 'd' ? 'day' : 'h')) : '';
  return `${canonNumber(num)}${u}${p}`;
}

const DOSE_IN_TEXT = new RegExp(String.raw`(${NUM})\s*(${UNIT})(?![\p{L}])(${PER})(?![\p{L}\/])`, 'giu');

/** Lower case, one space, doses in their canonical spelling: what both sides are compared in. */
export function normaliseForCheck(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(DOSE_IN_TEXT, (_m, num: string, unit: string, per: string) => ` ${canonDose(num, unit, per)} `)
    .replace(/\s+/g, ' ')
    .trim();
}

/** A noun-ish stem to look for: lower case, trailing plural `s` dropped (`peanuts` finds `peanut`). */
function stem(word: string): string {
  const w = word.toLowerCase();
  return w.length > 4 && w.endsWith('s') && !w.endsWith('ss') ? w.slice(0, -1) : w;
}

function allergensFrom(list: string): string[] {
  const out: string[] = [];
  for (const raw of list.split(/\s*(?:,|;|\/|\band\b|\bor\b|&)\s*/i)) {
    const words = raw.trim().split(/\s+/).filter(Boolean);
    const kept: string[] = [];
    let stopped = false;
    for (const w of words) {
      const bare = w.replace(/^["'“]+|[)"'”:.!?]+$/g, '');
      if (!bare) continue;
      if (!kept.length && ALLERGEN_LEAD.has(bare.toLowerCase())) continue;
      if (ALLERGEN_STOP.has(bare.toLowerCase()) || /^[\d(]/.test(bare)) {
        stopped = true;
        break;
      }
      kept.push(bare);
      if (kept.length === 3 || /[)"'”]$/.test(w)) break;
    }
    if (kept.length && /^[\p{L}][\p{L}\p{N}-]*$/u.test(kept[0]!)) out.push(kept.join(' '));
    if (stopped || out.length >= 6) break;
  }
  return out;
}

function addAllergies(text: string, facts: Map<string, Fact>): void {
  const add = (item: string) => {
    const key = stem(item.split(/\s+/)[0]!);
    if (key.length < 3 || facts.has(`allergy:${key}`)) return;
    facts.set(`allergy:${key}`, { kind: 'allergy', label: `${item.toLowerCase()} allergy`, key });
  };
  // "allergic to X", "allergy to X", "anaphylaxis to X", "hypersensitivity to X", "intolerant of X".
  for (const m of text.matchAll(/\b(?:allergic|allergy|allergies|anaphylaxis|anaphylactic reaction|hypersensitivity|intolerant|intolerance)\s+(?:to|of|with)\s+([^.;:\n]{1,80})/giu)) {
    for (const a of allergensFrom(m[1]!)) add(a);
  }
  // "Allergy: X", "Allergies: X, Y and Z".
  for (const m of text.matchAll(/\ballerg(?:y|ies)\s*[:\-–—]\s*([^.;\n]{1,120})/giu)) {
    if (/^\s*(?:none|nil|nkda|no\b)/i.test(m[1]!)) continue;
    for (const a of allergensFrom(m[1]!)) add(a);
  }
  // "penicillin allergy", "a sulfa allergy" (but not "drug allergy", "no known allergy").
  for (const m of text.matchAll(/\b([\p{L}][\p{L}-]{2,40})\s+(?:allergy|anaphylaxis)\b/giu)) {
    const w = m[1]!;
    if (!ALLERGEN_STOP.has(w.toLowerCase()) && !/^(?:drug|drugs|food|foods|medicine|medication|seasonal|environmental|contact|type|skin|any|known|severe|mild|suspected|possible|reported|documented)$/i.test(w)) add(w);
  }
  // Chinese: 对青霉素过敏 (allergic to penicillin).
  for (const m of text.matchAll(/对([\p{Script=Han}A-Za-z0-9-]{1,12}?)(?:严重)?过敏/gu)) {
    const item = m[1]!;
    if (!facts.has(`allergy:${item.toLowerCase()}`)) facts.set(`allergy:${item.toLowerCase()}`, { kind: 'allergy', label: `${item} allergy`, key: item.toLowerCase() });
  }
  if (/\bnkda\b|\bno known (?:drug |medication )?allergies\b|无已知(?:药物)?过敏/i.test(text) && !facts.has('no-allergies')) {
    facts.set('no-allergies', { kind: 'no-allergies', label: 'no known drug allergies', key: 'nkda' }); // i18n-exempt: a fact's label, also sent to the model
  }
}

function addMedications(text: string, facts: Map<string, Fact>): void {
  const re = new RegExp(String.raw`\b([\p{L}][\p{L}-]{2,40})(?:\s*[:,]\s*|\s+(?:at|dose(?: of)?)\s+|\s+)(${NUM})\s*(${UNIT})(?![\p{L}])(${PER})(?![\p{L}\/])`, 'giu');
  for (const m of text.matchAll(re)) {
    const drug = m[1]!;
    if (NOT_A_DRUG.has(drug.toLowerCase())) continue;
    const dose = canonDose(m[2]!, m[3]!, m[4]);
    const id = `med:${drug.toLowerCase()}:${dose}`;
    if (facts.has(id)) continue;
    const first = NAME_TAIL.test(drug) ? /([\p{L}][\p{L}-]{1,40})\s+$/u.exec(text.slice(Math.max(0, (m.index ?? 0) - 42), m.index))?.[1] : undefined;
    const name = first ? `${first} ${drug}` : drug;
    facts.set(id, { kind: 'medication', label: `${name.toLowerCase()} ${m[2]}${m[3] === '%' ? '' : ' '}${m[3]}${m[4] ?? ''}`.replace(/\s+/g, ' '), key: drug.toLowerCase(), dose });
  }
}

const AGE_PATTERNS: RegExp[] = [
  /\b(\d{1,3})\s*[- ]?\s*(?:years?|yrs?|yr)\s*[- ]?\s*old\b/giu,
  /\b(\d{1,3})\s*(?:yo|y\/o|y\.o\.)(?![\p{L}])/giu,
  /\b(?:aged|age)\s*[:=]?\s*(\d{1,3})\b/giu,
  /(\d{1,3})\s*岁/gu,
  /(?:年龄|年齡)\s*[:：]?\s*(\d{1,3})/gu,
];
/** "72F", "72 M" (not "100F" of a fever, nor "5 M" of a molar solution with a decimal before it). */
const AGE_SEX = /(?<![\d.,°])\b(\d{1,3})\s?([MF])\b(?!\s*°)/gu;

function agesIn(text: string, lenient = false): Set<number> {
  const out = new Set<number>();
  const take = (n: string) => {
    const v = Number(n);
    if (v >= 1 && v <= 120) out.add(v);
  };
  for (const re of AGE_PATTERNS) for (const m of text.matchAll(re)) take(m[1]!);
  for (const m of text.matchAll(AGE_SEX)) {
    const before = text.slice(Math.max(0, (m.index ?? 0) - 20), m.index).toLowerCase();
    if (!/temp|fever|febrile|pyrexi/.test(before)) take(m[1]!);
  }
  // In a summary, "72 years" or "age … 72" is enough.
  if (lenient) for (const m of text.matchAll(/\b(\d{1,3})\s*(?:years?|yrs?|y)\b/giu)) take(m[1]!);
  return out;
}

/** Every fact in `texts` that a summary of them must keep, in the order first seen, without duplicates. */
export function extractFacts(texts: readonly string[]): Fact[] {
  const facts = new Map<string, Fact>();
  for (const raw of texts) {
    if (!raw) continue;
    addAllergies(raw, facts);
    addMedications(raw, facts);
    for (const age of agesIn(raw.normalize('NFKC'))) if (!facts.has(`age:${age}`)) facts.set(`age:${age}`, { kind: 'age', label: `age ${age}`, key: String(age) });
  }
  return [...facts.values()];
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
/** `5mg` in `warfarin 5mg daily`, not in `15mg` or `5mg/kg`. */
function doseIn(window: string, dose: string): boolean {
  return new RegExp(`(?<![\\d.])${escapeRe(dose)}(?![\\p{L}\\d/])`, 'u').test(window);
}

function near(hay: string, needle: string, test: (window: string) => boolean, reach: number): boolean {
  let i = hay.indexOf(needle);
  while (i >= 0) {
    if (test(hay.slice(Math.max(0, i - reach), i + needle.length + reach))) return true;
    i = hay.indexOf(needle, i + 1);
  }
  return false;
}

/** Whether `summary` states `fact` (an allergen near an allergy word, a medicine near its dose, the age in an age form). */
function factIsKept(fact: Fact, summary: string, normalisedSummary = normaliseForCheck(summary)): boolean {
  const s = normalisedSummary;
  switch (fact.kind) {
    case 'allergy':
      return near(s, fact.key, (w) => ALLERGY_MARKER.test(w), 160);
    case 'no-allergies':
      return /\bnkda\b|no known (?:drug |medication )?allerg|no (?:drug )?allergies|not allergic to any|无已知(?:药物)?过敏|无过敏/.test(s);
    case 'medication':
      return near(s, fact.key, (w) => doseIn(w, fact.dose!), 60);
    case 'age':
      return agesIn(summary.normalize('NFKC'), true).has(Number(fact.key));
  }
}

/** The facts of `facts` that `summary` does not state. */
export function missingFacts(facts: readonly Fact[], summary: string): Fact[] {
  const normalised = normaliseForCheck(summary);
  return facts.filter((f) => !factIsKept(f, summary, normalised));
}

/** `penicillin allergy, warfarin 5 mg and 2 more` — short enough for one line. */
export function listFacts(facts: readonly Fact[], max = 4): string {
  return shortList(facts.map((f) => f.label), max);
}

/** Labels in one line: at most `max`, then how many more (`a, b, c, d and 2 more`). */
export function shortList(labels: readonly string[], max = 4): string {
  return labels.length <= max ? labels.join(contextText.listSeparator) : contextText.andMore(labels.slice(0, max).join(contextText.listSeparator), labels.length - max);
}

const sameFact = (a: Fact, b: Fact) => a.kind === b.kind && a.key === b.key && a.dose === b.dose;

/**
 * The sentences of `texts` that state `facts`, word for word: what is still sent when the turns
 * holding them are dropped. Each sentence once, at most 500 characters, in the order found.
 */
export function sentencesStating(facts: readonly Fact[], texts: ReadonlyArray<{ who: string; text: string }>): string[] {
  const out: string[] = [];
  const left = [...facts];
  for (const { who, text } of texts) {
    if (!left.length) break;
    for (const sentence of text.split(/(?<=[.!?。！？])\s+|\n+/)) {
      const s = sentence.trim();
      if (!s) continue;
      const stated = extractFacts([s]);
      const hits = left.filter((f) => stated.some((g) => sameFact(f, g)));
      if (!hits.length) continue;
      out.push(`${who}: "${s.length > 500 ? `${s.slice(0, 499)}…` : s}"`);
      for (const h of hits) left.splice(left.indexOf(h), 1);
      if (!left.length) break;
    }
  }
  return out;
}
