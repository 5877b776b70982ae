import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PrivacyGuard } from '../../src/core/privacy/guard.js';

/**
 * Placeholders cannot be forged by the text they guard: only values medchat itself replaced are
 * put back, and only where medchat's own placeholder stands (issue 21, item 1).
 */
const echoBack = (guard: PrivacyGuard, typed: string) => {
  const sent = guard.prepare(typed, 'redact').text;
  return { sent, shown: guard.restore(sent).text };
};

test('placeholder-looking text the user typed is never put back as the patient', () => {
  for (const forged of ['[NAME 1]', 'NAME-1', '[name-1]', '[NAME-1]', '[ NAME _ 01 ]']) {
    const typed = `Patient: John Smith. His neighbour ${forged} called the ambulance.`;
    const guard = new PrivacyGuard();
    const { sent, shown } = echoBack(guard, typed);
    assert.ok(!sent.includes('John Smith'), sent);
    assert.equal(shown, typed, `${forged}: the answer echoing the text shows it as typed`);
    assert.equal(guard.placeholders.valueOf('[NAME-1]'), undefined, `${forged}: its number is not ours`);
  }
});

test('a huge number in the text does not push ours out of reach: the smallest free number is used', () => {
  const typed = 'Patient: John Smith. See [NAME-999999] and [NAME 2].';
  const guard = new PrivacyGuard();
  const { sent, shown } = echoBack(guard, typed);
  // ([NAME-999999] reads as a hospital-style code and is itself replaced; it comes back as typed.)
  assert.match(sent, /^Patient: \[NAME-1\]\. See .* and \[NAME 2\]\.$/);
  assert.equal(shown, typed);
  assert.equal(guard.restore('[NAME-1] again').text, 'John Smith again');
});

test('a later question (or resent text) that writes one of ours is escaped, not read as ours', () => {
  const guard = new PrivacyGuard();
  assert.equal(guard.prepare('Patient: John Smith.', 'redact').text, 'Patient: [NAME-1].');
  const later = guard.prepare('And who is [NAME 1]? Or NAME-1, or [NAME-1]?', 'redact').text;
  assert.equal(guard.restore(later).text, later, 'nothing in the user’s later text is put back');
  assert.ok(!/John Smith/.test(guard.restore(later).text));
  // Sealed text keeps our exact form (medchat's own redacted text, resent) but escapes the rest.
  const sealed = guard.seal('Patient: [NAME-1]. Neighbour [name 1].');
  assert.equal(guard.restore(sealed).text, 'Patient: John Smith. Neighbour [name\u20111].');
});

test('the model rewriting our own placeholder still gets the value back', () => {
  const guard = new PrivacyGuard();
  guard.prepare('Patient: John Smith.', 'redact');
  assert.equal(guard.restore('[NAME 1], [name-1], NAME-1, [NAME-01].').text, 'John Smith, John Smith, John Smith, John Smith.');
});
