import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DIRECT_KINDS } from '../../src/core/privacy/kinds.js';
import { scan } from '../../src/core/privacy/scanner.js';
import { loadPrivacySet, parseMarked, precision, recall, scoreFindings } from '../support/privacy-set.js';

/**
 * The labelled set (test/fixtures/privacy/) against the goals: recall >= 0.97 on the
 * direct identifiers, precision >= 0.90. bench/privacy.ts prints the figures by kind and part.
 */
const notes = loadPrivacySet();

test('the labelled set: at least 60 notes, English and Chinese, with negatives, every mark well formed', () => {
  assert.ok(notes.length >= 60, `${notes.length} notes`);
  assert.ok(notes.some((n) => /[\u4e00-\u9fff]/.test(n.text)), 'some Chinese notes');
  const negatives = notes.filter((n) => n.gold.length === 0);
  assert.ok(negatives.length >= 10, `${negatives.length} notes with nothing to find`);
  for (const n of notes) for (const g of n.gold) assert.equal(n.text.slice(g.start, g.end), g.text, n.name);
});

test('the markup: {{KIND:text}} is stripped and becomes a gold span', () => {
  const { text, gold } = parseMarked('Pt {{NAME:Ann Lee}}, DOB {{DATE:1/2/1950}}.');
  assert.equal(text, 'Pt Ann Lee, DOB 1/2/1950.');
  assert.deepEqual(gold, [
    { kind: 'NAME', start: 3, end: 10, text: 'Ann Lee' },
    { kind: 'DATE', start: 16, end: 24, text: '1/2/1950' },
  ]);
  assert.throws(() => parseMarked('{{NAMES:x}}'), /unknown kind/);
});

test('every part of the set meets the goals: direct-identifier recall >= 0.97, precision >= 0.90', () => {
  for (const part of ['tuning', 'heldout-a', 'heldout-b'] as const) {
    const set = notes.filter((n) => n.part === part);
    if (!set.length) continue;
    const s = scoreFindings(set, (n) => scan(n.text));
    const missed = s.misses.filter((m) => DIRECT_KINDS.has(m.gold.kind)).map((m) => `${m.note}: ${m.gold.kind} ${JSON.stringify(m.gold.text)}`);
    assert.ok(recall(s.direct) >= 0.97, `${part}: recall ${recall(s.direct).toFixed(3)}; missed:\n${missed.join('\n')}`);
    const wrong = s.falsePositives.map((f) => `${f.note}: ${f.finding.kind} ${JSON.stringify(f.finding.text)}`);
    assert.ok(precision(s.all) >= 0.9, `${part}: precision ${precision(s.all).toFixed(3)}; wrongly found:\n${wrong.join('\n')}`);
  }
});

test('notes with only clinical text (doses, vitals, labs, codes, genes, eponyms) have nothing found', () => {
  for (const n of notes.filter((x) => x.gold.length === 0)) {
    assert.deepEqual(
      scan(n.text).map((f) => `${f.kind}:${f.text}`),
      [],
      n.name,
    );
  }
});
