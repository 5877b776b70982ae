import assert from 'node:assert/strict';
import { after, before, beforeEach, test } from 'node:test';
import { ContextManager } from '../../src/core/context/context.js';
import { Conversation } from '../../src/core/context/conversation.js';
import { MedchatError } from '../../src/core/errors.js';
import { ChatSession, type SessionEvent } from '../../src/core/sessions/chat-session.js';
import type { Settings } from '../../src/core/config/settings.js';
import { loadTokenizer } from '../../src/core/context/tokens.js';
import { roughTokenCount, startServiceDouble, type RecordedRequest, type ServiceDouble } from '../../src/stand-in/index.js';

/**
 * The context manager against the real double over HTTP, with a small window (16k) so a few
 * large turns fill it. The double rejects anything over the window with HTTP 400, the way
 * real servers do, and counts tokens its own way (not o200k), so calibration matters.
 */
const WINDOW = 16_384;
const MAX_TOKENS = 1024;
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
      req.body.stream === false
        ? ['PATIENT SUMMARY: 58-year-old woman, hypertension, amlodipine 5 mg daily, exertional chest tightness for three weeks.']
        : [`Answer ${String(req.body.messages.at(-1).content).slice(0, 12)}: `, 'Consider an ECG, troponin and a lipid panel. '.repeat(60)],
  };
});

function settings(overrides: Partial<Settings> = {}): Settings {
  return {
    baseUrl: double.url,
    apiKey: 'sk-test-context-0000',
    model: 'medical-large-latest',
    maxTokens: MAX_TOKENS,
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

/** A large, distinct question: about 2,000 tokens. */
const question = (n: number) => `Question ${n}: ` + `Day ${n} of the log: blood pressure 150/95, pulse 88, she walked ${n} km without pain. `.repeat(90);

async function drain(session: ChatSession, text: string): Promise<SessionEvent[]> {
  const turn = session.ask(text);
  const events: SessionEvent[] = [];
  for await (const e of session.send(turn)) events.push(e);
  return events;
}

const chatRequests = () => double.chat.requests.filter((r) => r.body.stream === true);
const summaryRequests = () => double.chat.requests.filter((r) => r.body.stream === false);
const fitsWindow = (r: RecordedRequest) => roughTokenCount(r.body.messages) + r.body.max_tokens <= WINDOW;

test('a long conversation is never rejected: old turns are summarised, the newest sent word for word, and the user is told', async () => {
  const session = ChatSession.open(settings(), { incognito: true, system: 'You are a careful clinical assistant.' });
  const notices: string[] = [];
  for (let i = 1; i <= 14; i++) {
    for (const e of await drain(session, question(i))) if (e.type === 'compacted') notices.push(e.text);
  }
  for (const r of double.chat.requests) assert.ok(fitsWindow(r), `a request of ${roughTokenCount(r.body.messages)} tokens was sent`);
  assert.ok(session.conversation.turns.every((t) => t.status === 'complete'));
  assert.ok(notices.length >= 1, 'the user was told');
  assert.match(notices[0]!, /^Summarised \d+ earlier messages \(\d+(\.\d)?k? → \d+(\.\d)?k? tokens\)$/);

  const summaries = summaryRequests();
  assert.ok(summaries.length >= 1);
  for (const s of summaries) {
    assert.equal(s.body.stream, false);
    assert.equal(s.body.enable_thinking, false);
    assert.match(s.body.messages[0].content, /medications with doses/);
  }
  // A second summary merges the first.
  if (summaries.length > 1) assert.match(summaries[1]!.body.messages[1].content, /Earlier summary:[\s\S]*PATIENT SUMMARY/);

  const last = chatRequests().at(-1)!.body.messages as Array<{ role: string; content: string }>;
  assert.equal(last[0]!.role, 'system');
  assert.ok(last[0]!.content.startsWith('You are a careful clinical assistant.'), 'the system prompt is kept word for word');
  assert.match(last[0]!.content, /PATIENT SUMMARY/);
  const turns = session.conversation.turns;
  // The last two exchanges and the question, word for word, in order.
  assert.deepEqual(last.slice(-5), [
    { role: 'user', content: turns[11]!.user },
    { role: 'assistant', content: turns[11]!.answer },
    { role: 'user', content: turns[12]!.user },
    { role: 'assistant', content: turns[12]!.answer },
    { role: 'user', content: turns[13]!.user },
  ]);
  // Reasoning is never sent back.
  assert.ok(!JSON.stringify(chatRequests().map((r) => r.body.messages)).includes('Let me think'));
  // The whole transcript is still there.
  assert.equal(turns.length, 14);
  assert.equal(turns[0]!.user, question(1));
});

test('compress: trim drops the oldest whole turns instead, without a summarising request', async () => {
  const session = ChatSession.open(settings({ compress: 'trim' }), { incognito: true });
  const notices: string[] = [];
  for (let i = 1; i <= 9; i++) for (const e of await drain(session, question(i))) if (e.type === 'compacted') notices.push(e.text);
  assert.equal(summaryRequests().length, 0);
  for (const r of double.chat.requests) assert.ok(fitsWindow(r));
  assert.match(notices[0] ?? '', /^Dropped \d+ earlier messages \([\d.]+k? tokens\) to fit the context window$/);
  const last = chatRequests().at(-1)!.body.messages as Array<{ role: string; content: string }>;
  assert.equal(last[0]!.content, question(last[0]!.content.match(/^Question (\d+)/)![1] as unknown as number));
  assert.equal(last.at(-1)!.content, question(9));
});

test('a summary that is not shorter than what it replaces is discarded, and the oldest turns are dropped', async () => {
  double.chat.defaultScript = {
    content: (req: RecordedRequest) => (req.body.stream === false ? ['Verbose summary. '.repeat(3000)] : ['Short answer. '.repeat(200)]),
  };
  const session = ChatSession.open(settings(), { incognito: true });
  const notices: string[] = [];
  for (let i = 1; i <= 8; i++) for (const e of await drain(session, question(i))) if (e.type === 'compacted') notices.push(e.text);
  assert.ok(summaryRequests().length >= 1, 'a summary was asked for');
  assert.match(notices[0] ?? '', /^The summary was not shorter; dropped \d+ earlier messages instead \([\d.]+k? tokens\)$/);
  assert.equal(session.context.state.summary, undefined);
  for (const r of chatRequests()) assert.ok(!JSON.stringify(r.body.messages).includes('Verbose summary'));
  for (const r of double.chat.requests) assert.ok(fitsWindow(r));
});

test('when summarising fails the oldest turns are dropped and the answer still comes', async () => {
  const session = ChatSession.open(settings(), { incognito: true });
  let failedOnce = false;
  for (let i = 1; i <= 8; i++) {
    const turn = session.ask(question(i));
    const wouldFold = session.context.estimate(session.context.messagesFor(session.conversation, turn)) > session.context.threshold;
    // The summarising request (and its one retry) fails the first time it is needed.
    if (wouldFold && !failedOnce) {
      double.chat.enqueue({ status: 503 }, { status: 503 });
      failedOnce = true;
      const events: SessionEvent[] = [];
      for await (const e of session.send(turn)) events.push(e);
      const notice = events.find((e) => e.type === 'compacted');
      assert.ok(notice && notice.type === 'compacted');
      assert.match(notice.text, /^Summarising failed \(the service failed \(503\)[^;]*\); dropped \d+ earlier messages instead \([\d.]+k? tokens\)$/);
      assert.equal(turn.status, 'complete');
    } else {
      for await (const _ of session.send(turn)) {
        // drain
      }
    }
  }
  assert.ok(failedOnce, 'the window filled up');
  for (const r of double.chat.requests) assert.ok(fitsWindow(r));
});

test('one message that cannot fit on its own is refused before sending, with the numbers', async () => {
  const session = ChatSession.open(settings(), { incognito: true });
  const turn = session.ask('chest pain '.repeat(40_000));
  await assert.rejects(
    async () => {
      for await (const _ of session.send(turn)) {
        // nothing arrives
      }
    },
    (err: MedchatError) => {
      assert.equal(err.exitCode, 2);
      assert.match(err.message, /too long for the model: about [\d.]+k tokens, but the 16k window leaves 15\.4k for the prompt after 1k for the answer/);
      return true;
    },
  );
  assert.equal(double.chat.requests.length, 0, 'nothing was sent');
  assert.equal(turn.status, 'failed');
});

test('a context-length error from the service makes medchat summarise and retry once', async () => {
  const session = ChatSession.open(settings(), { incognito: true });
  // The service under-reports its counts at first, so medchat's estimate is too low and one request is too long.
  const lie = { usage: { prompt_tokens: 100, completion_tokens: 50 } };
  double.chat.enqueue(lie, lie, lie, lie, lie, lie);
  for (let i = 1; i <= 9; i++) await drain(session, question(i));
  const all = double.chat.requests;
  const rejected = all.map((r, i) => (fitsWindow(r) ? -1 : i)).filter((i) => i >= 0);
  assert.equal(rejected.length, 1, 'one request was rejected by the service');
  const next = all[rejected[0]! + 1]!;
  assert.equal(next.body.stream, false, 'then it summarised');
  assert.equal(next.body.enable_thinking, false);
  assert.ok(fitsWindow(all[rejected[0]! + 2]!), 'and the retry fit');
  assert.ok(session.conversation.turns.every((t) => t.status === 'complete'));
});

test('/compact summarises everything but the last two exchanges, and the breakdown adds up', async () => {
  const session = ChatSession.open(settings({ contextWindow: 131072 }), { incognito: true, system: 'Be brief.' });
  for (let i = 1; i <= 4; i++) await drain(session, question(i));
  const before = session.tokenBreakdown('and now?');
  assert.equal(before.summary, 0);
  assert.equal(before.keptTurns, 4);
  assert.equal(before.system + before.summary + before.kept + before.next, before.prompt);
  assert.equal(before.room, before.budget - before.prompt);
  const result = await session.compactNow();
  assert.ok(result);
  assert.match(result.text, /^Summarised 4 earlier messages/);
  const after = session.tokenBreakdown('and now?');
  assert.equal(after.keptTurns, 2);
  assert.equal(after.foldedTurns, 2);
  assert.ok(after.summary > 0);
  assert.ok(after.prompt < before.prompt);
  assert.equal(summaryRequests().at(-1)!.body.enable_thinking, false);
  // Nothing more to compact with only two exchanges left.
  assert.equal(await session.compactNow(), undefined);
});

test('prepare never folds a short conversation', async () => {
  const ctx = new ContextManager(settings());
  const conv = new Conversation('sys');
  conv.addTurn('hello');
  const p = await ctx.prepare(conv);
  assert.equal(p.summarised, undefined);
  assert.deepEqual(p.messages, [
    { role: 'system', content: 'sys' },
    { role: 'user', content: 'hello' },
  ]);
});
