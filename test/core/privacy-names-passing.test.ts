import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PrivacyGuard } from '../../src/core/privacy/guard.js';
import { scan } from '../../src/core/privacy/scanner.js';
import { loadNamesSet, type NamesPart } from '../support/privacy-names-set.js';
import { precision, recall, scoreFindings } from '../support/privacy-set.js';

/**
 * Names written in passing (issue 23): the goals on the labelled notes, and eponyms and clinical terms
 * left alone. names-tuning and names-heldout 1-6 have all been tuned on (each held-out set was written
 * before the fixes its predecessor's misses led to, then fixed in its turn): recall >= 0.99
 * (bench/privacy-names.ts prints every set and the record of first looks). names-heldout-7 was written before
 * round 3's change of approach (a name on the list is a name unless context rejects it) and has not been tuned
 * on: its first look, 0.950 (38/40), meets the issue's goal of 0.95, which this test holds it to.
 */
const TUNED = ['names-tuning', 'names-heldout', 'names-heldout-2', 'names-heldout-3', 'names-heldout-4', 'names-heldout-5', 'names-heldout-6'] as const;
const GOALS: Record<NamesPart, number> = { 'names-tuning': 0.99, 'names-heldout': 0.99, 'names-heldout-2': 0.99, 'names-heldout-3': 0.99, 'names-heldout-4': 0.99, 'names-heldout-5': 0.99, 'names-heldout-6': 0.99, 'names-heldout-7': 0.95 };

for (const part of [...TUNED, 'names-heldout-7'] as const) {
  test(`${part}: name recall >= ${GOALS[part]}, precision >= 0.90`, () => {
    const notes = loadNamesSet(part);
    assert.ok(notes.length >= 7, `${notes.length} notes`);
    const s = scoreFindings(notes, (n) => scan(n.text));
    const missed = s.misses.filter((m) => m.gold.kind === 'NAME').map((m) => `${m.note}: ${JSON.stringify(m.gold.text)}`);
    const wrong = s.falsePositives.map((f) => `${f.note}: ${f.finding.kind} ${JSON.stringify(f.finding.text)}`);
    assert.ok(recall(s.byKind.NAME) >= GOALS[part], `recall ${recall(s.byKind.NAME).toFixed(3)}; missed:\n${missed.join('\n')}`);
    assert.ok(precision(s.all) >= 0.9, `precision ${precision(s.all).toFixed(3)}; wrongly found:\n${wrong.join('\n')}`);
  });
}

test('the names the issue quotes are found, with nothing else', () => {
  const found = (t: string) => scan(t).map((f) => `${f.kind}:${f.text}`);
  assert.deepEqual(found('Spoke to Tom this morning.'), ['NAME:Tom']);
  assert.deepEqual(found('Plan discussed with Oluwaseun, night registrar.'), ['NAME:Oluwaseun']);
  assert.deepEqual(found('gastro (Rajesh) prefers to scope on Thursday.'), ['NAME:Rajesh']);
  assert.deepEqual(found('下午与张伟沟通后，同意继续治疗。'), ['NAME:张伟']);
});

test('Chinese names before a title and inside 接…班 are found, and words after 患者 that only start with a surname are not', () => {
  const found = (t: string) => scan(t).map((f) => `${f.kind}:${f.text}`);
  assert.deepEqual(found('今日邵文杰副主任医师查房。'), ['NAME:邵文杰']);
  assert.deepEqual(found('夜班蔡明接余慧班。'), ['NAME:蔡明', 'NAME:余慧']);
  assert.deepEqual(found('今晚王强接李娜班，护士长张敏已知晓。'), ['NAME:王强', 'NAME:李娜', 'NAME:张敏']);
  assert.deepEqual(found('晚间巡视，患者安静入睡，患者明显好转。'), []);
});

/** Eponyms, scales, drugs, places and clinical words, each in a sentence as notes write them: nothing found. */
const TERMS = [
  "Addison's disease", 'Apgar 9', 'Whipple procedure', "Bell's palsy", 'Kayser-Fleischer rings', 'Glasgow Coma Scale 15',
  "Parkinson's disease", "Alzheimer's disease", "Crohn's disease", "Graves' disease", "Hashimoto's thyroiditis", "Cushing's syndrome",
  "Conn's syndrome", 'Down syndrome', 'Marfan syndrome', 'Turner syndrome', 'Stevens-Johnson syndrome', 'Guillain-Barre syndrome',
  "Wilson's disease", 'Hodgkin lymphoma', "Burkitt's lymphoma", "Kaposi's sarcoma", "Wilms' tumour", "Paget's disease of bone",
  "Meniere's disease", "Dupuytren's contracture", "Barrett's oesophagus", "Raynaud's phenomenon", "Sjogren's syndrome",
  "Huntington's disease", "Hirschsprung's disease", 'Ebstein anomaly', 'Fontan circulation', 'Tetralogy of Fallot',
  "Murphy's sign", "Rovsing's sign", "McBurney's point", 'Babinski sign', 'Romberg test', "Kernig's sign", "Trousseau's sign",
  "Chvostek's sign", "Tinel's test", "Phalen's test", 'Lachman test', 'McMurray test', "Battle's sign", 'Trendelenburg sign',
  'Cheyne-Stokes breathing', 'Kussmaul respiration', 'Korotkoff sounds', 'Osler nodes', 'Janeway lesions', 'Roth spots',
  "Virchow's node", 'Wells score 2', 'Child-Pugh score B', 'CURB-65 score 1', 'Epworth score 6', 'Bishop score 8',
  'Mallampati class 2', 'Gleason score 7', 'Breslow thickness 1.2 mm', 'Barthel index 100', 'Waterlow 14', 'Braden 16',
  'Norton score 12', 'Morse falls score 45', 'Abbey pain scale 3', 'Lund and Browder chart', 'Parkland formula',
  'Ottawa ankle rules', 'Canadian CT head rule', 'Centor score 3', 'Rockall score 2', 'Schober test 4 cm', 'Swan-Ganz catheter',
  'Foley catheter', 'Hickman line', 'Holter monitor', 'Doppler ultrasound', 'Gram stain', 'Ziehl-Neelsen stain', 'Mantoux test',
  'Snellen chart', 'Venturi mask', 'Guedel airway', 'Warfarin 5 mg', 'Heparin infusion', 'Augmentin 625 mg', 'Tazocin 4.5 g',
  'Clexane 40 mg', 'Lantus 20 units', 'Humalog 6 units', 'Madopar 125 mg', 'Keppra 500 mg', 'Lasix 40 mg', 'Eliquis 5 mg',
  'Aldactone 25 mg', 'Oramorph 5 mg', 'Ventolin 2 puffs', 'Clindamycin', 'Cefalexin', 'Tramadol', 'Synacthen test',
  'Staph aureus', 'Campylobacter', 'Klebsiella', 'Pseudomonas', 'Candida',
];
const PLACES = ['London', 'Manchester', 'Leeds', 'Brighton', 'Bristol', 'Coventry', 'Cambridge', 'Birmingham', 'Glasgow', 'Edinburgh', 'Dublin', 'Mumbai', 'Lagos'];
const FRAMES = ['History of {} noted.', 'Known {}; stable.', 'Patient has {} and is on treatment.', '{} was discussed at the MDT.'];

test(`${TERMS.length} eponyms, scales, drugs and clinical terms and ${PLACES.length} places in sentences: nothing found`, () => {
  assert.ok(TERMS.length >= 100);
  const wrong: string[] = [];
  for (const term of TERMS) for (const frame of FRAMES) {
    const text = frame.replace('{}', term);
    for (const f of scan(text)) wrong.push(`${JSON.stringify(text)} → ${f.kind} ${JSON.stringify(f.text)}`);
  }
  for (const place of PLACES) for (const text of [`Lives in ${place}.`, `Previously treated in ${place} and transferred.`, `Seen at ${place} General in May.`]) {
    for (const f of scan(text)) wrong.push(`${JSON.stringify(text)} → ${f.kind} ${JSON.stringify(f.text)}`);
  }
  for (const text of ['高血压病史10年，白蛋白28 g/L，黄体酮、黄连素口服。', '诊断：库欣综合征、帕金森病、马凡综合征。', '左侧肢体乏力，石膏固定良好，周围血管未见异常。']) {
    for (const f of scan(text)) wrong.push(`${JSON.stringify(text)} → ${f.kind} ${JSON.stringify(f.text)}`);
  }
  assert.deepEqual(wrong, []);
});

test('redact replaces a name in passing with the usual placeholder and puts it back in the answer', () => {
  const guard = new PrivacyGuard();
  const out = guard.prepare("Spoke to Tom this morning about his Addison's disease.", 'redact');
  assert.equal(out.text, "Spoke to [NAME-1] this morning about his Addison's disease.");
  assert.equal(guard.restore('Tell [NAME-1] to carry a steroid card.').text, 'Tell Tom to carry a steroid card.');
});
