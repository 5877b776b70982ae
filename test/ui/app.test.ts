import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, afterEach, before, test } from 'node:test';
import { cleanup } from 'ink-testing-library';
import { startServiceDouble, type ServiceDouble } from '../support/misbehaving-service.js';
import { SessionStore } from '../../src/core/sessions/store.js';
import { TranscriptViewer } from '../../src/ui/viewer/transcript-viewer.js';
import { rowsFor } from '../../src/core/text/width.js';
import { waitFor } from '../support/cli.js';
import { renderChat, sentMessages } from '../support/tui.js';
import { tempDir } from '../support/temp.js';

let double: ServiceDouble;
before(async () => {
  double = await startServiceDouble();
});
after(() => double.close());
afterEach(() => cleanup());

const bodyOf = (i: number) => double.chat.requests.at(i)?.body as Record<string, unknown>;

test('a question gets its answer, with the reasoning folded to one line above it', async () => {
  double.chat.enqueue({ reasoning: ['Normal is ', 'about 37 °C.'], content: ['A fever is ', '**38 °C** or more.'] });
  const t = await renderChat(double.url);
  await t.waitForText('medchat 0.0.0-test');
  assert.match(t.screen(), /not a diagnosis/);
  await t.send('what is a fever?');
  await t.idle();
  const s = t.screen();
  assert.match(s, /› what is a fever\?/);
  assert.match(s, /▸ Thought for [\d.]+s · 2 tokens/);
  assert.match(s, /A fever is 38 °C or more\./);
  assert.ok(s.indexOf('Thought for') < s.indexOf('A fever is'), 'reasoning comes before the answer');
  assert.doesNotMatch(s, /about 37 °C/, 'folded reasoning is not shown');
  assert.match(s, /first token/);
  assert.deepEqual(sentMessages(double, -1), [{ role: 'user', content: 'what is a fever?' }]);
});

test('Ctrl+O opens the transcript viewer with the reasoning; keys go to it until q; nothing is cleared or reprinted', async () => {
  double.chat.enqueue({ reasoning: ['Check the ', 'adult range.'], content: ['60 to 100.'] });
  const shown: string[] = [];
  let viewer: TranscriptViewer | undefined;
  const t = await renderChat(double.url, {
    openTranscript: () => viewer!.open(),
    overlay: { handleKey: (k) => viewer?.handleKey(k) ?? false },
  });
  viewer = new TranscriptViewer(t.controller, { write: (d) => shown.push(d), columns: () => 80, rows: () => 20, onResize: () => () => {} }, { enter() {}, leave() {} });
  await t.send('heart rate?');
  await t.idle();
  const before = t.screen();
  assert.match(before, /▸ Thought for [\d.]+s · \d+ tokens · Ctrl\+O to read/);
  t.press('\x0f');
  await waitFor(() => viewer!.isOpen);
  const drawn = shown.join('');
  assert.ok(drawn.startsWith('\x1b[?1049h'), 'the alternate screen');
  assert.match(drawn, /│ Check the adult range\./);
  t.type('jk/adult');
  await new Promise((r) => setTimeout(r, 50));
  t.press('\r');
  t.type('q');
  await waitFor(() => !viewer!.isOpen);
  assert.ok(shown.join('').endsWith('\x1b[?1049l'));
  await new Promise((r) => setTimeout(r, 80));
  assert.equal(t.screen(), before, 'the keys went to the viewer, not the input box');
  assert.deepEqual(t.writes, [], 'nothing raw written: no screen clear');
  // Without a viewer (no terminal), Ctrl+O says so.
  cleanup();
  const bare = await renderChat(double.url);
  bare.press('\x0f');
  await bare.waitForText('the transcript viewer needs a terminal');
});

test('a turn with no reasoning shows no reasoning block', async () => {
  double.chat.enqueue({ reasoning: [], content: ['Drink water.'] });
  const t = await renderChat(double.url);
  await t.send('thirsty');
  await t.idle();
  assert.match(t.screen(), /Drink water\./);
  assert.doesNotMatch(t.screen(), /Thought for|Thinking…/);
});

test('Ctrl+C mid-answer stops it, closes the request and keeps the partial answer marked interrupted', async () => {
  double.chat.enqueue({ reasoning: ['r'], content: ['The partial ', 'answer', ' never ends'], stallAfter: 3 });
  const t = await renderChat(double.url);
  await t.send('long one');
  await t.waitForText('The partial answer');
  t.press('\x03');
  await t.waitForText('■ interrupted');
  assert.match(t.screen(), /The partial answer/);
  assert.equal(t.controller.conversation.lastTurn?.status, 'interrupted');
  // The next question carries the partial answer as context.
  await t.send('go on');
  await t.idle();
  assert.deepEqual(sentMessages(double, -1).map((m) => m.role), ['user', 'assistant', 'user']);
  assert.equal(sentMessages(double, -1)[1]!.content, 'The partial answer');
});

test('Esc also stops a streaming answer', async () => {
  // Thinking off: with it on and no reasoning field, core holds the first 512 characters back to catch a missing <think> tag.
  double.chat.enqueue({ content: ['Half'], stallAfter: 1 });
  const t = await renderChat(double.url, { settings: { thinking: false } });
  await t.send('q');
  await t.waitForText('Half');
  t.press('\x1b');
  await t.waitForText('■ interrupted');
});

test('an error shows the next step, keeps the question, and /retry sends it again', async () => {
  double.chat.enqueue({ status: 401, body: JSON.stringify({ error: { message: 'Invalid API key', type: 'auth' } }) });
  const t = await renderChat(double.url);
  await t.send('is aspirin safe?');
  await t.idle();
  assert.match(t.screen().replace(/\n/g, ' '), /✗ .*refused the API key.*medchat config set\s+api-key/);
  assert.match(t.screen(), /\/retry sends it again/);
  double.chat.enqueue({ reasoning: [], content: ['It depends.'] });
  await t.send('/retry');
  await t.idle();
  assert.match(t.screen(), /It depends\./);
  assert.deepEqual(sentMessages(double, -1), [{ role: 'user', content: 'is aspirin safe?' }]);
  assert.equal(t.controller.conversation.turns.length, 1);
});

test('text from the service cannot move the cursor or clear the screen', async () => {
  double.chat.enqueue({ reasoning: [], content: ['safe \x1b[2J\x1b]0;pwned\x07 text'] });
  const t = await renderChat(double.url);
  await t.send('x');
  await t.idle();
  const raw = t.ui.lastFrame() ?? '';
  assert.doesNotMatch(raw, /\x1b\[2J|\x1b\]0;/);
  assert.match(t.screen(), /safe ␛\[2J␛\]0;pwned␇ text/);
});

test('a long answer moves finished paragraphs into the transcript; the live part stays short', async () => {
  const paragraphs = Array.from({ length: 30 }, (_, i) => `Paragraph ${i} ${'words '.repeat(12)}\n\n`);
  double.chat.enqueue({ reasoning: [], content: paragraphs, paceMs: 2 });
  const t = await renderChat(double.url, { rows: 20 });
  let tallest = 0;
  t.controller.subscribe(() => {
    const live = t.controller.snapshot().live;
    if (live) tallest = Math.max(tallest, rowsFor(live.answerTail, 100));
  });
  await t.send('tell me everything');
  await t.idle();
  const answers = t.controller.snapshot().items.filter((i) => i.kind === 'answer');
  assert.ok(answers.length > 3, `answer printed in ${answers.length} parts`);
  assert.ok(tallest <= 20, `live answer reached ${tallest} rows`);
  const s = t.screen();
  for (let i = 0; i < 30; i++) assert.equal(s.split(`Paragraph ${i} `).length, 2, `paragraph ${i} printed exactly once`);
});

test('Ctrl+J, Alt+Enter and backslash-Enter add lines; Enter sends them all', async () => {
  const before = double.chat.requests.length;
  double.chat.enqueue({ reasoning: [], content: ['ok'] });
  const t = await renderChat(double.url);
  t.type('one');
  t.press('\n');
  t.type('two');
  t.press('\x1b\r');
  t.type('three\\');
  t.press('\r');
  t.type('four');
  await t.waitForText('four');
  assert.equal(double.chat.requests.length, before, 'new lines do not send');
  t.press('\r');
  await t.idle();
  assert.equal(sentMessages(double, -1).at(-1)!.content, 'one\ntwo\nthree\nfour');
});

test('a large paste shows as [pasted N lines] and is sent in full', async () => {
  const before = double.chat.requests.length;
  double.chat.enqueue({ reasoning: [], content: ['read it'] });
  const t = await renderChat(double.url);
  const body = Array.from({ length: 40 }, (_, i) => `lab value ${i}`).join('\n');
  t.type('summarise: ');
  t.press(`\x1b[200~${body}\x1b[201~`);
  await t.waitForText('[pasted 40 lines]');
  assert.equal(double.chat.requests.length, before, 'pasting does not send');
  t.press('\r');
  await t.idle();
  assert.equal(sentMessages(double, -1).at(-1)!.content, `summarise: ${body}`);
});

test('Up recalls earlier prompts, kept across runs when history is on', async () => {
  const dir = tempDir('medchat-ui-');
  const historyFile = path.join(dir, 'prompt-history.jsonl');
  const store = new SessionStore(path.join(dir, 'sessions'));
  double.chat.enqueue({ reasoning: [], content: ['a'] });
  const first = await renderChat(double.url, { historyFile, store, settings: { history: true } });
  await first.send('remember me');
  await first.idle();
  cleanup();
  const t = await renderChat(double.url, { historyFile, store, settings: { history: true } });
  t.press('\x1b[A');
  await t.waitForText('› remember me');
  assert.equal(fs.statSync(historyFile).mode & 0o777, 0o600);
});

test('editing keys: Ctrl+W, Ctrl+U, Ctrl+A and typing in the middle', async () => {
  double.chat.enqueue({ reasoning: [], content: ['ok'] });
  const t = await renderChat(double.url);
  t.type('dose of ibuprofen');
  t.press('\x17'); // Ctrl+W
  t.type('paracetamol');
  t.press('\x01'); // Ctrl+A
  t.type('max ');
  await t.waitForText('max dose of paracetamol');
  t.press('\r');
  await t.idle();
  assert.equal(sentMessages(double, -1).at(-1)!.content, 'max dose of paracetamol');
  t.type('junk');
  t.press('\x15'); // Ctrl+U
  await waitFor(() => !t.screen().includes('junk'));
});

test('Ctrl+C clears a draft; on an empty box, twice within 2 s exits', async () => {
  const t = await renderChat(double.url);
  t.type('draft');
  await t.waitForText('draft');
  t.press('\x03');
  await waitFor(() => !t.screen().includes('draft'));
  assert.equal(t.controller.snapshot().exitRequested, false);
  t.press('\x03');
  await t.waitForText('press Ctrl+C again to exit');
  t.press('\x03');
  await waitFor(() => t.controller.snapshot().exitRequested);
});

test('Ctrl+D on an empty box exits', async () => {
  const t = await renderChat(double.url);
  t.press('\x04');
  await waitFor(() => t.controller.snapshot().exitRequested);
});

test('typing / shows the command hints; Tab completes', async () => {
  const t = await renderChat(double.url);
  t.type('/ma');
  await t.waitForText('/max-tokens <n> · most tokens');
  t.press('\t');
  await t.waitForText('› /max-tokens');
});

test('/help lists every command', async () => {
  const t = await renderChat(double.url);
  await t.send('/help');
  await t.waitForText('Commands:');
  for (const name of ['new', 'think', 'system', 'max-tokens', 'retry', 'copy', 'export', 'tokens', 'compact', 'sessions', 'resume', 'retexture', 'reasoning', 'exit']) {
    assert.match(t.screen(), new RegExp(`/${name}\\b`));
  }
});

test('/think off, /max-tokens and /system change the next request', async () => {
  const t = await renderChat(double.url);
  await t.send('/think off');
  await t.waitForText('thinking off');
  await t.send('/max-tokens 512');
  await t.waitForText('max tokens: 512');
  await t.send('/system Answer briefly.');
  await t.waitForText('system prompt set');
  await t.send('/system');
  await t.waitForText('system prompt:\nAnswer briefly.');
  double.chat.enqueue({ content: ['Brief.'] });
  await t.send('why?');
  await t.idle();
  const body = bodyOf(-1);
  assert.equal(body.enable_thinking, false);
  assert.equal(body.max_tokens, 512);
  assert.deepEqual(sentMessages(double, -1)[0], { role: 'system', content: 'Answer briefly.' });
  await t.send('/max-tokens lots');
  await t.waitForText('usage: /max-tokens');
});

test('/new starts over: earlier turns are not sent', async () => {
  const t = await renderChat(double.url);
  double.chat.enqueue({ reasoning: [], content: ['first'] });
  await t.send('one');
  await t.idle();
  await t.send('/new');
  await t.waitForText('new conversation');
  double.chat.enqueue({ reasoning: [], content: ['second'] });
  await t.send('two');
  await t.idle();
  assert.deepEqual(sentMessages(double, -1), [{ role: 'user', content: 'two' }]);
});

test('/export writes Markdown or JSON with the reasoning; /copy sends the answer by OSC 52', async () => {
  const dir = tempDir('medchat-export-');
  const t = await renderChat(double.url);
  double.chat.enqueue({ reasoning: ['hidden thought'], content: ['Visible answer.'] });
  await t.send('q1');
  await t.idle();
  const json = path.join(dir, 'chat.json');
  await t.send(`/export ${json}`);
  await t.waitForText(`saved ${json}`);
  const data = JSON.parse(fs.readFileSync(json, 'utf8'));
  assert.equal(data.turns[0].answer, 'Visible answer.');
  assert.equal(data.turns[0].reasoning, 'hidden thought');
  const md = path.join(dir, 'chat.md');
  await t.send(`/export ${md}`);
  await t.waitForText(`saved ${md}`);
  assert.match(fs.readFileSync(md, 'utf8'), /## You[^\n]*\n\nq1[\s\S]*hidden thought[\s\S]*Visible answer\./);
  process.env.MEDCHAT_NO_CLIPBOARD_TOOL = '1';
  delete process.env.TMUX; // in tmux, OSC 52 is dropped unless allow-passthrough is on: not sent
  await t.send('/copy');
  await t.waitForText('sent the last answer (15 characters) to the terminal by OSC 52');
  assert.ok(t.writes.some((w) => w.includes(Buffer.from('Visible answer.').toString('base64'))));
});

test('/tokens reports usage; /reasoning opens the viewer like Ctrl+O; /exit leaves; unknown commands say so', async () => {
  // The meter counts the next request: the prompt so far plus max_tokens reserved for the answer.
  let opened = 0;
  const t = await renderChat(double.url, { settings: { maxTokens: 400 }, openTranscript: () => opened++ });
  double.chat.enqueue({ reasoning: ['why'], content: ['because'], usage: { prompt_tokens: 23_000, completion_tokens: 400 } });
  await t.send('q');
  await t.idle();
  assert.match(t.screen(), /23\.4k \/ 128k · 18%/);
  await t.send('/tokens');
  await t.waitForText('last answer: 23k in · 400 out');
  await t.send('/reasoning');
  await waitFor(() => opened === 1);
  await t.send('/nope');
  await t.waitForText('unknown command /nope');
  await t.send('/exit');
  await waitFor(() => t.controller.snapshot().exitRequested);
});
