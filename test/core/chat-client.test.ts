import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { streamChat, completeChat, type ClientSettings } from '../../src/core/chat/chat-client.js';
import type { ChatEvent } from '../../src/core/chat/chat-events.js';
import { startServiceDouble, type ServiceDouble } from '../support/misbehaving-service.js';

let double: ServiceDouble;
let settings: ClientSettings;
before(async () => {
  double = await startServiceDouble();
  settings = { baseUrl: double.url, apiKey: 'sk-test-0000', model: 'medical-large-latest', maxTokens: 8192, thinking: true, idleTimeoutMs: 5000 };
});
after(() => double.close());

const ask = [{ role: 'user' as const, content: 'What is a normal resting heart rate?' }];

async function collect(s: ClientSettings = settings, opts = {}) {
  const events: ChatEvent[] = [];
  let error: any;
  try {
    for await (const e of streamChat(s, ask, { retries: 0, ...opts })) events.push(e);
  } catch (err) {
    error = err;
  }
  const text = (t: string) => events.filter((e) => e.type === t).map((e: any) => e.text).join('');
  return { events, error, reasoning: text('reasoning'), content: text('content') };
}

for (const shape of ['reasoning_content', 'reasoning', 'think-tags', 'think-tags-no-open'] as const) {
  test(`reasoning sent as ${shape} arrives as reasoning, the answer as content`, async () => {
    double.chat.enqueue({ reasoningShape: shape, reasoning: ['Consider ', 'the adult range.'], content: ['60 to ', '100 bpm.'] });
    const r = await collect();
    assert.equal(r.error, undefined);
    assert.equal(r.reasoning, 'Consider the adult range.');
    assert.equal(r.content, '60 to 100 bpm.');
    assert.equal(r.events.at(-1)?.type, 'end');
    assert.ok(r.events.some((e) => e.type === 'usage'));
  });
}

test('reasoning events come before content events', async () => {
  double.chat.enqueue({ reasoning: ['a', 'b'], content: ['c', 'd'] });
  const r = await collect();
  const kinds = r.events.filter((e) => e.type === 'reasoning' || e.type === 'content').map((e) => e.type);
  assert.deepEqual(kinds, ['reasoning', 'reasoning', 'content', 'content']);
});

test('the request carries enable_thinking and the exact key set', async () => {
  const before = double.chat.requests.length;
  await collect({ ...settings, thinking: false });
  const body = double.chat.requests[before]!.body;
  assert.deepEqual(Object.keys(body).sort(), ['enable_thinking', 'max_tokens', 'messages', 'model', 'stream']);
  assert.equal(body.enable_thinking, false);
  assert.equal(double.chat.requests[before]!.headers.authorization, 'Bearer sk-test-0000');
});

test('a clean close without [DONE] or a finish reason is reported as incomplete, keeping what arrived', async () => {
  double.chat.enqueue({ content: ['partial ', 'answer'], finishReason: null, usage: false, done: false });
  const r = await collect();
  assert.equal(r.content, 'partial answer');
  assert.equal(r.error?.exitCode, 4);
  assert.match(r.error.message, /incomplete/);
});

test('a finish reason without [DONE] is a complete answer', async () => {
  double.chat.enqueue({ content: ['whole'], done: false });
  const r = await collect();
  assert.equal(r.error, undefined);
  assert.equal(r.content, 'whole');
});

test('[DONE] without a usage chunk is fine', async () => {
  double.chat.enqueue({ content: ['no usage'], usage: false });
  const r = await collect();
  assert.equal(r.error, undefined);
  assert.ok(!r.events.some((e) => e.type === 'usage'));
});

test('a reset mid-answer keeps the text and says the answer is incomplete', async () => {
  double.chat.enqueue({ reasoning: [], content: ['one ', 'two ', 'three'], dropAfter: 2 });
  const r = await collect();
  assert.equal(r.content, 'one two ');
  assert.equal(r.error?.exitCode, 4);
});

test('a stall after some text ends at the idle timeout with what arrived', async () => {
  double.chat.enqueue({ reasoning: [], content: ['slow ', 'never'], stallAfter: 1 });
  const r = await collect({ ...settings, idleTimeoutMs: 300 });
  assert.equal(r.content, 'slow ');
  assert.equal(r.error?.exitCode, 4);
  assert.match(r.error.message, /no data from the service for/);
});

test('an error object inside the stream becomes one clear line', async () => {
  double.chat.enqueue({ reasoning: [], content: ['a', 'b'], errorObjectAfter: 1 });
  const r = await collect();
  assert.equal(r.content, 'a');
  assert.equal(r.error?.exitCode, 1);
  assert.match(r.error.message, /mid-answer: The model overloaded/);
});

test('an event: error frame becomes one clear line', async () => {
  double.chat.enqueue({ reasoning: [], content: ['a', 'b'], errorEventAfter: 1 });
  const r = await collect();
  assert.equal(r.error?.exitCode, 1);
  assert.match(r.error.message, /Upstream failed mid-answer/);
});

test('a malformed line is reported, not thrown raw', async () => {
  double.chat.enqueue({ reasoning: [], content: ['a', 'b'], malformedAfter: 1 });
  const r = await collect();
  assert.equal(r.error?.exitCode, 1);
  assert.match(r.error.message, /malformed/);
});

test('aborting closes the HTTP connection', async () => {
  double.chat.enqueue({ reasoning: ['r'], content: Array.from({ length: 200 }, (_, i) => `w${i} `), paceMs: 20 });
  const controller = new AbortController();
  const before = double.chat.requests.length;
  const events: ChatEvent[] = [];
  let error: any;
  try {
    for await (const e of streamChat(settings, ask, { signal: controller.signal })) {
      events.push(e);
      if (events.length === 3) controller.abort();
    }
  } catch (err) {
    error = err;
  }
  assert.equal(error?.exitCode, 130);
  const req = double.chat.requests[before]!;
  await req.closed;
  assert.equal(req.finished, false, 'the double saw the connection close before it finished');
});

test('HTTP errors map to one line with the next step and the right exit code', async () => {
  const cases = [
    { status: 401, code: 3, re: /refused the API key.*medchat config set api-key/ },
    { status: 403, code: 3, re: /refused the API key/ },
    { status: 404, code: 1, re: /no chat endpoint.*base-url/ },
    { status: 502, body: '<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>', code: 1, re: /^the service failed \(502\): 502 Bad Gateway; try again later$/ },
  ];
  for (const c of cases) {
    double.chat.enqueue({ status: c.status, body: c.body });
    const r = await collect();
    assert.equal(r.error?.exitCode, c.code, `status ${c.status}`);
    assert.match(r.error.message, c.re);
    assert.ok(!r.error.message.includes('<'), 'no HTML in the message');
  }
});

test('429 is retried honouring retry-after, then succeeds', async () => {
  double.chat.enqueue({ status: 429, headers: { 'retry-after': '0.1' } }, { content: ['ok'] });
  const r = await collect(settings, { retries: 2 });
  assert.equal(r.error, undefined);
  assert.equal(r.content, 'ok');
  const retry = r.events.find((e) => e.type === 'retry');
  assert.ok(retry && retry.type === 'retry' && retry.delayMs === 100);
});

test('a huge retry-after is not waited for', async () => {
  double.chat.enqueue({ status: 429, headers: { 'retry-after': '3600' } });
  const r = await collect(settings, { retries: 2 });
  assert.equal(r.error?.exitCode, 1);
  assert.match(r.error.message, /asks to wait 1h/);
});

test('the non-streaming path returns the whole answer and its reasoning', async () => {
  double.chat.enqueue({ reasoning: ['think'], content: ['answer'] });
  const r = await completeChat(settings, ask, { retries: 0 });
  assert.equal(r.content, 'answer');
  assert.equal(r.reasoning, 'think');
  assert.equal(r.finishReason, 'stop');
  assert.ok(r.usage && r.usage.prompt_tokens > 0);
});

const sse = (obj: unknown) => `data: ${JSON.stringify(obj)}\n\n`;
const completion = (content: unknown, finish = 'stop') => ({
  id: 'c9',
  model: 'm',
  choices: [{ index: 0, message: { role: 'assistant', content, reasoning_content: 'why' }, finish_reason: finish }],
  usage: { prompt_tokens: 3, completion_tokens: 4 },
});

test('a whole JSON completion answering a stream request is read, not thrown away', async () => {
  double.chat.enqueue({ raw: { headers: { 'content-type': 'application/json' }, parts: [JSON.stringify(completion('whole answer'))] } });
  const r = await collect();
  assert.equal(r.error, undefined);
  assert.equal(r.reasoning, 'why');
  assert.equal(r.content, 'whole answer');
  assert.deepEqual(r.events.at(-1), { type: 'end', id: 'c9', model: 'm', finishReason: 'stop' });
});

test('server-sent events answering --no-stream are read, not thrown away', async () => {
  const parts = [sse({ id: 'c8', model: 'm', choices: [{ index: 0, delta: { reasoning_content: 'hm' } }] }), sse({ choices: [{ index: 0, delta: { content: 'one ' } }] }), sse({ choices: [{ index: 0, delta: { content: 'two' }, finish_reason: 'stop' }] }), sse({ choices: [], usage: { prompt_tokens: 1, completion_tokens: 2 } }), 'data: [DONE]\n\n'];
  double.chat.enqueue({ raw: { parts } });
  const r = await completeChat(settings, ask, { retries: 0 });
  assert.deepEqual({ ...r }, { id: 'c8', model: 'm', content: 'one two', reasoning: 'hm', usage: { prompt_tokens: 1, completion_tokens: 2 }, finishReason: 'stop' });
});

test('content as an array of text parts is read, in both modes', async () => {
  const parts = [sse({ choices: [{ index: 0, delta: { content: [{ type: 'text', text: 'Amoxi' }, { type: 'text', text: 'cillin' }] } }] }), sse({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }), 'data: [DONE]\n\n'];
  double.chat.enqueue({ raw: { parts } });
  assert.equal((await collect()).content, 'Amoxicillin');
  double.chat.enqueue({ raw: { headers: { 'content-type': 'application/json' }, parts: [JSON.stringify(completion([{ type: 'text', text: 'in ' }, { type: 'text', text: 'parts' }]))] } });
  assert.equal((await completeChat(settings, ask, { retries: 0 })).content, 'in parts');
});

test('only the choice with index 0 is read; choices[1] is not interleaved', async () => {
  const c = (index: number, content: string, finish: string | null = null) => sse({ choices: [{ index, delta: { content }, finish_reason: finish }] });
  const parts = [c(0, 'A '), c(1, 'x '), sse({ choices: [{ index: 1, delta: { content: 'y ' } }, { index: 0, delta: { content: 'B' } }] }), c(1, 'z', 'stop'), c(0, '', 'stop'), 'data: [DONE]\n\n'];
  double.chat.enqueue({ raw: { parts } });
  const r = await collect();
  assert.equal(r.error, undefined);
  assert.equal(r.content, 'A B');
});

test('finish_reason length ends with exit 8 after the text arrived; content_filter and reasoning-only too', async () => {
  double.chat.enqueue({ reasoning: [], content: ['half'], finishReason: 'length' });
  const cut = await collect();
  assert.equal(cut.content, 'half');
  assert.equal(cut.error?.exitCode, 8);
  assert.equal(cut.error.message, 'the answer was cut off at --max-tokens 8192 (finish_reason length); raise --max-tokens or ask for less');
  assert.ok(cut.events.some((e) => e.type === 'finish' && e.reason === 'length'));
  double.chat.enqueue({ reasoning: [], content: ['x'], finishReason: 'content_filter' });
  assert.equal((await collect()).error?.exitCode, 8);
  double.chat.enqueue({ reasoning: ['only thinking'], content: [] });
  const thought = await collect();
  assert.equal(thought.reasoning, 'only thinking');
  assert.equal(thought.error?.exitCode, 8);
  assert.match(thought.error.message, /reasoning but no answer text/);
});

test('the retry-after cap is for all waits together: two 200 ms waits under a 300 ms cap stop after the first', async () => {
  double.chat.enqueue({ status: 429, headers: { 'retry-after-ms': '200' } }, { status: 429, headers: { 'retry-after-ms': '200' } }, { content: ['never'] });
  const start = Date.now();
  const r = await collect(settings, { retries: 3, maxRetryAfterMs: 300 });
  assert.equal(r.events.filter((e) => e.type === 'retry').length, 1);
  assert.equal(r.error?.exitCode, 1);
  assert.match(r.error.message, /asks to wait 0\.2s, try again later$/);
  assert.ok(Date.now() - start < 1000);
  assert.equal((await collect()).content, 'never', 'the third script was not used: take it off the queue');
});
