// What the user types while an answer streams: commands run when it ends, so
// their output follows the answer; /new closes the answer out first; a question is queued.
import assert from 'node:assert/strict';
import { after, afterEach, before, test } from 'node:test';
import { cleanup } from 'ink-testing-library';
import { startServiceDouble, type ServiceDouble } from '../support/misbehaving-service.js';
import { WAIT_MS, waitFor } from '../support/cli.js';
import { renderChat, sentMessages } from '../support/tui.js';

let double: ServiceDouble;
before(async () => {
  double = await startServiceDouble();
});
after(() => double.close());
afterEach(() => cleanup());


/** `parts` appear on the screen in this order, each once. */
function inOrder(screen: string, parts: string[]): void {
  let at = 0;
  for (const p of parts) {
    const i = screen.indexOf(p, at);
    assert.ok(i >= 0, `"${p}" after position ${at}\n--- screen ---\n${screen}`);
    assert.equal(screen.split(p).length, 2, `"${p}" shown once\n--- screen ---\n${screen}`);
    at = i + p.length;
  }
}

test('/tokens typed while an answer streams waits for it: its output comes after the whole answer, and counts it', async () => {
  double.chat.enqueue({ reasoning: ['Check ', 'the dose.'], content: ['Para one.\n\n', 'Para ', 'two ', 'goes ', 'on.'], paceMs: 150 });
  const t = await renderChat(double.url);
  await t.send('dose?');
  await t.waitForText('Para two');
  await t.send('/tokens');
  await t.waitForText('queued: /tokens (runs when this answer ends; Esc to cancel)');
  assert.doesNotMatch(t.screen(), /Context window/, 'nothing printed inside the answer');
  await t.waitForText('Context window');
  await t.idle();
  const s = t.screen();
  inOrder(s, ['› dose?', '▸ Thought for', 'Para one.', 'Para two goes on.', 'Context window', 'kept turns']);
  assert.doesNotMatch(s, /queued:/);
  assert.match(s, /kept turns +\d+ +\(1 turn word for word\)/);
});

test('/new while an answer streams stops it, closes it out under the old conversation, then starts the new one', async () => {
  // Thinking off: with it on and no reasoning field, core holds the first 512 characters back to catch a missing <think> tag.
  double.chat.enqueue({ content: ['The partial ', 'answer', ' never ends'], stallAfter: 2 });
  const t = await renderChat(double.url, { settings: { thinking: false } });
  await t.send('first question');
  await t.waitForText('The partial answer');
  const old = t.controller.conversation;
  await t.send('/new');
  await t.waitForText('new conversation');
  await t.idle();
  inOrder(t.screen(), ['› first question', 'The partial answer', '■ interrupted', 'new conversation']);
  assert.equal(old.lastTurn?.status, 'interrupted');
  assert.equal(old.lastTurn?.answer, 'The partial answer');
  double.chat.enqueue({ reasoning: [], content: ['Fresh.'] });
  await t.send('second question');
  await t.idle();
  assert.deepEqual(sentMessages(double, -1), [{ role: 'user', content: 'second question' }]);
});

test('Enter while an answer streams queues the question; it is sent when the answer ends, with that answer before it', async () => {
  double.chat.enqueue({ content: ['Adults: ', '400 mg ', 'every ', 'six ', 'hours.'], paceMs: 150 });
  const t = await renderChat(double.url, { settings: { thinking: false } });
  const before = double.chat.requests.length;
  await t.send('ibuprofen dose?');
  await t.waitForText('Adults:');
  await t.send('and for children?');
  await t.waitForText('queued: and for children? (sent when this answer ends; Esc to cancel)');
  assert.equal(double.chat.requests.length, before + 1, 'not sent yet');
  double.chat.enqueue({ content: ['By weight.'] });
  await t.waitForText('By weight.');
  await t.idle();
  assert.deepEqual(sentMessages(double, -1), [
    { role: 'user', content: 'ibuprofen dose?' },
    { role: 'assistant', content: 'Adults: 400 mg every six hours.' },
    { role: 'user', content: 'and for children?' },
  ]);
  inOrder(t.screen(), ['› ibuprofen dose?', 'Adults: 400 mg every six hours.', '› and for children?', 'By weight.']);
  assert.doesNotMatch(t.screen(), /queued:/);
});

test('Esc takes back the queued question first, into the box; the next Esc stops the answer', async () => {
  double.chat.enqueue({ content: ['Still ', 'going'], stallAfter: 2 });
  const t = await renderChat(double.url, { settings: { thinking: false } });
  await t.send('first');
  await t.waitForText('Still going');
  const sent = double.chat.requests.length;
  await t.send('second');
  await t.waitForText('queued: second');
  t.press('\x1b');
  await waitFor(() => !t.screen().includes('queued:'), WAIT_MS, 'the queued question to go');
  await t.waitForText('› second'); // back in the box
  assert.equal(t.controller.busy, true, 'the answer still streams');
  assert.doesNotMatch(t.screen(), /interrupted/);
  t.press('\x1b');
  await t.waitForText('■ interrupted');
  await t.idle();
  assert.equal(double.chat.requests.length, sent, 'the taken-back question was never sent');
  t.press('\r');
  await t.waitForText('You said: second');
});

test('each Esc that takes back a queued line says so in one line: back in the box, or (the box being full) not sent, Up recalls it', async () => {
  double.chat.enqueue({ content: ['Still ', 'going'], stallAfter: 2 });
  const t = await renderChat(double.url, { settings: { thinking: false } });
  await t.send('first');
  await t.waitForText('Still going');
  await t.send('second');
  await t.send('third');
  await t.waitForText('queued: third');
  t.press('\x1b');
  await t.waitForText('taken back: "third" is back in the box, not sent');
  await t.waitForText('› third');
  t.press('\x1b');
  // The box holds "third": "second" cannot go back into it, and the screen says where it went.
  await t.waitForText('taken back: "second" was not sent; Up recalls it');
  await waitFor(() => !t.screen().includes('queued:'), WAIT_MS, 'the queue to be empty');
  assert.equal(t.controller.busy, true, 'the answer still streams');
  t.press('\x1b');
  await t.waitForText('■ interrupted');
  await t.idle();
});

test('a question queued behind an answer that fails is not sent, and the screen says so', async () => {
  double.chat.enqueue({ status: 401, headerDelayMs: 2000, body: JSON.stringify({ error: { message: 'Invalid API key', type: 'auth' } }) });
  const t = await renderChat(double.url);
  await t.send('first');
  await t.waitForText('Waiting for the answer');
  const sent = double.chat.requests.length;
  await t.send('second');
  await t.waitForText('queued: second');
  await t.waitForText('not sent, because the answer failed: "second"; Up recalls it');
  await t.idle();
  assert.equal(double.chat.requests.length, sent);
  inOrder(t.screen(), ['› first', '✗', 'not sent, because the answer failed']);
});
