import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { ContextManager, type ContextSettings } from '../../src/core/context/context.js';
import { Conversation, type TurnStatus } from '../../src/core/context/conversation.js';
import { countText, loadTokenizer } from '../../src/core/context/tokens.js';
import { Prng, countFromEnv, seedFromEnv } from '../support/prng.js';

/**
 * The footer meter and /tokens count what the next request would send: the
 * system prompt and summary, every kept turn with its answer (the last one included), and the
 * question being typed. Checked against `prepare`, which builds the request `send` sends.
 */
const SEED = seedFromEnv();
const CASES = countFromEnv('MEDCHAT_BREAKDOWN_CASES', 300);

before(() => loadTokenizer());

function settings(over: Partial<ContextSettings> = {}): ContextSettings {
  return {
    baseUrl: 'http://127.0.0.1:9',
    apiKey: 'sk-test-breakdown',
    model: 'medical-large-latest',
    maxTokens: 4096,
    thinking: false,
    idleTimeoutMs: 1000,
    contextWindow: 100_000_000, // nothing is ever summarised here: the request is the whole conversation
    compressAt: 0.8,
    compress: 'trim',
    ...over,
  };
}

const WORDS = ['fever', 'ibuprofen 400 mg', 'blood pressure 150/95', 'she is 58', 'no allergies', '胸痛', 'naïve', '👩‍⚕️', 'ECG', 'troponin', '\n\n', '- item', '```js\nx\n```'];
const text = (p: Prng, max: number) => Array.from({ length: p.int(1, max) }, () => p.pick(WORDS)).join(' ');

/** A conversation as it can be when nothing is streaming: answered, interrupted, cut-off and failed turns. */
function generate(p: Prng): { conv: Conversation; cm: ContextManager; draft: string } {
  const conv = new Conversation(p.chance(0.5) ? text(p, 20) : undefined);
  const statuses: Array<[number, TurnStatus]> = [
    [6, 'complete'],
    [1, 'interrupted'],
    [1, 'incomplete'],
    [1, 'failed'],
  ];
  for (let i = p.int(0, 8); i > 0; i--) {
    const t = conv.addTurn(text(p, 30));
    t.status = p.weighted(statuses);
    if (t.status === 'complete' || t.status === 'incomplete' || (t.status === 'interrupted' && p.chance(0.6))) t.answer = text(p, 200);
    if (p.chance(0.3)) t.reasoning = text(p, 50); // never sent back
  }
  const cm = new ContextManager(settings({ maxTokens: p.int(1, 8192) }));
  if (conv.turns.length && p.chance(0.4)) {
    cm.state.startTurn = p.int(0, conv.turns.length);
    if (p.chance(0.7)) cm.state.summary = { text: `PATIENT SUMMARY: ${text(p, 40)}`, throughTurn: cm.state.startTurn };
  }
  if (conv.turns.length && p.chance(0.5)) {
    // The service counted an earlier request: its prompt is known exactly, the rest is estimated.
    const upTo = p.pick(conv.turns);
    const sent = cm.messagesFor(conv, upTo);
    cm.recordUsage(sent, { prompt_tokens: Math.max(1, Math.round(p.int(80, 130) / 100 * (countText(sent.map((m) => m.content).join(' ')) + 10))), completion_tokens: 1 });
  }
  return { conv, cm, draft: p.chance(0.9) ? text(p, 40) : 'ok' };
}

test(`the meter's numbers are the next request: system, summary, every kept turn with its answer, the draft (seed ${SEED}, ${CASES} conversations)`, async () => {
  const root = new Prng(SEED);
  for (let i = 0; i < CASES; i++) {
    const { conv, cm, draft } = generate(root.fork(i));
    const replay = `MEDCHAT_SEED=${SEED}, case ${i}`;
    const b = cm.tokenBreakdown(conv, draft);
    const turn = conv.addTurn(draft);
    const request = await cm.prepare(conv, { upTo: turn });
    assert.equal(request.compaction, undefined, replay);
    conv.turns.pop();
    assert.deepEqual(cm.nextMessages(conv, draft), request.messages, `${replay}: the counted messages are the ones sent`);
    assert.equal(b.prompt, cm.estimate(request.messages), `${replay}: the prompt estimate is the request's`);
    assert.equal(b.fraction, (b.prompt + b.maxTokens) / b.window, replay);
    // The parts add up to the whole (kept is what is left once the others are counted).
    assert.ok(b.kept >= 0 && b.system + b.summary + b.kept + b.next >= b.prompt, `${replay}: ${JSON.stringify(b)}`);
    const lastAnswered = conv.turns.slice(cm.state.startTurn).filter((t) => t.answer).at(-1);
    if (lastAnswered) assert.ok(request.messages.some((m) => m.role === 'assistant' && m.content === lastAnswered.answer), `${replay}: the last answer is counted`);
  }
});

test('after three 20k-token answers the meter is the next request (85%), not the one before the last answer (59%)', () => {
  // The numbers from the report: a 76,800-token window, 5,000 reserved for the answer.
  const cm = new ContextManager(settings({ contextWindow: 76_800, maxTokens: 5_000, compressAt: 0.8 }));
  const conv = new Conversation();
  const answer = (n: number) => Array.from({ length: 3000 }, (_, i) => `Day ${n}.${i} bp`).join(' ');
  assert.ok(Math.abs(countText(answer(1)) - 20_000) < 1000, `an answer is about 20k tokens (${countText(answer(1))})`);
  for (let n = 1; n <= 3; n++) {
    const t = conv.addTurn(`visit ${n}?`);
    t.answer = answer(n);
    t.status = 'complete';
  }
  const b = cm.tokenBreakdown(conv, '');
  assert.equal(b.keptTurns, 3);
  assert.ok(b.kept > 3 * 19_000, `all three answers are counted: ${b.kept}`);
  assert.equal(Math.round(b.fraction * 100), Math.round(((cm.estimate(cm.messagesFor(conv, conv.addTurn('next?'))) + 5_000) / 76_800) * 100));
  assert.ok(b.fraction > 0.8, `the meter reads ${Math.round(b.fraction * 100)}%`);
  assert.ok(b.prompt > cm.threshold, 'and the next request is past the summarising threshold');
});

test('while a question waits for its first word, it is counted with the draft; a partial answer counts as it would be sent', () => {
  const cm = new ContextManager(settings());
  const conv = new Conversation('Be brief.');
  const done = conv.addTurn('first?');
  done.answer = 'First answer.';
  done.status = 'complete';
  const waiting = conv.addTurn('second?');
  waiting.status = 'pending';
  assert.deepEqual(
    cm.nextMessages(conv, 'third?').map((m) => m.content),
    ['Be brief.', 'first?', 'First answer.', 'second?', 'third?'],
  );
  waiting.status = 'streaming';
  waiting.answer = 'Half an';
  assert.deepEqual(
    cm.nextMessages(conv, '').map((m) => m.content),
    ['Be brief.', 'first?', 'First answer.', 'second?', 'Half an'],
  );
});
