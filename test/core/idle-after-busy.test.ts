// The idle timeout measures the service's silence, not medchat's own: when medchat's thread was
// busy (a long render, a tokenizer load, a GC pause, a loaded machine) past the deadline while the
// service's bytes were already waiting on the socket, the answer goes on.
//
// Deterministic: the service runs on a thread of its own and writes only once this thread is
// blocked (Atomics.wait, as a long synchronous task would block it), and this thread stays blocked
// until those bytes are written and the idle timeout has passed. Nothing depends on timing.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Worker } from 'node:worker_threads';
import { streamChat, type ClientSettings } from '../../src/core/chat/chat-client.js';
import type { ChatEvent } from '../../src/core/chat/chat-events.js';

const IDLE_MS = 500;
/** flag[0]: 0 answering, 1 the service waits for this thread to block, 2 this thread is blocked, 3 the rest is written. */
const SERVICE = `
const { workerData, parentPort } = require('node:worker_threads');
const http = require('node:http');
const flag = new Int32Array(workerData.shared);
const frame = (delta, finish = null) => 'data: ' + JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] }) + '\\n\\n';
const usage = 'data: ' + JSON.stringify({ id: 'c1', choices: [], usage: { prompt_tokens: 3, completion_tokens: 4 } }) + '\\n\\n';
const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    const rest = () => {
      // Wait (this thread only) until the client's thread is blocked, then write the rest.
      Atomics.store(flag, 0, 1);
      Atomics.notify(flag, 0);
      parentPort.postMessage('ready');
      Atomics.wait(flag, 0, 1);
      if (!res.headersSent) res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(frame({ content: '60 to 100 bpm.' }) + frame({}, 'stop') + usage + 'data: [DONE]\\n\\n', () => {
        Atomics.store(flag, 0, 3);
        Atomics.notify(flag, 0);
        res.end();
      });
    };
    if (workerData.when === 'before-headers') return rest();
    // 'mid-answer': the headers and some reasoning are on the wire first.
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(frame({ reasoning_content: 'Adults at rest: ' }), rest);
  });
});
server.listen(0, '127.0.0.1', () => parentPort.postMessage(server.address().port));
`;

/**
 * Block this thread as a long synchronous task would: from the moment the service is ready to
 * write until it has written the rest of the answer and the idle timeout has passed.
 */
function blockWhileTheServiceWrites(flag: Int32Array): void {
  Atomics.wait(flag, 0, 0, 10_000); // until the service waits for us (it may not have said so yet)
  const since = performance.now();
  Atomics.store(flag, 0, 2);
  Atomics.notify(flag, 0);
  Atomics.wait(flag, 0, 2, 10_000);
  const rest = IDLE_MS + 100 - (performance.now() - since);
  if (rest > 0) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, rest);
}

for (const when of ['before-headers', 'mid-answer'] as const) {
  test(`bytes that arrived while medchat's own thread was busy past the idle timeout (${when}) are read, not taken for silence`, async () => {
    const shared = new SharedArrayBuffer(4);
    const flag = new Int32Array(shared);
    const worker = new Worker(SERVICE, { eval: true, workerData: { shared, when } });
    try {
      const port = await new Promise<number>((resolve, reject) => {
        worker.once('message', resolve);
        worker.once('error', reject);
      });
      // Blocked where real work blocks: in an I/O callback (a message from the service's thread,
      // or the reasoning event handed over while the socket's data is read).
      if (when === 'before-headers') worker.once('message', () => blockWhileTheServiceWrites(flag));
      const settings: ClientSettings = { baseUrl: `http://127.0.0.1:${port}`, apiKey: 'sk-test-0000', model: 'm', maxTokens: 100, thinking: true, idleTimeoutMs: IDLE_MS };
      const events: ChatEvent[] = [];
      let error: { message: string } | undefined;
      try {
        for await (const e of streamChat(settings, [{ role: 'user', content: 'What is a normal resting heart rate?' }], { retries: 0 })) {
          events.push(e);
          if (when === 'mid-answer' && e.type === 'reasoning') blockWhileTheServiceWrites(flag);
        }
      } catch (err) {
        error = err as { message: string };
      }
      assert.equal(Atomics.load(flag, 0), 3, 'the service wrote the answer while this thread was blocked');
      assert.equal(error, undefined, `no idle timeout: ${error?.message}`);
      const text = (t: string) => events.filter((e) => e.type === t).map((e) => (e as { text: string }).text).join('');
      assert.equal(text('content'), '60 to 100 bpm.');
      if (when === 'mid-answer') assert.equal(text('reasoning'), 'Adults at rest: ');
      assert.equal(events.at(-1)?.type, 'end');
    } finally {
      Atomics.store(flag, 0, 2); // never leave the service waiting
      Atomics.notify(flag, 0);
      await worker.terminate();
    }
  });
}
