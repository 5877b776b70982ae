// The privacy guard's question is tidy at any width: what was found is cut
// only between its counts, and the keys only between keys, never one left alone on a row.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { privacyPromptRows } from '../../src/ui/components/PrivacyPrompt.js';
import { wrapAtSeparators } from '../../src/ui/text/wrap-pieces.js';
import { textWidth } from '../../src/core/text/width.js';

const CHOICES = 'Enter send anyway · r redact · e edit';
const FOUND = '⚠ found 2 names, 1 date, 1 phone/fax number, 1 record/account number, 1 address/postcode';

test('the keys sit together on one row from 50 columns up; narrower (down to 21, the screen\'s least is 20), each key stays whole', () => {
  for (let width = 50; width <= 200; width++) assert.deepEqual(privacyPromptRows({ choices: CHOICES }, width).choices, [`choose: ${CHOICES}`], `${width} columns`);
  for (let width = 21; width < 50; width++) {
    const rows = privacyPromptRows({ choices: CHOICES }, width).choices;
    for (const key of ['Enter send anyway', 'r redact', 'e edit']) assert.ok(rows.some((r) => r.includes(key)), `${key} whole at ${width}: ${rows.join(' / ')}`);
    for (const r of rows) assert.ok(textWidth(r) <= width - 4, `inside the box at ${width}: ${r}`);
  }
});

test('what was found is cut only between counts, each continuation indented, no row wider than the window', () => {
  for (let width = 30; width <= 120; width++) {
    const rows = wrapAtSeparators(FOUND, ', ', width, { indent: '  ', keepSeparator: true });
    for (const r of rows) assert.ok(textWidth(r) <= width, `${width}: ${r}`);
    assert.equal(rows.join(' ').replace(/ {2,}/g, ' '), FOUND, `nothing lost or reordered at ${width}`);
    for (const count of ['2 names', '1 date', '1 phone/fax number', '1 record/account number', '1 address/postcode'])
      assert.ok(rows.some((r) => r.includes(count)), `${count} whole at ${width}: ${rows.join(' / ')}`);
    rows.slice(1).forEach((r) => assert.match(r, /^ {2}\d/, `continuation rows start with a count: ${r}`));
    rows.slice(0, -1).forEach((r) => assert.match(r, /,$/, `a cut row ends with its comma: ${r}`));
  }
  assert.deepEqual(wrapAtSeparators(FOUND, ', ', 100, { indent: '  ', keepSeparator: true }), [FOUND]);
});

test('what was typed meanwhile: named in the box, the end of it when long', () => {
  assert.deepEqual(privacyPromptRows({ choices: CHOICES, notTyped: 'what' }, 80).note, ['"what" not typed: the box is waiting for your choice']);
  const narrow = privacyPromptRows({ choices: CHOICES, notTyped: 'what' }, 40).note;
  assert.ok(narrow.length > 1 && narrow.every((r) => textWidth(r) <= 36), narrow.join(' / '));
});
