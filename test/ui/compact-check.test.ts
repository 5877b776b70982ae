// The chat screen: /compact with a summary that drops an allergy changes nothing and says why;
// a fold during a question that cannot be summarised safely is told in the transcript.
import assert from 'node:assert/strict';
import { after, afterEach, before, test } from 'node:test';
import { cleanup } from 'ink-testing-library';
import { startServiceDouble, type ServiceDouble } from '../../src/stand-in/index.js';
import { WAIT_MS, waitFor } from '../support/cli.js';
import { renderChat, sentMessages } from '../support/tui.js';

let double: ServiceDouble;
before(async () => {
  double = await startServiceDouble();
});
after(() => double.close());
afterEach(() => cleanup());

const FACTS = 'She is a 72-year-old woman, allergic to penicillin (anaphylaxis). She takes warfarin 5 mg daily.';
const NO_ALLERGY = 'Summary: 72-year-old woman on warfarin 5 mg daily, stable angina suspected.';
const long = (q: string, n = 40) => `About ${q}: ` + 'keep a diary of the chest pain and its triggers. '.repeat(n);
/** The screen as one line: wrapped lines joined, spaces collapsed. */
const flat = (screen: string) => screen.replace(/\s+/g, ' ');

test('/compact with a summary that leaves out the allergy twice changes nothing, says why, and the next question still sends it word for word', async () => {
  const t = await renderChat(double.url, { settings: { thinking: false } });
  for (const q of [`first visit. ${FACTS}`, 'second visit', 'third visit']) {
    double.chat.enqueue({ content: [long(q.slice(0, 12))] });
    await t.send(q);
    await t.idle();
  }
  double.chat.enqueue({ content: [NO_ALLERGY] }, { content: [NO_ALLERGY] });
  await t.send('/compact');
  await waitFor(
    () => /The summary left out penicillin allergy, twice; nothing was changed: the earlier messages are still sent word for word/.test(flat(t.screen())),
    WAIT_MS,
    () => `the reason on screen\n${t.screen()}`,
  );
  assert.doesNotMatch(flat(t.screen()), /Summarised/);
  const summaries = double.chat.requests.slice(-2);
  assert.deepEqual(summaries.map((r) => r.body.stream), [false, false], 'asked twice');
  assert.match(String(summaries[1]!.body.messages[1].content), /- penicillin allergy/);

  double.chat.enqueue({ content: ['ok'] });
  await t.send('Can she take amoxicillin?');
  await t.idle();
  const sent = sentMessages(double, -1);
  assert.equal(sent[0]!.role, 'user', 'no summary was added');
  assert.equal(sent[0]!.content, `first visit. ${FACTS}`);
  assert.ok(!JSON.stringify(sent).includes(NO_ALLERGY));
});

test('a fold while asking: a summary that comes back cut off is not used, and the transcript says what was done instead', async () => {
  const t = await renderChat(double.url, { settings: { thinking: false, contextWindow: 6144, maxTokens: 512 } });
  for (const q of [`first visit. ${FACTS}`, 'second visit', 'third visit']) {
    double.chat.enqueue({ content: [long(q.slice(0, 12), 150)] });
    await t.send(q);
    await t.idle();
  }
  // The next question passes the threshold: the summary (and its retry) come back cut off.
  double.chat.enqueue({ content: ['Summary: 72-year-old woman. Allergies: pen'], finishReason: 'length' }, { content: ['Summary: 72-year'], finishReason: 'length' }, { content: ['No: she is allergic to penicillin.'] });
  await t.send('Can she take amoxicillin?');
  await t.idle();
  assert.match(
    flat(t.screen()),
    /The summary was cut off \(finish_reason length\), twice; dropped \d+ earlier messages instead \([\d.]+k? tokens\); the lines stating penicillin allergy, warfarin 5 mg, age 72 are still sent word for word/,
  );
  assert.match(t.screen(), /No: she is allergic to penicillin\./);
  const sent = sentMessages(double, -1);
  assert.match(sent[0]!.content, /User: "She is a 72-year-old woman, allergic to penicillin \(anaphylaxis\)\."\n- User: "She takes warfarin 5 mg daily\."/);
  assert.ok(!sent[0]!.content.includes('Allergies: pen'));
});
