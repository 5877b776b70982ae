import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ContextManager } from '../../src/core/context/context.js';
import { ChatSession } from '../../src/core/sessions/chat-session.js';
import type { Settings } from '../../src/core/config/settings.js';
import { countMessages, countText, loadTokenizer, upperBound } from '../../src/core/context/tokens.js';
import { startServiceDouble, type ServiceDouble } from '../../src/stand-in/index.js';
import { testSettings } from '../support/settings.js';
import { adversarialCase, boundMs } from '../support/adversarial-text.js';
import { Prng, seedFromEnv } from '../support/prng.js';

let double: ServiceDouble;
before(async () => {
  double = await startServiceDouble({ contextWindow: 131072 });
  await loadTokenizer();
});
after(() => double.close());

function settings(overrides: Partial<Settings> = {}): Settings {
  return testSettings(double.url, { apiKey: 'sk-test-tokens-0000', maxTokens: 1024, idleTimeoutMs: 10_000, history: false, disclaimer: false, ...overrides });
}

async function answer(session: ChatSession, question: string) {
  const turn = session.ask(question);
  for await (const _ of session.send(turn)) {
    // drain
  }
  return turn;
}

const MIXED_1 =
  '患者女性，58岁，高血压病史十年，目前服用氨氯地平 5 mg 每日一次。She reports intermittent chest tightness on exertion for three weeks, ' +
  '伴有气短和轻度下肢水肿。Her last HbA1c was 6.9% and LDL cholesterol 3.8 mmol/L. 请问下一步应该做哪些检查？Should we start a statin now, ' +
  '还是先做运动负荷试验？She is allergic to penicillin (rash) and takes aspirin 100 mg daily. 她的父亲在六十岁时死于心肌梗死。';
const MIXED_2 =
  'Follow-up: 运动负荷试验结果为阳性，ST 段在第二阶段压低 2 mm。Troponin was normal. 心脏超声显示射血分数 55%，左室壁运动未见明显异常。' +
  'The cardiologist suggests coronary CT angiography before deciding on catheterisation. 患者担心造影剂过敏，因为她对碘有轻微皮疹史。' +
  'What premedication would you recommend, and 是否需要调整二甲双胍的用量？She also asks whether 她可以继续每天快走三十分钟。';

test('after one turn of reported usage, the estimate for the next mixed Chinese and English turn is within 10% of what the service counts', async () => {
  const session = ChatSession.open(settings(), { incognito: true, system: '你是一名谨慎的医学助手。Answer concisely, in the language of the question.' });
  await answer(session, MIXED_1);
  const next = session.ask(MIXED_2);
  const prepared = await session.prepare(next);
  for await (const _ of session.send(next)) {
    // drain
  }
  const reported = next.usage?.prompt_tokens;
  assert.ok(reported, 'the double reports prompt tokens');
  const error = Math.abs(prepared.estimate - reported) / reported;
  assert.ok(error <= 0.1, `estimate ${prepared.estimate} vs reported ${reported} (${(error * 100).toFixed(1)}% off)`);
});

test('a fresh conversation in the same mix is estimated within 10% once the ratio is learnt (no exact prefix to lean on)', async () => {
  const learner = ChatSession.open(settings(), { incognito: true });
  await answer(learner, MIXED_1 + MIXED_2);
  const ctx = new ContextManager(settings(), { ...learner.context.state, anchor: undefined });
  const messages = [{ role: 'user' as const, content: MIXED_2 + MIXED_1 }];
  const estimate = ctx.estimate(messages);
  const turn = ChatSession.open(settings(), { incognito: true });
  const t = await answer(turn, MIXED_2 + MIXED_1);
  const reported = t.usage!.prompt_tokens;
  assert.ok(Math.abs(estimate - reported) / reported <= 0.1, `estimate ${estimate} vs reported ${reported}`);
});

test('Chinese is counted by a real tokenizer, not by characters or bytes', () => {
  const zh = '患者主诉胸痛两小时，向左臂放射，伴出汗。';
  const n = countText(zh);
  assert.ok(n > 5 && n < zh.length * 1.5, `${n} tokens for ${zh.length} characters`);
  assert.ok(countText('The patient reports chest pain radiating to the left arm.') <= 14);
});

test('the UTF-8 size bounds the count from above, so short questions never need the tokenizer', () => {
  const messages = [
    { role: 'system' as const, content: 'You are careful.' },
    { role: 'user' as const, content: MIXED_1 },
  ];
  assert.ok(upperBound(messages) >= countMessages(messages));
});

test('adversarial text: a run without spaces (DNA, braces, one letter) is counted in a bound and stays within 1% of o200k', async () => {
  const { countTokens } = await import('gpt-tokenizer/encoding/o200k_base');
  const seed = seedFromEnv();
  const r = new Prng(seed);
  const random = (alphabet: string, n: number) => Array.from({ length: n }, () => r.pick([...alphabet])).join('');
  // Exact o200k counts of 12 KB pieces (it takes ~0.1 s each; of 300 KB, 80 s).
  const samples: Array<[string, string]> = [
    ['DNA', random('ACGT', 12_000)],
    ['protein', random('ACDEFGHIKLMNPQRSTVWY', 12_000)],
    ['hex', random('0123456789abcdef', 12_000)],
    ['base64', random('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/', 12_000)],
    ['braces', '{'.repeat(12_000)],
    ['spaces', ' '.repeat(12_000)],
  ];
  for (const [name, text] of samples) {
    const ours = countText(text);
    const exact = countTokens(text);
    assert.ok(Math.abs(ours - exact) <= exact * 0.01, `${name}: ${ours} vs o200k ${exact} (MEDCHAT_SEED=${seed})`);
  }
  const cases = [random('ACGT', 300_000), '{'.repeat(300_000), 'a'.repeat(300_000), ' '.repeat(300_000), ...Array.from({ length: 6 }, () => adversarialCase(r, 100_000).text)];
  for (const text of cases) {
    const t0 = performance.now();
    const n = countText(text);
    const ms = performance.now() - t0;
    assert.ok(n > 0 && ms < boundMs(text.length), `${JSON.stringify(text.slice(0, 12))}… (${text.length} chars): ${ms.toFixed(0)} ms (MEDCHAT_SEED=${seed})`);
  }
  console.log(`# token count, adversarial text: ${samples.length} exact comparisons, ${cases.length} timed cases, seed ${seed}`);
});

test('a note holding the tokenizer\'s own markers (<|endoftext|>, <|im_start|>) is counted as text, not refused with an error', async () => {
  await loadTokenizer();
  const note = 'Model output ended with <|endoftext|> then <|im_start|>system and <|im_end|>. '.repeat(50);
  const n = countText(note);
  assert.ok(n > 50 * 10, `counted ${n} tokens`);
  assert.equal(countText('<|endoftext|>'), countText('<|endoftext|>'));
  assert.ok(countText('<|endoftext|>') > 1, 'the marker is several tokens of text, not one special token');
});
