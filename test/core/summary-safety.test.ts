import assert from 'node:assert/strict';
import { after, before, beforeEach, test } from 'node:test';
import { ContextManager, describeCompaction } from '../../src/core/context/context.js';
import { Conversation } from '../../src/core/context/conversation.js';
import { MedchatError } from '../../src/core/errors.js';
import { ChatSession, type SessionEvent } from '../../src/core/sessions/chat-session.js';
import type { Settings } from '../../src/core/config/settings.js';
import { loadTokenizer } from '../../src/core/context/tokens.js';
import { startServiceDouble, type MisbehavingScript, type RecordedRequest, type ServiceDouble } from '../support/misbehaving-service.js';

/**
 * A summary replaces turns only when it is whole, not empty, and keeps the allergies, dosed
 * medications and ages of what it replaces. Against the real double over HTTP: the summarising
 * request is a separate non-stream request, so scripts enqueued just before it answer it.
 */
const WINDOW = 16_384;
let double: ServiceDouble;

before(async () => {
  double = await startServiceDouble({ contextWindow: WINDOW });
  await loadTokenizer();
});
after(() => double.close());
beforeEach(() => {
  double.server.requests.length = 0;
  double.chat.defaultScript = {
    content: (req: RecordedRequest) =>
      req.body.stream === false ? [GOOD] : [`Answer: `, 'Keep monitoring her blood pressure and renal function. '.repeat(60)],
  };
});

function settings(overrides: Partial<Settings> = {}): Settings {
  return {
    baseUrl: double.url,
    apiKey: 'sk-test-summary-0000',
    model: 'medical-large-latest',
    maxTokens: 1024,
    thinking: true,
    idleTimeoutMs: 10_000,
    contextWindow: WINDOW,
    compressAt: 0.8,
    compress: 'summarise',
    history: false,
    disclaimer: false,
    ...overrides,
  };
}

const FACTS = 'She is a 72-year-old woman. She is allergic to penicillin (anaphylaxis in 2019). She takes warfarin 5 mg daily.';
const ALLERGY_LINE = 'User: "She is allergic to penicillin (anaphylaxis in 2019)."';
const GOOD = 'Patient: 72-year-old woman. Allergies: penicillin (anaphylaxis 2019). Medications: warfarin 5 mg daily. Blood pressure around 150/95.';
const NO_ALLERGY = 'Patient: 72-year-old woman on warfarin 5 mg daily. Blood pressure around 150/95.';
const CUT = 'Patient: 72-year-old woman. Allergies: peni';
/** About 2,000 tokens of a log without clinical facts the check looks for. */
const question = (n: number) => `Question ${n}: ` + `Day ${n} of the log: blood pressure 150/95, pulse 88, she walked ${n} km without pain. `.repeat(90);

function longConversation(system = 'You are a careful clinical assistant.'): Conversation {
  const conv = new Conversation(system);
  for (let i = 1; i <= 5; i++) {
    const t = conv.addTurn(i === 1 ? `${FACTS} ${question(i)}` : question(i));
    t.answer = 'Noted. ' + 'Keep monitoring her blood pressure and renal function. '.repeat(60);
    t.status = 'complete';
  }
  conv.addTurn('Can she take amoxicillin for her chest infection?');
  return conv;
}

const summaryRequests = () => double.chat.requests.filter((r) => r.body.stream === false);
const noFinish = (content: string): MisbehavingScript => ({
  raw: {
    headers: { 'content-type': 'application/json' },
    parts: [JSON.stringify({ id: 'c1', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content } }] })],
  },
});

const cases: Array<{ name: string; scripts: MisbehavingScript[]; reason: RegExp; bad: string }> = [
  { name: 'cut off (finish_reason length)', scripts: [{ content: [CUT], finishReason: 'length' }, { content: [CUT], finishReason: 'length' }], reason: /^The summary was cut off \(finish_reason length\), twice; /, bad: CUT },
  { name: 'empty', scripts: [{ content: ['  \n '] }, { content: [''] }], reason: /^The summary came back empty, twice; /, bad: '' },
  { name: 'withheld by the content filter', scripts: [{ content: [GOOD], finishReason: 'content_filter' }, { content: [GOOD], finishReason: 'content_filter' }], reason: /^The summary was withheld by the content filter, twice; /, bad: 'Blood pressure around' },
  { name: 'without a finish_reason', scripts: [noFinish(GOOD), noFinish(GOOD)], reason: /^The summary came back without a finish_reason, so it may be cut off, twice; /, bad: 'Blood pressure around' },
  { name: 'missing the allergy', scripts: [{ content: [NO_ALLERGY] }, { content: [NO_ALLERGY] }], reason: /^The summary left out penicillin allergy, twice; /, bad: NO_ALLERGY },
  { name: 'cut off, then missing the allergy', scripts: [{ content: [CUT], finishReason: 'length' }, { content: [NO_ALLERGY] }], reason: /^The summary was cut off \(finish_reason length\), then left out penicillin allergy; /, bad: NO_ALLERGY },
];

for (const c of cases) {
  test(`a summary ${c.name} does not replace the turns: asked again with more room, then the turns are dropped and the allergy line still sent`, async () => {
    const ctx = new ContextManager(settings());
    const conv = longConversation();
    double.chat.enqueue(...c.scripts);
    const p = await ctx.prepare(conv);

    const [first, second] = summaryRequests();
    assert.equal(summaryRequests().length, 2, 'one retry, no more');
    assert.ok(second!.body.max_tokens > first!.body.max_tokens, `more room: ${first!.body.max_tokens} → ${second!.body.max_tokens}`);
    assert.equal(second!.body.enable_thinking, false);
    const retryPrompt = String(second!.body.messages[1].content);
    assert.match(retryPrompt, /must state each of these[\s\S]*- penicillin allergy/);
    // The facts the first reply left out (all of them when it was empty or not whole but complete-looking).
    if ((c.scripts[0]!.content as string[] | undefined)?.[0] === CUT) assert.match(retryPrompt, /- penicillin allergy\n- warfarin 5 mg\n\n/);
    else if ((c.scripts[0]!.content as string[] | undefined)?.[0] === NO_ALLERGY) assert.match(retryPrompt, /- penicillin allergy\n\n/);
    else assert.match(retryPrompt, /- penicillin allergy\n- warfarin 5 mg\n- age 72\n\n/);

    // The user is told what happened, and which facts are still sent.
    assert.ok(p.compaction);
    const line = describeCompaction(p.compaction);
    assert.match(line, c.reason);
    assert.match(line, /; dropped \d+ earlier messages instead \([\d.]+k tokens\)/);
    assert.match(line, /the lines stating penicillin allergy, warfarin 5 mg, age 72 are still sent word for word$/);
    assert.equal(ctx.state.compactions.at(-1), p.compaction, 'recorded in the context state');
    assert.equal(p.compaction.method, 'trim');

    // What is sent: no unchecked summary, the facts word for word, the question last.
    const system = p.messages[0]!.content;
    assert.equal(p.messages[0]!.role, 'system');
    if (c.bad) assert.ok(!system.includes(c.bad), 'the failed summary is not sent');
    assert.ok(system.includes(ALLERGY_LINE));
    assert.ok(system.includes('User: "She takes warfarin 5 mg daily."'));
    assert.ok(!p.messages.some((m) => m.content.includes(question(1))), 'the first turn itself was dropped');
    assert.equal(p.messages.at(-1)!.content, 'Can she take amoxicillin for her chest infection?');
    assert.ok(p.estimate + 1024 <= WINDOW);
  });
}

test('a summary that fails the check and passes on the second try replaces the turns, and the user is told it took two', async () => {
  const ctx = new ContextManager(settings());
  const conv = longConversation();
  double.chat.enqueue({ content: [NO_ALLERGY] }, { content: [GOOD] });
  const p = await ctx.prepare(conv);
  assert.equal(summaryRequests().length, 2);
  assert.equal(p.compaction?.method, 'summarise');
  assert.match(describeCompaction(p.compaction!), /^Summarised \d+ earlier messages \([\d.]+k → \d+ tokens\) on a second try: the first left out penicillin allergy$/);
  assert.equal(ctx.state.summary?.text, GOOD);
  assert.ok(p.messages[0]!.content.endsWith(GOOD));
  assert.ok(!p.messages[0]!.content.includes(NO_ALLERGY));
});

test('a summary that keeps every fact is accepted at once, with no retry', async () => {
  const ctx = new ContextManager(settings());
  const p = await ctx.prepare(longConversation());
  assert.equal(summaryRequests().length, 1);
  assert.match(describeCompaction(p.compaction!), /^Summarised \d+ earlier messages \([\d.]+k → \d+ tokens\)$/);
});

test('in a chat session the user is told in the compacted event, the answer still comes, and the session keeps the record', async () => {
  const session = ChatSession.open(settings(), { incognito: true, system: 'Be careful.' });
  const notices: string[] = [];
  for (let i = 1; i <= 8; i++) {
    const turn = session.ask(i === 1 ? `${FACTS} ${question(i)}` : question(i));
    const wouldFold = session.context.estimate(session.context.messagesFor(session.conversation, turn)) > session.context.threshold;
    if (wouldFold && notices.length === 0) double.chat.enqueue({ content: [NO_ALLERGY] }, { content: [NO_ALLERGY] });
    const events: SessionEvent[] = [];
    for await (const e of session.send(turn)) events.push(e);
    for (const e of events) if (e.type === 'compacted') notices.push(e.text);
    assert.equal(turn.status, 'complete');
  }
  assert.match(notices[0] ?? '', /^The summary left out penicillin allergy, twice; dropped \d+ earlier messages instead \([\d.]+k tokens\); the lines stating penicillin allergy, warfarin 5 mg, age 72 are still sent word for word$/);
  assert.equal(session.compactions[0]!.reason, 'the summary left out penicillin allergy, twice');
  assert.deepEqual(session.compactions[0]!.quotedFacts, ['penicillin allergy', 'warfarin 5 mg', 'age 72']);
  // Every later request still carries the allergy, through the next (good) summaries too.
  const after = double.chat.requests.filter((r) => r.body.stream === true).slice(-3);
  for (const r of after) assert.match(String(r.body.messages[0].content), /penicillin/);
});

test('/compact with a summary that fails the check twice changes nothing and says why', async () => {
  const session = ChatSession.open(settings(), { incognito: true });
  const summaryText = () => session.context.state.summary?.text;
  for (let i = 1; i <= 4; i++) {
    const turn = session.ask(i === 1 ? `${FACTS} ${question(i)}` : question(i));
    for await (const _ of session.send(turn)) {
      // drain
    }
  }
  double.chat.enqueue({ content: [CUT], finishReason: 'length' }, { content: [NO_ALLERGY] });
  await assert.rejects(session.compactNow(), (err: MedchatError) => {
    assert.equal(
      err.message,
      'The summary was cut off (finish_reason length), then left out penicillin allergy; nothing was changed: the earlier messages are still sent word for word',
    );
    return true;
  });
  assert.equal(session.context.state.startTurn, 0);
  assert.equal(summaryText(), undefined);
  assert.equal(session.compactions.length, 0);
  const sent = session.context.messagesFor(session.conversation);
  assert.ok(sent.some((m) => m.content.startsWith(FACTS)), 'the first turn is still sent word for word');

  // Asked again, a good summary is taken.
  const ok = await session.compactNow();
  assert.match(ok!.text, /^Summarised 4 earlier messages/);
  assert.equal(summaryText(), GOOD);
});

test('compress: trim still drops the turns without asking for a summary, but the lines stating the facts are still sent, and the user is told', async () => {
  const ctx = new ContextManager(settings({ compress: 'trim' }));
  const p = await ctx.prepare(longConversation());
  assert.equal(summaryRequests().length, 0);
  assert.match(describeCompaction(p.compaction!), /^Dropped \d+ earlier messages \([\d.]+k tokens\) to fit the context window; the lines stating penicillin allergy, warfarin 5 mg, age 72 are still sent word for word$/);
  assert.ok(p.messages[0]!.content.includes(ALLERGY_LINE));
  assert.ok(p.messages[0]!.content.startsWith('You are a careful clinical assistant.'), 'the system prompt stays word for word');
});

test('facts still sent word for word in a kept turn are not quoted again', async () => {
  const ctx = new ContextManager(settings({ compress: 'trim' }));
  const conv = longConversation();
  conv.turns[4]!.user = `Reminder: ${FACTS} ${conv.turns[4]!.user}`;
  const p = await ctx.prepare(conv);
  assert.equal(p.compaction?.quotedFacts, undefined);
  assert.match(describeCompaction(p.compaction!), /to fit the context window$/);
  assert.equal(p.messages[0]!.content, 'You are a careful clinical assistant.');
});
