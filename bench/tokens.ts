// Prints how long counting a full 128k-token history takes (`npx tsx bench/tokens.ts`).
// Benchmarks print; tests never time.
import { ContextManager } from '../src/core/context/context.js';
import { Conversation } from '../src/core/context/conversation.js';
import { clearCountCache, countMessages, loadTokenizer } from '../src/core/context/tokens.js';

const t0 = performance.now();
await loadTokenizer();
const loadMs = performance.now() - t0;

// A varied clinical history in English and Chinese: no two turns alike, so nothing is cached by accident.
const conv = new Conversation('You are a careful clinical assistant. Answer in the language of the question.');
const settings = { contextWindow: 1_000_000, compressAt: 0.8, compress: 'summarise', maxTokens: 8192 } as never;
/** Every turn as a request resends it (nothing folded: the window is far larger). */
const whole = () => new ContextManager(settings).messagesFor(conv, null);
const words = ['chest pain', 'metformin 1000 mg', 'eGFR 54', 'HbA1c 7.2%', '血压 150/95', '胸闷', '二甲双胍', 'troponin', 'ECG', 'statin', '肌酐 110 µmol/L', 'dyspnoea'];
let i = 0;
while (true) {
  const t = conv.addTurn(`Day ${i}: ` + Array.from({ length: 120 }, (_, k) => `${words[(i * 7 + k) % words.length]} ${i}.${k}`).join(', ') + '?');
  t.answer = `Assessment ${i}: ` + Array.from({ length: 240 }, (_, k) => `${words[(i * 5 + k) % words.length]} (${k * i})`).join('; ') + '.';
  t.status = 'complete';
  i++;
  if (countMessages(whole()) > 128_000) break;
}
const messages = whole();

clearCountCache();
let t = performance.now();
const cold = countMessages(messages);
const coldMs = performance.now() - t;

// The same again with the JIT warm (a long-running chat screen), still with nothing remembered.
clearCountCache();
t = performance.now();
countMessages(messages);
const coldWarmJitMs = performance.now() - t;

const ctx = new ContextManager(settings);
const runs = 50;
t = performance.now();
for (let r = 0; r < runs; r++) ctx.estimate(ctx.messagesFor(conv, undefined));
const warmMs = (performance.now() - t) / runs;

t = performance.now();
for (let r = 0; r < runs; r++) ctx.tokenBreakdown(conv, 'and what about her kidneys?');
const breakdownMs = (performance.now() - t) / runs;

const chars = messages.reduce((n, m) => n + m.content.length, 0);
console.log(`history: ${conv.turns.length} turns, ${messages.length} messages, ${chars.toLocaleString('en')} characters, ${cold.toLocaleString('en')} o200k tokens`);
console.log(`tokenizer load (once per process):         ${loadMs.toFixed(1)} ms`);
console.log(`first count of the whole history:          ${coldMs.toFixed(1)} ms`);
console.log(`same, tokenizer warmed up, nothing cached:  ${coldWarmJitMs.toFixed(1)} ms`);
console.log(`count before each send (prepare/estimate): ${warmMs.toFixed(2)} ms   (target < 20 ms)`);
console.log(`/tokens breakdown and footer meter:        ${breakdownMs.toFixed(2)} ms`);
