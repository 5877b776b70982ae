import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PrivacyGuard } from '../../src/core/privacy/guard.js';
import { forgedQuestion } from '../support/forgeries.js';
import { restoredProblems } from '../support/invariants.js';
import { Prng, countFromEnv, seedFromEnv } from '../support/prng.js';

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

/**
 * Generated (seeded): questions holding identifiers and placeholder-like text of every kind and
 * form, over one to three turns of one conversation. An answer echoing what was sent shows each
 * question as typed (only a forgery's separator may become a look-alike hyphen); the model writing
 * our placeholders in its own forms gets the values back; a forgery as it was sent never does.
 */
test('generated: placeholder-like text in any form, on any turn, is never put back; ours always are', (t) => {
  const seed = seedFromEnv();
  const root = new Prng(seed);
  const cases = countFromEnv('MEDCHAT_FORGERY_CASES', 400);
  let turns = 0;
  let forgeries = 0;
  let ours = 0;
  const broken: string[] = [];
  for (let i = 0; i < cases; i++) {
    const p = root.fork(i);
    const guard = new PrivacyGuard();
    for (let turn = 0, n = p.int(1, 3); turn < n; turn++) {
      const q = forgedQuestion(p);
      turns++;
      forgeries += q.forged.length;
      const sent = guard.prepare(q.text, 'redact').text;
      const where = `case ${i} turn ${turn + 1} (MEDCHAT_SEED=${seed}): ${JSON.stringify(q.text)}`;
      if (sent.includes('John Smith')) broken.push(`${where}: the name was sent`);
      broken.push(...restoredProblems(guard.restore(sent).text, q.text, where));
      // The model rewrites ours ([NAME-1] → [name 1], NAME-1, [NAME_01]): each still comes back as its value.
      for (const [placeholder, value] of guard.placeholders.entries()) {
        const [, kind, num] = /^\[(\w+)-(\d+)\]$/.exec(placeholder)!;
        const form = p.pick([placeholder, `[${kind!.toLowerCase()} ${num}]`, `${kind}-${num}`, `[${kind}_0${num}]`]);
        ours++;
        const back = guard.restore(`See ${form} again.`).text;
        if (back !== `See ${value} again.`) broken.push(`${where}: our ${placeholder} written ${form} came back as ${JSON.stringify(back)}`);
      }
    }
  }
  const line = `generated forgeries: ${cases} conversations, ${turns} questions, ${forgeries} placeholder-like texts, ${ours} of our placeholders rewritten; seed ${seed}`;
  t.diagnostic(line);
  console.log(`# ${line}`);
  assert.deepEqual(broken.slice(0, 10), [], `${broken.length} broken (seed ${seed})`);
});
