import assert from 'node:assert/strict';
import { test } from 'node:test';
import { extractFacts, listFacts, missingFacts, normaliseForCheck } from '../../src/core/context/summary-check.js';
import { seededRandom } from '../support/prng.js';

const labels = (text: string | string[]) => extractFacts(Array.isArray(text) ? text : [text]).map((f) => f.label);
const missing = (source: string, summary: string) => missingFacts(extractFacts([source]), summary).map((f) => f.label);

test('allergies are found in their usual forms', () => {
  assert.deepEqual(labels('She is allergic to penicillin (anaphylaxis in 2019).'), ['penicillin allergy']);
  assert.deepEqual(labels('Known anaphylaxis to peanuts.'), ['peanuts allergy']);
  assert.deepEqual(labels('Allergies: penicillin, sulfa drugs and latex.'), ['penicillin allergy', 'sulfa drugs allergy', 'latex allergy']);
  assert.deepEqual(labels('ALLERGY: Codeine'), ['codeine allergy']);
  assert.deepEqual(labels('He has a shellfish allergy.'), ['shellfish allergy']);
  assert.deepEqual(labels('Hypersensitivity to aspirin which causes wheeze.'), ['aspirin allergy']);
  assert.deepEqual(labels('NKDA. Takes nothing regularly.'), ['no known drug allergies']);
  assert.deepEqual(labels('No known drug allergies.'), ['no known drug allergies']);
});

test('words around allergies are not mistaken for allergens', () => {
  assert.deepEqual(labels('Allergies: none.'), []);
  assert.deepEqual(labels('She has a drug allergy history we should check.'), []);
  assert.deepEqual(labels('Allergic to the cold weather, she says.'), ['cold weather allergy']);
  assert.deepEqual(labels('Is she allergic to anything?'), ['anything allergy']);
});

test('medications with a dose: every unit, any case, with or without a space', () => {
  assert.deepEqual(labels('Warfarin 5 mg daily, metformin 500mg twice daily.'), ['warfarin 5 mg', 'metformin 500 mg']);
  assert.deepEqual(labels('levothyroxine 75 mcg; salbutamol 100 µg; fentanyl 25 ug/h'), ['levothyroxine 75 mcg', 'salbutamol 100 µg', 'fentanyl 25 ug/h']);
  assert.deepEqual(labels('Insulin glargine 20 units at night, heparin 5000 IU, lactulose 15 mL'), ['insulin glargine 20 units', 'heparin 5000 IU', 'lactulose 15 mL']);
  assert.deepEqual(labels('potassium chloride 20 mmol, hydrocortisone 1% cream, gentamicin 7 mg/kg'), ['potassium chloride 20 mmol', 'hydrocortisone 1%', 'gentamicin 7 mg/kg']);
  assert.deepEqual(labels('Paracetamol 15 mg per kg'), ['paracetamol 15 mg per kg']);
  assert.deepEqual(labels('AMOXICILLIN 1 G three times daily'), ['amoxicillin 1 G']);
});

test('labs, vitals and measures are not medications', () => {
  assert.deepEqual(labels('Hb 12 g/dL, glucose 5.5 mmol/L, creatinine 101 µmol/L, weight 71 kg, SpO2 94%, HbA1c 7.2%.'), []);
  assert.deepEqual(labels('She drank 500 mL of water.'), []);
  assert.deepEqual(labels('Paracetamol 1g four times daily (max 4 g per day). She had 2 units of packed cells.'), ['paracetamol 1 g']);
  assert.deepEqual(labels('folic acid 400 micrograms and ferrous sulfate 200 mg'), ['folic acid 400 micrograms', 'ferrous sulfate 200 mg']);
});

test('ages in their usual forms', () => {
  assert.deepEqual(labels('A 72-year-old woman'), ['age 72']);
  assert.deepEqual(labels('72 year old man'), ['age 72']);
  assert.deepEqual(labels('aged 72'), ['age 72']);
  assert.deepEqual(labels('Age: 72'), ['age 72']);
  assert.deepEqual(labels('72 yo male'), ['age 72']);
  assert.deepEqual(labels('72F with dyspnoea'), ['age 72']);
  assert.deepEqual(labels('Pt 72 M, chest pain'), ['age 72']);
  assert.deepEqual(labels('Temperature 101F overnight'), []);
  assert.deepEqual(labels('She walked 72 km.'), []);
});

test('a summary keeps a fact whatever its case, spacing and unit spelling', () => {
  const source = 'A 72-year-old woman, allergic to penicillin (anaphylaxis). On warfarin 5 mg daily and levothyroxine 75 µg.';
  assert.deepEqual(missing(source, 'PATIENT: 72 F. ALLERGIES: PENICILLIN (anaphylaxis). Meds: Warfarin 5MG od, levothyroxine 75mcg.'), []);
  assert.deepEqual(missing(source, 'Age 72. Penicillin — anaphylaxis. warfarin (5 mg daily); levothyroxine 75 micrograms'), []);
});

test('a summary that drops or changes a fact is caught', () => {
  const source = 'A 72-year-old woman, allergic to penicillin (anaphylaxis). On warfarin 5 mg daily.';
  assert.deepEqual(missing(source, 'Elderly woman on warfarin 5 mg.'), ['penicillin allergy', 'age 72']);
  assert.deepEqual(missing(source, '72-year-old woman, penicillin allergy, on warfarin 15 mg.'), ['warfarin 5 mg']);
  assert.deepEqual(missing(source, '72-year-old woman, penicillin allergy, on warfarin 5 mg/kg.'), ['warfarin 5 mg']);
  // The allergen named, but not as an allergy.
  assert.deepEqual(missing(source, '72-year-old woman on warfarin 5 mg, was given penicillin last year.'), ['penicillin allergy']);
  assert.deepEqual(missing('NKDA', 'No allergies were discussed.'), []);
  assert.deepEqual(missing('NKDA', 'Allergies: not discussed.'), ['no known drug allergies']);
  assert.deepEqual(missing(source, ''), ['penicillin allergy', 'warfarin 5 mg', 'age 72']);
});

test('Chinese text: no crash, 过敏 and 岁 are understood', () => {
  assert.deepEqual(labels('患者72岁，女性，对青霉素过敏，服用华法林。'), ['青霉素 allergy', 'age 72']);
  assert.deepEqual(missing('患者72岁，对青霉素过敏。', '72岁女性。过敏史：青霉素（过敏性休克）。'), []);
  assert.deepEqual(missing('患者72岁，对青霉素过敏。', '女性患者。'), ['青霉素 allergy', 'age 72']);
  assert.deepEqual(labels('无已知药物过敏'), ['no known drug allergies']);
});

test('normalising: doses in one spelling, whitespace collapsed', () => {
  assert.equal(normaliseForCheck('Warfarin  5 MG\n daily, 0,5 µg per kg'), 'warfarin 5mg daily, 0.5mcg/kg');
  assert.equal(listFacts(extractFacts(['allergic to penicillin, latex, codeine, sulfa and iodine'])), 'penicillin allergy, latex allergy, codeine allergy, sulfa allergy and 1 more');
});

test('property: a fact stated in the source is kept by a summary restating it in another spelling, and missed when left out', () => {
  const seed = Number(process.env.MEDCHAT_SEED ?? Date.now() % 1_000_000);
  const rnd = seededRandom(seed);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)]!;
  const drugs = ['warfarin', 'metformin', 'apixaban', 'amlodipine', 'digoxin', 'bisoprolol', 'ramipril', 'sertraline'];
  const units = [['mg', 'MG', 'milligrams'], ['mcg', 'µg', 'ug', 'micrograms'], ['units', 'Units'], ['mL', 'ml']];
  const allergens = ['penicillin', 'sulfa', 'latex', 'codeine', 'iodine', 'aspirin'];
  for (let i = 0; i < 300; i++) {
    const drug = pick(drugs);
    const spellings = pick(units);
    const dose = String(1 + Math.floor(rnd() * 500)) + (rnd() < 0.3 ? '.5' : '');
    const allergen = pick(allergens);
    const age = 18 + Math.floor(rnd() * 80);
    const sp = () => (rnd() < 0.5 ? ' ' : '');
    const source = `${pick([`A ${age}-year-old man`, `${age}F`, `aged ${age}`, `${age} yo`])}. ${pick([`Allergic to ${allergen}.`, `Allergies: ${allergen}.`, `${allergen} allergy.`])} Takes ${drug}${sp()} ${dose}${sp()}${pick(spellings)} daily.`;
    const facts = extractFacts([source]);
    const context = `seed ${seed} case ${i}: ${source}`;
    assert.equal(facts.length, 3, `${context} → ${JSON.stringify(facts.map((f) => f.label))}`);
    const restated = `Patient ${age} years old. ALLERGY: ${allergen.toUpperCase()}. Medications: ${drug.toUpperCase()} ${dose}${sp()}${pick(spellings)} once daily.`;
    assert.deepEqual(missingFacts(facts, restated).map((f) => f.label), [], `${context} | ${restated}`);
    const other = String(Number(dose) + 10);
    const wrong = `Patient. Medications: ${drug} ${other} ${spellings[0]}.`;
    assert.equal(missingFacts(facts, wrong).length, 3, `${context} | ${wrong}`);
  }
});

test('huge and odd inputs are checked in linear time', () => {
  const odd = ['aé'.repeat(200_000), '1'.repeat(400_000), 'a-'.repeat(200_000), '过'.repeat(400_000), ' '.repeat(400_000) + '5', 'allergic to '.repeat(30_000)];
  const started = Date.now();
  for (const text of odd) {
    extractFacts([text]);
    missingFacts(extractFacts(['allergic to penicillin, warfarin 5 mg, 72 yo']), text);
  }
  // Linear takes about a second for all of them; a scan that went back over the text (quadratic)
  // would take minutes. The bound only tells the two apart, also on a machine busy with other work.
  assert.ok(Date.now() - started < 60_000, `took ${Date.now() - started} ms`);
});

test('thousands separators and decimal commas', () => {
  assert.deepEqual(missing('heparin 5,000 IU', 'Heparin 5000 iu twice daily'), []);
  assert.deepEqual(missing('digoxin 0,125 mg', 'digoxin 0.125mg'), []);
  assert.deepEqual(missing('heparin 5000 IU', 'heparin 500 IU'), ['heparin 5000 IU']);
});
