// medchat reads an answer's server-sent events itself (src/core/chat/event-stream.ts) instead of through the openai SDK's
// Stream: the same body, cut into pieces at random points, must give the same chunks and the same error as the SDK.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Stream } from 'openai/core/streaming';
import { EventStreamReader } from '../../src/core/chat/event-stream.js';
import { runSeed } from '../support/key-runs.js';
import { seededRandom } from '../support/prng.js';

function bodyOf(pieces: Uint8Array[], error?: Error): Response {
  let i = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(c) {
      if (i < pieces.length) c.enqueue(pieces[i++]!);
      else if (error) c.error(error);
      else c.close();
    },
  });
  return new Response(stream, { headers: { 'content-type': 'text/event-stream' } });
}

/** What a reader gives: every chunk, then `end` or the error's name and message. */
async function viaReader(pieces: Uint8Array[], error?: Error): Promise<unknown[]> {
  const got: unknown[] = [];
  const reader = new EventStreamReader(bodyOf(pieces, error), new AbortController());
  try {
    for (let batch = await reader.next(); batch; batch = await reader.next()) got.push(...batch);
    got.push('end');
  } catch (err) {
    got.push(`${(err as Error).name}: ${(err as Error).message}`);
  }
  return got;
}

async function viaSdk(pieces: Uint8Array[], error?: Error): Promise<unknown[]> {
  const got: unknown[] = [];
  try {
    for await (const chunk of Stream.fromSSEResponse<unknown>(bodyOf(pieces, error), new AbortController())) got.push(chunk);
    got.push('end');
  } catch (err) {
    got.push(`${(err as Error).name}: ${(err as Error).message}`);
  }
  return got;
}

const chunk = (i: number, text: string) => `{"id":"c${i}","choices":[{"index":0,"delta":{"content":${JSON.stringify(text)}}}]}`;

test('events cut into pieces anywhere give what the SDK gives: chunks, [DONE], comments, CR and CRLF, errors (seeded)', async () => {
  const seed = runSeed();
  console.log(`# event-stream: seed ${seed} (replay with MEDCHAT_SEED=${seed})`);
  const rnd = seededRandom(seed);
  const int = (lo: number, hi: number) => lo + Math.floor(rnd() * (hi - lo + 1));
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)]!;
  for (let c = 0; c < 300; c++) {
    const eol = pick(['\n', '\r\n', '\r', 'mixed']);
    const nl = () => (eol === 'mixed' ? pick(['\n', '\r\n', '\r']) : eol);
    let text = '';
    for (let e = int(0, 8); e > 0; e--) {
      text += pick([
        () => `data: ${chunk(e, pick(['word ', 'é€😀 ', '\u2028', 'a\nb', '']))}${nl()}${nl()}`,
        () => `data:${chunk(e, 'no space')}${nl()}${nl()}`,
        () => `: keep-alive${nl()}`,
        () => `event: message${nl()}data: ${chunk(e, 'named')}${nl()}${nl()}`,
        () => `data: {"id":"m",${nl()}data: "choices":[]}${nl()}${nl()}`, // one event's data on two lines
        () => `data: {"usage":{"prompt_tokens":1,"completion_tokens":2}}${nl()}${nl()}`,
        () => `id: 7${nl()}retry: 10${nl()}data: ${chunk(e, 'fields')}${nl()}${nl()}`,
        () => `event: thread.run${nl()}data: {"x":1}${nl()}${nl()}`,
        () => `\uFEFFdata: ${chunk(e, 'bom')}${nl()}${nl()}`,
        () => `${nl()}${nl()}`, // blank lines alone dispatch nothing
        () => `data: ${chunk(e, 'last')}`, // no end: dropped when the body ends here
      ])();
      if (rnd() < 0.05) text += pick([`data: [DONE]${nl()}${nl()}`, `data: {"error":{"message":"overloaded"}}${nl()}${nl()}`, `data: {not json${nl()}${nl()}`, `event: error${nl()}data: {"error":{"message":"bad"}}${nl()}${nl()}`, `event: ping${nl()}${nl()}`]);
    }
    const bytes = Buffer.from(text);
    const pieces: Uint8Array[] = [];
    for (let at = 0; at < bytes.length; ) {
      const n = rnd() < 0.3 ? 1 : int(1, 40);
      pieces.push(new Uint8Array(bytes.subarray(at, at + n)));
      at += n;
    }
    const error = rnd() < 0.1 ? Object.assign(new TypeError('terminated'), {}) : undefined;
    const why = `seed ${seed} (replay with MEDCHAT_SEED=${seed}), case ${c}: ${JSON.stringify(text)} in ${pieces.length} pieces${error ? ', then a failure' : ''}`;
    assert.deepEqual(await viaReader(pieces, error), await viaSdk(pieces, error), why);
  }
});

test('a body aborted with an AbortError ends quietly, as through the SDK; any other failure is thrown', async () => {
  const abort = new DOMException('This operation was aborted', 'AbortError');
  const pieces = [Buffer.from(`data: ${chunk(1, 'a')}\n\n`)];
  assert.deepEqual(await viaReader(pieces, abort), await viaSdk(pieces, abort));
  assert.deepEqual(await viaReader(pieces, abort), [JSON.parse(chunk(1, 'a')), 'end']);
});

test('one event arriving in thousands of pieces is read in time linear in its size', async () => {
  const big = `data: ${chunk(1, 'x'.repeat(2_000_000))}\n\n`;
  const bytes = Buffer.from(big);
  const pieces: Uint8Array[] = [];
  for (let at = 0; at < bytes.length; at += 500) pieces.push(bytes.subarray(at, at + 500));
  const t0 = performance.now();
  const got = await viaReader(pieces);
  assert.equal(got.length, 2);
  assert.ok(performance.now() - t0 < 3000, `took ${performance.now() - t0} ms`);
});
