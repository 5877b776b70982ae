// The chat screen on top of ChatSession: sessions saved as they go, -c and /resume,
// /sessions, /new, incognito, the context meter, /tokens, /compact and the summarising line.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, afterEach, before, test } from 'node:test';
import { cleanup } from 'ink-testing-library';
import { startServiceDouble, type ServiceDouble } from '../../src/stand-in/index.js';
import { SessionStore } from '../../src/core/sessions/store.js';
import { meterText } from '../../src/ui/text/format.js';
import { WAIT_MS, waitFor } from '../support/cli.js';
import { renderChat, sentMessages } from '../support/tui.js';
import { tempDir } from '../support/temp.js';

let double: ServiceDouble;
before(async () => {
  double = await startServiceDouble();
});
after(() => double.close());
afterEach(() => cleanup());


/** A private data folder: sessions in it, prompt history beside them. */
function dataDir() {
  const dir = tempDir('medchat-ui-sessions-');
  return { dir, store: new SessionStore(path.join(dir, 'sessions')), historyFile: path.join(dir, 'prompt-history.jsonl') };
}

const saving = (d: ReturnType<typeof dataDir>) => ({ store: d.store, historyFile: d.historyFile, settings: { history: true, thinking: false } });

test('every turn is saved: the question at once, the answer when it ends; the session file is private', async () => {
  const d = dataDir();
  const t = await renderChat(double.url, saving(d));
  double.chat.enqueue({ content: ['Rest and ', 'fluids.'] });
  await t.send('I have a cold');
  await t.idle();
  const [info] = d.store.list();
  assert.ok(info, 'a session was written');
  const saved = d.store.load(info.id);
  assert.equal(saved.turns.length, 1);
  assert.equal(saved.turns[0]!.user, 'I have a cold');
  assert.equal(saved.turns[0]!.answer, 'Rest and fluids.');
  assert.equal(saved.turns[0]!.status, 'complete');
  assert.equal(fs.statSync(info.file).mode & 0o777, 0o600);
  assert.match(fs.readFileSync(d.historyFile, 'utf8'), /I have a cold/);
});

test('resuming (-c) shows the earlier turns; an answer cut off by a killed run shows as interrupted', async () => {
  const d = dataDir();
  // What a run killed mid-answer leaves behind: the last turn still "streaming".
  d.store.save({
    format: 'medchat-session',
    version: 1,
    id: '20261122-101500-ab12',
    title: 'chest pain on stairs',
    createdAt: '2026-11-22T10:15:00.000Z',
    updatedAt: '2026-11-22T10:16:00.000Z',
    model: 'medical-large-latest',
    turns: [
      { id: 't1', user: 'chest pain on stairs', answer: 'Stop and rest; if it lasts, call for help.', reasoning: 'Angina?', reasoningMs: 1200, status: 'complete', startedAt: 1 },
      { id: 't2', user: 'what tests?', answer: 'An ECG and a troponin', reasoning: '', status: 'streaming', startedAt: 2 },
    ],
    context: { startTurn: 0, ratio: 1, samples: 0, compactions: [] },
  });
  const t = await renderChat(double.url, { ...saving(d), resume: 'latest' });
  await t.waitForText('resumed session 20261122-101500-ab12');
  const s = t.screen();
  assert.match(s, /› chest pain on stairs[\s\S]*▸ Thought for 1\.2s[\s\S]*Stop and rest; if it lasts, call for help\./);
  assert.match(s, /› what tests\?[\s\S]*An ECG and a troponin[\s\S]*■ interrupted/);
  // The conversation goes on from there: the next request carries both earlier exchanges.
  double.chat.enqueue({ content: ['Also a stress test.'] });
  await t.send('anything else?');
  await t.idle();
  assert.deepEqual(
    sentMessages(double, -1).map((m) => m.content),
    ['chest pain on stairs', 'Stop and rest; if it lasts, call for help.', 'what tests?', 'An ECG and a troponin', 'anything else?'],
  );
  assert.equal(d.store.load('20261122-101500-ab12').turns.length, 3, 'saved into the same session');
});

test('an answer\'s reasoning shows one token count: the folded line shows the same number live and resumed', async () => {
  const d = dataDir();
  const t = await renderChat(double.url, { ...saving(d), settings: { history: true, thinking: true } });
  // Three streamed pieces of several words each: the service's count (one a piece) and a tokenizer's differ.
  double.chat.enqueue({ reasoning: ['Chest pain on exertion that settles with rest ', 'suggests stable angina; ', 'exclude an acute coronary syndrome first.'], content: ['Rest, and see a doctor today.'] });
  await t.send('chest pain on the stairs');
  await t.idle();
  const live = /▸ Thought for [\d.]+s · (\d+) tokens?/.exec(t.screen());
  assert.ok(live, t.screen());
  assert.equal(live[1], '3', 'one token a streamed piece, as the footer counted them');
  const id = t.controller.session.id;
  cleanup();
  const r = await renderChat(double.url, { ...saving(d), settings: { history: true, thinking: true }, resume: id });
  await r.waitForText(`resumed session ${id}`);
  const resumed = /▸ Thought for [\d.]+s · (\d+) tokens?/.exec(r.screen());
  assert.equal(resumed?.[1], live[1], `the resumed turn shows the count shown live\n${r.screen()}`);
  assert.equal(d.store.load(id).turns[0]!.reasoningTokens, 3, 'saved with the turn');
});

test('a resumed answer that was cut off mid-markup shows formatted, as it did live: no raw ** left', async () => {
  const d = dataDir();
  d.store.save({
    format: 'medchat-session',
    version: 1,
    id: '20261122-101500-cd34',
    title: 'chest pain',
    createdAt: '2026-11-22T10:15:00.000Z',
    updatedAt: '2026-11-22T10:16:00.000Z',
    model: 'medical-large-latest',
    turns: [{ id: 't1', user: 'chest pain', answer: 'Give **aspirin 300 mg and call', reasoning: '', status: 'interrupted', startedAt: 1 }],
    context: { startTurn: 0, ratio: 1, samples: 0, compactions: [] },
  });
  const t = await renderChat(double.url, { ...saving(d), resume: 'latest' });
  await t.waitForText('■ interrupted');
  assert.match(t.screen(), /Give aspirin 300 mg and call/);
  assert.doesNotMatch(t.screen(), /\*\*/);
  assert.equal(d.store.load('20261122-101500-cd34').turns[0]!.answer, 'Give **aspirin 300 mg and call', 'the saved answer stays as it came');
});

test('/sessions lists recent sessions; /resume <id> switches and reprints the transcript cleanly; /new starts another', async () => {
  const d = dataDir();
  const t = await renderChat(double.url, saving(d));
  double.chat.enqueue({ content: ['Ibuprofen with food.'] });
  await t.send('knee pain after running');
  await t.idle();
  const first = t.controller.session.id;
  await t.send('/new');
  await t.waitForText('new conversation (session');
  double.chat.enqueue({ content: ['Drink water.'] });
  await t.send('headache');
  await t.idle();
  assert.notEqual(t.controller.session.id, first);

  await t.send('/sessions');
  await t.waitForText('Recent sessions');
  const s = t.screen();
  assert.match(s, new RegExp(`  ${first}  \\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}     1 turn  knee pain after running`));
  assert.match(s, new RegExp(`● ${t.controller.session.id} .* 1 turn  headache`));

  const shown = t.screen();
  await t.send(`/resume ${first}`);
  await t.waitForText(`resumed session ${first}`);
  assert.deepEqual(t.writes, [], 'no screen clear');
  // The resumed turns are printed below what was there, which stays: nothing is cleared or reprinted.
  const s2 = t.screen();
  assert.equal(s2.split('medchat 0.0.0-test').length, 2, 'the header once');
  const printedBefore = shown.slice(0, shown.lastIndexOf('Recent sessions'));
  assert.ok(s2.startsWith(printedBefore), 'what was printed is still there, as it was');
  const after = s2.slice(s2.indexOf(`resumed session ${first}`));
  assert.match(after, /› knee pain after running[\s\S]*Ibuprofen with food\./);
  assert.doesNotMatch(after, /headache|Drink water/, 'only the resumed conversation below the notice');
  double.chat.enqueue({ content: ['Ice it.'] });
  await t.send('and swelling?');
  await t.idle();
  assert.deepEqual(sentMessages(double, -1).map((m) => m.content), ['knee pain after running', 'Ibuprofen with food.', 'and swelling?']);

  // Inside the chat screen, an unknown session points to the slash command, not the shell's `medchat sessions list`.
  await t.send('/resume 1999');
  await t.waitForText(/no session "1999"; see the saved ones with: \/sessions/);
  await t.send('/resume zzz');
  await t.waitForText('no session "zzz"');
  assert.match(t.screen().replace(/\s+/g, ' '), /no session "zzz": a session id looks like .*; see the saved ones with: \/sessions/);
  assert.doesNotMatch(t.screen(), /medchat sessions list/);
  await t.send('/resume');
  await t.waitForText('usage: /resume <id or prefix>');
});

test('/sessions at 60 and 100 columns: a long first question wraps under itself (or under the id), never back to column 0', async () => {
  const d = dataDir();
  const t = await renderChat(double.url, saving(d));
  double.chat.enqueue({ content: ['Ask about red flags.'] });
  await t.send('a long first question about persistent lower back pain in a forty year old runner with numbness');
  await t.idle();
  cleanup();
  for (const columns of [60, 100]) {
    const s = await renderChat(double.url, { ...saving(d), columns });
    await s.send('/sessions');
    await s.waitForText('Recent sessions');
    const lines = s.screen().split('\n');
    const first = lines.findIndex((l) => /^ +\d{8}-\d{6}-[0-9a-f]{4} /.test(l));
    assert.ok(first >= 0, s.screen());
    const rows = lines.slice(first, lines.indexOf('', first));
    assert.ok(rows.length > 1, `the question wraps at ${columns} columns\n${s.screen()}`);
    const hang = columns === 100 ? lines[first]!.indexOf('a long first') : 2;
    for (const row of rows.slice(1)) {
      assert.ok(row.length <= columns, row);
      assert.match(row, new RegExp(`^ {${hang}}\\S`), `wrapped rows hang at column ${hang} at ${columns} columns\n${s.screen()}`);
    }
    cleanup();
  }
});

test('/sessions WORDS: the saved conversations holding every word, newest first, with the matching line and its turn, safe and within the screen', async () => {
  const d = dataDir();
  const t = await renderChat(double.url, { ...saving(d), columns: 70 });
  double.chat.enqueue({ content: ['Rest and ice.\nIbuprofen 400 mg with food, \u001b[2Jtwice daily' + ' and more'.repeat(40)] });
  await t.send('knee pain after running');
  await t.idle();
  const knee = t.controller.session.id;
  await t.send('/new');
  await t.waitForText('new conversation (session');
  double.chat.enqueue({ content: ['Paracetamol first.'] });
  await t.send('Headache: is IBUPROFÈN fine?');
  await t.idle();
  const headache = t.controller.session.id;

  await t.send('/sessions ibuprofen');
  await t.waitForText('Conversations holding ibuprofen');
  const shown = t.screen();
  const block = shown.slice(shown.lastIndexOf('Conversations holding ibuprofen'), shown.lastIndexOf('(/resume <id> opens one)'));
  assert.ok(block.indexOf(headache) < block.indexOf(knee), `newest first\n${block}`);
  assert.match(block, /turn 1 question: Headache: is IBUPROFÈN fine\?/);
  assert.match(block, /turn 1 answer: Ibuprofen 400 mg with food, ␛\[2Jtwice daily and m/);
  assert.match(shown, /\(\/resume <id> opens one\)/);
  for (const row of block.split('\n')) assert.ok([...row].length <= 70, `within 70 columns: ${row}`);

  await t.send('/sessions ibuprofen running');
  await t.waitForText('Conversations holding ibuprofen running');
  const both = t.screen().slice(t.screen().lastIndexOf('Conversations holding ibuprofen running'));
  assert.ok(both.includes(knee) && !both.includes(headache), both);

  await t.send('/sessions zanubrutinib');
  await t.waitForText('no saved conversation holds all of: zanubrutinib');
});

test('--incognito writes nothing: no session, no prompt history', async () => {
  const d = dataDir();
  const t = await renderChat(double.url, { ...saving(d), incognito: true });
  double.chat.enqueue({ content: ['Private answer.'] });
  await t.send('something private');
  await t.idle();
  await t.send('/new');
  await t.waitForText('new conversation');
  assert.deepEqual(fs.readdirSync(d.dir), [], 'the data folder stays empty');
  await t.send('/sessions');
  await t.waitForText('this conversation is not saved');
});

test('history: off writes nothing either', async () => {
  const d = dataDir();
  const t = await renderChat(double.url, { store: d.store, historyFile: d.historyFile, settings: { history: false, thinking: false } });
  double.chat.enqueue({ content: ['ok'] });
  await t.send('hello');
  await t.idle();
  assert.deepEqual(fs.readdirSync(d.dir), []);
});

test('the footer meter counts the next request (prompt, the draft being typed, max_tokens) and warns near the limit', async () => {
  const t = await renderChat(double.url, { settings: { thinking: false, contextWindow: 16384, maxTokens: 1024 } });
  await t.controller.loadTokenizer();
  await t.waitForText(/\d+(\.\d)?k \/ 16k · \d+%/);
  const empty = t.controller.tokenBreakdown();
  assert.equal(meterText(t.controller.snapshot().meter).text, meterText({ used: empty.prompt + 1024, window: 16384 }).text);
  assert.equal(meterText(t.controller.snapshot().meter).level, 'ok');
  double.chat.enqueue({ content: ['noted'], usage: { prompt_tokens: 11_700, completion_tokens: 10 } });
  await t.send('a long history, say');
  await t.idle();
  // 11.7k reported + the answer + 1,024 reserved: about 12.7k of 16k, 78%: time to warn.
  await t.waitForText(/12\.7k \/ 16k · 78%/);
  assert.equal(meterText(t.controller.snapshot().meter).level, 'warn');
  // Typing counts: a long draft moves the meter before it is sent.
  const before = t.controller.snapshot().meter.used;
  t.type('chest pain '.repeat(100));
  await waitFor(() => t.controller.snapshot().meter.used > before + 100, WAIT_MS, 'the meter to count the draft');
  await t.waitForText(meterText(t.controller.snapshot().meter).text);
});

test('/tokens shows the breakdown: system prompt, summary, kept turns, next question, max_tokens, room left', async () => {
  const t = await renderChat(double.url, { system: 'Answer as a triage nurse.', settings: { thinking: false } });
  double.chat.enqueue({ content: ['Go to A&E.'], usage: { prompt_tokens: 40, completion_tokens: 5 } });
  await t.send('crushing chest pain');
  await t.idle();
  await t.send('/tokens');
  await t.waitForText(/room left +\d/);
  const s = t.screen();
  const b = t.controller.tokenBreakdown();
  assert.match(s, /Context window 128k \(131072 tokens\)/);
  assert.match(s, new RegExp(`system prompt +${b.system}\\b`));
  assert.match(s, /summary +0\b/);
  assert.match(s, new RegExp(`kept turns +${b.kept}  \\(1 turn word for word\\)`));
  assert.match(s, /next question +0\b/);
  assert.match(s, /max_tokens +8\.2k  \(reserved for the answer\)/);
  assert.match(s, /room left +12\dk  of 123k for the prompt/);
  assert.match(s, /last answer: 40 in · 5 out/);
});

const long = (topic: string) => `${topic}: the patient reports mild chest pain after climbing stairs, no fever, normal blood pressure. `.repeat(40);

test('a conversation past the threshold is summarised before sending, and the transcript says so', async () => {
  const small = await startServiceDouble({ contextWindow: 6000 });
  try {
    small.chat.defaultScript = {
      reasoning: [],
      content: (req) => (req.body?.stream === false ? ['Summary: 58-year-old, exertional chest pain, normal BP.'] : [long(String(req.body?.messages?.at(-1)?.content))]),
    };
    const t = await renderChat(small.url, { settings: { thinking: false, contextWindow: 6000, maxTokens: 512 } });
    for (let i = 1; i <= 8 && !t.screen().includes('Summarised'); i++) {
      await t.send(`visit ${i}`);
      await t.idle();
    }
    await t.waitForText(/Summarised \d+ earlier messages \([\d.]+k → \d+ tokens\)/);
    const summaryRequest = small.chat.requests.find((r) => r.body?.stream === false);
    assert.equal(summaryRequest?.body?.enable_thinking, false);
    const lastSent = sentMessages(small, -1);
    assert.match(lastSent[0]!.content, /Summary: 58-year-old/);
    assert.doesNotMatch(t.screen(), /✗|maximum context length/, 'no request was refused for its length');
  } finally {
    await small.close();
  }
});

test('a message too long for the window is not sent: it goes back in the box, with the numbers; /retry has nothing to send', async () => {
  const t = await renderChat(double.url, { settings: { thinking: false, contextWindow: 4096, maxTokens: 512 } });
  const before = double.chat.requests.length;
  t.press(`\x1b[200~${'lab result 42 mmol/L\n'.repeat(1500)}\x1b[201~`);
  await t.waitForText('[pasted 1500 lines]');
  t.press('\r');
  await t.idle();
  const flat = () => t.screen().replace(/\s+/g, ' ');
  await waitFor(() => /your question is back in the box/.test(flat()), WAIT_MS, 'the question back in the box');
  assert.match(flat(), /✗ too long to send: about [\d.]+k tokens; the 4k window has room for 3\.6k after 512 for the answer/);
  assert.match(flat(), /your question is back in the box: shorten it, or lower \/max-tokens/);
  assert.match(t.screen(), /│ › \[pasted 1500 lines\]/, 'the draft is in the box again, folded as it was pasted');
  assert.doesNotMatch(t.screen(), /\/retry sends it again/);
  assert.equal(double.chat.requests.length, before, 'nothing was sent');
  assert.equal(t.controller.conversation.turns.length, 0, 'the refused question is not part of the conversation');
  t.press('\x03'); // clear the box
  await waitFor(() => !t.screen().includes('│ › [pasted'), WAIT_MS, 'the box cleared');
  await t.send('/retry');
  await t.waitForText('nothing to retry yet');
  double.chat.enqueue({ content: ['Still here.'] });
  await t.send('short question');
  await t.idle();
  assert.match(t.screen(), /Still here\./);
  assert.deepEqual(sentMessages(double, -1).map((m) => m.content), ['short question']);
});

test('a question the service refuses as too long, even after medchat trims, goes back in the box too', async () => {
  const t = await renderChat(double.url, { settings: { thinking: false } });
  const refusal = { status: 400, body: JSON.stringify({ error: { message: "This model's maximum context length is 4096 tokens. However, your messages resulted in 9000 tokens.", type: 'invalid_request_error', code: 'context_length_exceeded' } }) };
  double.chat.enqueue(refusal);
  double.chat.enqueue(refusal);
  const before = double.chat.requests.length;
  await t.send('a question the service finds too long');
  await t.idle();
  await waitFor(() => /your question is back in the box/.test(t.screen().replace(/\s+/g, ' ')), WAIT_MS, 'the question back in the box');
  assert.match(t.screen().replace(/\s+/g, ' '), /✗ .*too long for the model \(400[^)]*\).*your question is back in the box: shorten it, or start over with \/new/);
  assert.match(t.screen(), /│ › a question the service finds too long/);
  assert.equal(double.chat.requests.length, before + 2, 'asked once, and once more after learning the real count');
  assert.equal(t.controller.conversation.turns.length, 0);
});

test('a question typed over while the refusal came back stays in the prompt history instead', async () => {
  const t = await renderChat(double.url, { settings: { thinking: false, contextWindow: 4096, maxTokens: 512 } });
  t.controller.returnDraft = () => false; // the box holds something else
  t.controller.submit('lab result 42 mmol/L\n'.repeat(1500));
  await t.idle();
  assert.match(t.screen().replace(/\s+/g, ' '), /your question is in the prompt history \(Up\): shorten it/);
});

test('/compact summarises all but the last two exchanges now; the next request sends the summary', async () => {
  const t = await renderChat(double.url, { settings: { thinking: false } });
  for (const q of ['first visit', 'second visit', 'third visit']) {
    double.chat.enqueue({ content: [long(q)] });
    await t.send(q);
    await t.idle();
  }
  double.chat.enqueue({ content: ['Summary: stable angina suspected.'] });
  await t.send('/compact');
  await t.waitForText(/Summarised 2 earlier messages \([\d.]+k? → \d+ tokens\)/);
  double.chat.enqueue({ content: ['ok'] });
  await t.send('and now?');
  await t.idle();
  const sent = sentMessages(double, -1);
  assert.match(sent[0]!.content, /Summary: stable angina suspected\./);
  assert.deepEqual(sent.slice(1).filter((m) => m.role === 'user').map((m) => m.content), ['second visit', 'third visit', 'and now?']);
  await t.send('/new');
  await t.send('/compact');
  await t.waitForText('nothing to summarise yet');
});
