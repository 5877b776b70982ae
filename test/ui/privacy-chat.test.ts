// The patient-identifier guard in the chat screen: in warn mode nothing is sent until the
// user chooses (send anyway, redact, edit); in redact mode placeholders go out and the answer is
// shown with the values back, marked; placeholders stay the same across turns of one conversation.
import assert from 'node:assert/strict';
import { after, afterEach, before, test } from 'node:test';
import { cleanup } from 'ink-testing-library';
import { startServiceDouble, type ServiceDouble } from '../../src/stand-in/index.js';
import type { RecordedRequest } from '../../src/stand-in/server.js';
import path from 'node:path';
import { SessionStore } from '../../src/core/sessions/store.js';
import { renderChat } from '../support/tui.js';
import { tempDir } from '../support/temp.js';

let double: ServiceDouble;
before(async () => {
  double = await startServiceDouble();
  // The double answers with the question it received.
  double.chat.defaultScript = { reasoning: [], content: (req: RecordedRequest) => [`Received: ${(req.body.messages as Array<{ content: string }>).at(-1)!.content}`] };
});
after(() => double.close());
afterEach(() => cleanup());

const QUESTION = 'Is Mrs Margaret Ellison (MRN K4471902) fit for discharge?';
const lastSent = () => String((double.chat.requests.at(-1)!.body as { messages: Array<{ content: string }> }).messages.at(-1)!.content);
const settle = () => new Promise((r) => setTimeout(r, 300));

test('warn: a question with identifiers waits for a choice; nothing is sent until the user picks', async () => {
  const t = await renderChat(double.url, { privacy: { mode: 'warn' } });
  const before = double.chat.requests.length;
  await t.send(QUESTION);
  await t.waitForText('Enter send anyway · r redact · e edit');
  assert.match(t.screen(), /⚠ found 1 name, 1 record\/account number/);
  await settle();
  assert.equal(double.chat.requests.length, before, 'nothing sent while the screen asks');
  t.type('x'); // not a choice: nothing happens
  await settle();
  assert.equal(double.chat.requests.length, before);
  t.press('\r'); // send anyway
  await t.waitForText('sent as typed');
  await t.idle();
  assert.equal(double.chat.requests.length, before + 1);
  assert.equal(lastSent(), QUESTION);
});

test('warn: what is typed or pasted while it asks is not typed, and the box says so, naming it; s and a paste holding r are no choice', async () => {
  const t = await renderChat(double.url, { privacy: { mode: 'warn' } });
  const before = double.chat.requests.length;
  await t.send(QUESTION);
  await t.waitForText('choose: Enter send anyway · r redact · e edit');
  t.type('x');
  await t.waitForText('"x" not typed: the box is waiting for your choice');
  t.press('\x1b[200~so redo it\x1b[201~');
  await t.waitForText('"xso redo it" not typed');
  t.type('s'); // once a hidden "send anyway": a word typed ahead must not send the identifiers
  await t.waitForText('"xso redo its" not typed');
  await settle();
  assert.equal(double.chat.requests.length, before, 'nothing sent: no letter but r or e is a choice, and a paste never is');
  t.press('\r');
  await t.waitForText('sent as typed');
  await t.idle();
  assert.equal(lastSent(), QUESTION);
  assert.doesNotMatch(t.screen(), /not typed/, 'the note goes with the question');
});

test('warn, then r: the question goes out redacted and the answer comes back with the values in ⟦ ⟧', async () => {
  const t = await renderChat(double.url, { privacy: { mode: 'warn' } });
  await t.send(QUESTION);
  await t.waitForText('r redact');
  t.type('r');
  await t.waitForText('⟦Margaret Ellison⟧');
  await t.idle();
  const sent = double.chat.requests.at(-1)!.rawBody;
  assert.ok(!sent.includes('Margaret Ellison') && !sent.includes('K4471902'), sent);
  assert.equal(lastSent(), 'Is Mrs [NAME-1] (MRN [MRN-1]) fit for discharge?');
  assert.match(t.screen(), /Received: Is Mrs ⟦Margaret Ellison⟧ \(MRN ⟦K4471902⟧\) fit for discharge\?/);
  assert.match(t.screen(), /replaced 1 name, 1 record\/account number before sending/);
});

test('warn, then e (or Esc): not sent; the question is back in the box to edit', async () => {
  const t = await renderChat(double.url, { privacy: { mode: 'warn' } });
  const before = double.chat.requests.length;
  await t.send(QUESTION);
  await t.waitForText('e edit');
  t.press('\x1b');
  await t.waitForText('not sent: your question is back in the box');
  await t.waitForText(`› ${QUESTION}`);
  await settle();
  assert.equal(double.chat.requests.length, before);
});

test('redact: sent with placeholders without asking; the same person keeps the same placeholder next turn', async () => {
  const t = await renderChat(double.url, { privacy: { mode: 'redact' } });
  await t.send(QUESTION);
  await t.waitForText('⟦K4471902⟧');
  await t.idle();
  assert.doesNotMatch(t.screen(), /Enter send anyway/);
  await t.send('Her GP is Dr Ruth Okafor; Margaret Ellison lives alone.');
  await t.waitForText('⟦Ruth Okafor⟧');
  await t.idle();
  assert.equal(lastSent(), 'Her GP is Dr [NAME-2]; [NAME-1] lives alone.');
  const history = (double.chat.requests.at(-1)!.body as { messages: Array<{ content: string }> }).messages.map((m) => m.content).join('\n');
  assert.ok(!history.includes('Margaret Ellison'), 'the history resent holds the placeholders, not the values');
});

test('clinical text alone is sent at once in warn mode, with no line', async () => {
  const t = await renderChat(double.url, { privacy: { mode: 'warn' } });
  await t.send('BP 128/76, amoxicillin 500 mg TDS, day 3: any concern?');
  await t.waitForText('Received: BP 128/76');
  assert.doesNotMatch(t.screen(), /found/);
});

test('a redacted conversation resumed shows the questions as typed and the answers as shown, not the placeholders sent', async () => {
  const store = new SessionStore(path.join(tempDir('medchat-ui-privacy-'), 'sessions'));
  const first = await renderChat(double.url, { privacy: { mode: 'redact' }, store, settings: { history: true } });
  await first.send(QUESTION);
  await first.waitForText('⟦K4471902⟧');
  await first.idle();
  const id = first.controller.session.id;
  first.ui.unmount();
  const again = await renderChat(double.url, { privacy: { mode: 'redact' }, store, settings: { history: true }, resume: id });
  await again.waitForText(`› ${QUESTION}`);
  assert.match(again.screen(), /Received: Is Mrs Margaret Ellison \(MRN K4471902\) fit for discharge\?/);
  const transcript = again.screen().split('\n').filter((l) => !l.startsWith('resumed session'));
  assert.ok(!transcript.some((l) => /\[NAME-1\]|\[MRN-1\]/.test(l)), transcript.join('\n'));
});
