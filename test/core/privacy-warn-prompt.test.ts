import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SessionPrivacy } from '../../src/core/privacy/session-privacy.js';
import { WarnPrompt, type WarnDecision } from '../../src/core/privacy/warn-prompt.js';

const note = 'Patient: Margaret Ellison, MRN K4471902. Summarise.';
const prompt = (mode: 'warn' | 'redact' | 'off' = 'warn') => new WarnPrompt(SessionPrivacy.open([], { mode }));
const sent = (d: WarnDecision) => (d.do === 'send' ? d.text : undefined);

test('warn: a question with identifiers is held, with a line saying what was found and the keys', () => {
  const p = prompt();
  const d = p.submit(note);
  assert.deepEqual(d, { do: 'ask', found: '⚠ found 1 name, 1 record/account number', choices: 'Enter send anyway · r redact · e edit' });
  assert.ok(p.asking);
});

test('warn never sends without the user choosing: other keys, a second Enter on the input, nothing', () => {
  const p = prompt();
  p.submit(note);
  for (const k of ['x', 'y', ' ', 'q', '1', 'n', '\t', 's', 'S']) assert.deepEqual(p.key(k), { do: 'wait' }, `key ${JSON.stringify(k)}`);
  assert.deepEqual(p.key('r', { ctrl: true }), { do: 'wait' }, 'Ctrl+R is no choice');
  assert.deepEqual(p.submit('another question'), { do: 'wait' }, 'a new question cannot slip past the one waiting');
  assert.ok(p.asking, 'still asking');
});

test('Enter, and only Enter, sends the question as typed (a word typed ahead starting with s does not)', () => {
  const p = prompt();
  p.submit(note);
  assert.deepEqual(p.key('s'), { do: 'wait' });
  const d = p.key('', { return: true });
  assert.equal(sent(d), note);
  assert.equal(d.do === 'send' && d.redacted, false);
  assert.ok(!p.asking);
});

test('r sends it with placeholders; the same values keep their placeholders on later questions', () => {
  const p = prompt();
  p.submit(note);
  const d = p.key('r');
  assert.equal(sent(d), 'Patient: [NAME-1], MRN [MRN-1]. Summarise.');
  assert.equal(d.do === 'send' && d.redacted, true);
  p.submit('And Mrs Margaret Ellison on 4 March 2025?');
  assert.equal(sent(p.key('r')), 'And Mrs [NAME-1] on [DATE-1]?');
});

test('e, Esc or Ctrl+C puts the question back in the input box, unsent', () => {
  for (const [input, info] of [['e', {}], ['', { escape: true }], ['c', { ctrl: true }]] as const) {
    const p = prompt();
    p.submit(note);
    assert.deepEqual(p.key(input, info), { do: 'edit', text: note });
    assert.ok(!p.asking);
  }
});

test('nothing found, redact mode and off mode do not ask', () => {
  assert.equal(sent(prompt().submit('What is a normal INR on warfarin? Day 3, BP 120/80.')), 'What is a normal INR on warfarin? Day 3, BP 120/80.');
  assert.equal(sent(prompt('redact').submit(note)), 'Patient: [NAME-1], MRN [MRN-1]. Summarise.');
  assert.equal(sent(prompt('off').submit(note)), note);
});

test('keys when nothing is being asked do nothing', () => {
  const p = prompt();
  assert.deepEqual(p.key('r'), { do: 'wait' });
  assert.deepEqual(p.cancel(), { do: 'wait' });
});
