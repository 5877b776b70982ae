// The chat wire under hostile conditions:
// proxies that refuse, close, stay silent or want a password; a service that leaves the answer
// open after [DONE]; bodies, events and headers that never end; answers cut off or filtered;
// answers in the other shape; redirect loops. Real sockets on 127.0.0.1, the built binary.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { startServiceDouble, type ServiceDouble } from '../support/misbehaving-service.js';
import { TEST_KEY, runCli, type CliResult } from '../support/cli.js';
import { startProxy, type ProxyMode, type TestProxy } from '../support/proxy.js';

const NO_PROXY_ENV = { HTTPS_PROXY: undefined, HTTP_PROXY: undefined, https_proxy: undefined, http_proxy: undefined, NO_PROXY: undefined, no_proxy: undefined };

let double: ServiceDouble;
const closers: Array<() => Promise<void>> = [];
before(async () => {
  double = await startServiceDouble();
});
after(async () => {
  for (const c of closers) await c();
  await double.close();
});

async function proxyOf(mode: ProxyMode, status?: number): Promise<TestProxy> {
  const p = await startProxy({ mode, status });
  closers.push(p.close);
  return p;
}

/** A small hostile server: `handle` gets each raw socket (after the request arrived). */
async function hostile(handle: (socket: net.Socket) => void): Promise<string> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
    socket.once('data', () => handle(socket));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  closers.push(async () => {
    for (const s of sockets) s.destroy();
    await new Promise<void>((r) => server.close(() => r()));
  });
  return `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
}

/** Write `piece` again and again (minding back-pressure) until the client goes away. */
function endless(socket: net.Socket, head: string, piece: string): void {
  const buf = Buffer.from(piece);
  socket.write(head);
  const pump = () => {
    while (!socket.destroyed && socket.write(buf));
    if (!socket.destroyed) socket.once('drain', pump);
  };
  pump();
}

/** Run medchat, sampling its peak resident memory (VmHWM, in MB) from /proc while it runs. */
async function runMeasured(args: string[], env: Record<string, string | undefined>, timeoutMs: number): Promise<CliResult & { peakMb: number; ms: number }> {
  let peakKb = 0;
  let timer: NodeJS.Timeout | undefined;
  const start = Date.now();
  const r = await runCli(args, {
    env,
    timeoutMs,
    onSpawn: (child) => {
      timer = setInterval(() => {
        try {
          const m = /VmHWM:\s+(\d+)/.exec(fs.readFileSync(`/proc/${child.pid}/status`, 'utf8'));
          if (m) peakKb = Math.max(peakKb, Number(m[1]));
        } catch {
          /* gone */
        }
      }, 25);
    },
  }).finally(() => clearInterval(timer));
  return { ...r, peakMb: peakKb / 1024, ms: Date.now() - start };
}

const oneLine = (r: CliResult) => {
  const lines = r.stderr.split('\n').filter(Boolean);
  assert.equal(lines.length, 1, `one line on stderr, got:\n${r.stderr}`);
  assert.match(lines[0]!, /^medchat: [^\n]+; [^\n]+$/);
  assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
  return lines[0]!;
};

const sse = (obj: unknown) => `data: ${JSON.stringify(obj)}\n\n`;
const delta = (content: unknown, finish: string | null = null, index = 0) => ({ id: 'c1', model: 'm', choices: [{ index, delta: { content }, finish_reason: finish }] });
const usage = { id: 'c1', model: 'm', choices: [], usage: { prompt_tokens: 5, completion_tokens: 7, total_tokens: 12 } };

describe('a forward proxy that refuses, closes, stays silent or wants a password (https service: CONNECT)', { concurrency: 1 }, () => {
  const https = () => double.url.replace('http:', 'https:');
  for (const [mode, status, expected] of [
    ['refuse-connect', 403, /^medchat: the proxy 127\.0\.0\.1:\d+ refused to tunnel to 127\.0\.0\.1:\d+ \(CONNECT, 403\); ask its operator to allow this port, or set NO_PROXY/],
    ['refuse-connect', 405, /^medchat: the proxy 127\.0\.0\.1:\d+ refused to tunnel to 127\.0\.0\.1:\d+ \(CONNECT, 405\)/],
    ['close-on-connect', undefined, /^medchat: the proxy 127\.0\.0\.1:\d+ closed the connection when asked to tunnel to 127\.0\.0\.1:\d+ \(CONNECT\)/],
    ['auth', undefined, /^medchat: the proxy 127\.0\.0\.1:\d+ wants a user name and password \(407\); put them in HTTPS_PROXY, e\.g\. HTTPS_PROXY=http:\/\/user:password@127\.0\.0\.1:\d+$/],
  ] as const) {
    test(`${mode}${status ? ` ${status}` : ''}: one CONNECT, one line, exit 1, at once (no reconnect loop)`, async () => {
      const proxy = await proxyOf(mode, status);
      const r = await runMeasured(['q'], { ...NO_PROXY_ENV, MEDCHAT_BASE_URL: https(), MEDCHAT_API_KEY: TEST_KEY, HTTPS_PROXY: proxy.url, MEDCHAT_RETRIES: '2' }, 15_000);
      assert.equal(r.code, 1, r.stderr);
      assert.match(oneLine(r), expected);
      assert.ok(proxy.seen.filter((s) => s.method === 'CONNECT').length <= 3, `CONNECTs: ${proxy.seen.length} (at most retries + 1)`);
      assert.ok(proxy.connections() <= 3, `connections: ${proxy.connections()}`);
      assert.ok(r.ms < 5000, `took ${r.ms} ms`);
    });
  }

  test('a silent proxy: the request ends at its deadline (--idle-timeout) with one line', async () => {
    const proxy = await proxyOf('silent');
    const r = await runMeasured(['q', '--idle-timeout', '2'], { ...NO_PROXY_ENV, MEDCHAT_BASE_URL: https(), MEDCHAT_API_KEY: TEST_KEY, HTTPS_PROXY: proxy.url }, 15_000);
    assert.equal(r.code, 1, r.stderr);
    assert.match(oneLine(r), /^medchat: no response from the service within 2s; try again, or raise --idle-timeout$/);
    assert.ok(r.ms < 2000 + 2500, `took ${r.ms} ms`);
    assert.equal(proxy.connections(), 1);
  });

  test('SIGTERM while the proxy stays silent: exit 143 within 2 s', async () => {
    const proxy = await proxyOf('silent');
    let sentAt = 0;
    const r = await runCli(['q'], {
      env: { ...NO_PROXY_ENV, MEDCHAT_BASE_URL: https(), MEDCHAT_API_KEY: TEST_KEY, HTTPS_PROXY: proxy.url },
      timeoutMs: 15_000,
      onSpawn: (child) =>
        void setTimeout(() => {
          sentAt = Date.now();
          child.kill('SIGTERM');
        }, 700),
    });
    assert.equal(r.code, 143, r.stderr);
    assert.ok(Date.now() - sentAt < 2000, `exited ${Date.now() - sentAt} ms after SIGTERM`);
    assert.equal(proxy.connections(), 1);
  });
});

describe('an http:// service behind HTTP_PROXY: the plain forward form, as curl does', { concurrency: 1 }, () => {
  test('a proxy that refuses CONNECT still carries it: absolute-URI request, no CONNECT', async () => {
    const proxy = await proxyOf('refuse-connect');
    double.chat.enqueue({ reasoning: [], content: ['forwarded'] });
    const r = await runCli(['q'], { env: { ...NO_PROXY_ENV, MEDCHAT_BASE_URL: double.url, MEDCHAT_API_KEY: TEST_KEY, HTTP_PROXY: proxy.url } });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'forwarded');
    assert.deepEqual(proxy.seen.map((s) => [s.method, s.target]), [['POST', `${double.url}/v1/chat/completions`]]);
  });

  test('credentials in the proxy URL go as Proxy-Authorization, never to the service', async () => {
    const proxy = await proxyOf('forward');
    const r = await runCli(['q'], { env: { ...NO_PROXY_ENV, MEDCHAT_BASE_URL: double.url, MEDCHAT_API_KEY: TEST_KEY, HTTP_PROXY: proxy.url.replace('http://', 'http://alice:s%40cret@') } });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(proxy.seen[0]!.proxyAuthorization, `Basic ${Buffer.from('alice:s@cret').toString('base64')}`);
    assert.equal(double.chat.requests.at(-1)!.headers['proxy-authorization'], undefined);
  });

  test('a 407 from the proxy says it wants credentials in HTTP_PROXY (not "the service rejected")', async () => {
    const proxy = await proxyOf('auth');
    const r = await runCli(['q'], { env: { ...NO_PROXY_ENV, MEDCHAT_BASE_URL: double.url, MEDCHAT_API_KEY: TEST_KEY, HTTP_PROXY: proxy.url, MEDCHAT_RETRIES: '2' } });
    assert.equal(r.code, 1);
    assert.match(oneLine(r), /^medchat: the proxy 127\.0\.0\.1:\d+ wants a user name and password \(407\); put them in HTTP_PROXY, e\.g\. HTTP_PROXY=http:\/\/user:password@/);
    assert.equal(proxy.seen.length, 1, 'not retried');
  });
});

describe('the answer ends at [DONE] (or a finish reason with usage) even if the service leaves it open', { concurrency: 1 }, () => {
  for (const [name, parts] of [
    ['[DONE]', [sse(delta('All of it.')), sse(delta('', 'stop')), sse(usage), 'data: [DONE]\n\n']],
    ['finish reason then usage, no [DONE]', [sse(delta('All of it.')), sse(delta('', 'stop')), sse(usage)]],
  ] as const) {
    test(`${name}, then silence: exit 0 at once, not at the idle timeout`, async () => {
      double.chat.enqueue({ raw: { parts: [...parts], end: 'stall' } });
      const r = await runMeasured(['q', '--idle-timeout', '20'], { ...NO_PROXY_ENV, MEDCHAT_BASE_URL: double.url, MEDCHAT_API_KEY: TEST_KEY }, 15_000);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, 'All of it.');
      assert.ok(r.ms < 5000, `took ${r.ms} ms`);
    });
  }
});

describe('endless or huge input from the service: bounded memory, one line, exit 1', { concurrency: 1 }, () => {
  const tooMuch = /^medchat: the service sent too much \(/;
  test('a --no-stream body that never ends stops at 16 MB; peak RSS under 200 MB', async () => {
    const url = await hostile((s) => endless(s, 'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n{"choices":[{"message":{"content":"', 'x'.repeat(65536)));
    const r = await runMeasured(['q', '--no-stream'], { ...NO_PROXY_ENV, MEDCHAT_BASE_URL: url, MEDCHAT_API_KEY: TEST_KEY }, 30_000);
    assert.equal(r.code, 1, r.stderr);
    assert.match(oneLine(r), tooMuch);
    assert.match(r.stderr, /16 MB/);
    assert.ok(r.peakMb > 0 && r.peakMb < 200, `peak RSS ${r.peakMb.toFixed(0)} MB`);
  });

  test('one SSE line that never ends stops at 16 MB; peak RSS under 200 MB', async () => {
    const url = await hostile((s) => endless(s, 'HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\ndata: {"choices":[{"delta":{"content":"', 'y'.repeat(65536)));
    const r = await runMeasured(['q'], { ...NO_PROXY_ENV, MEDCHAT_BASE_URL: url, MEDCHAT_API_KEY: TEST_KEY }, 30_000);
    assert.equal(r.code, 1, r.stderr);
    assert.match(oneLine(r), tooMuch);
    assert.match(r.stderr, /one event of over 16 MB without an end/);
    assert.ok(r.peakMb > 0 && r.peakMb < 200, `peak RSS ${r.peakMb.toFixed(0)} MB`);
  });

  test('headers that never end: a clear line about oversized headers', async () => {
    const url = await hostile((s) => endless(s, 'HTTP/1.1 200 OK\r\n', `X-Padding: ${'z'.repeat(1000)}\r\n`));
    const r = await runMeasured(['q'], { ...NO_PROXY_ENV, MEDCHAT_BASE_URL: url, MEDCHAT_API_KEY: TEST_KEY }, 30_000);
    assert.equal(r.code, 1, r.stderr);
    assert.match(oneLine(r), /^medchat: 127\.0\.0\.1:\d+ sent response headers larger than 16 KB \(the limit\); /);
    assert.ok(r.peakMb < 200, `peak RSS ${r.peakMb.toFixed(0)} MB`);
  });
});

describe('an answer the service ends early: said on stderr, exit 8, what arrived is kept', { concurrency: 1 }, () => {
  const env = () => ({ ...NO_PROXY_ENV, MEDCHAT_BASE_URL: double.url, MEDCHAT_API_KEY: TEST_KEY });
  test('finish_reason length: the text on stdout, the cut named on stderr', async () => {
    double.chat.enqueue({ reasoning: [], content: ['Penicillin allergy: ana'], finishReason: 'length' });
    const r = await runCli(['q', '--max-tokens', '8192'], { env: env() });
    assert.equal(r.code, 8, r.stderr);
    assert.equal(r.stdout, 'Penicillin allergy: ana');
    assert.equal(oneLine(r), 'medchat: the answer was cut off at --max-tokens 8192 (finish_reason length); raise --max-tokens or ask for less');
  });

  test('--no-stream and --json: finish_reason and the error are in the JSON', async () => {
    double.chat.enqueue({ reasoning: [], content: ['cut'], finishReason: 'length' });
    const r = await runCli(['q', '--no-stream', '--json'], { env: env() });
    assert.equal(r.code, 8, r.stderr);
    const obj = JSON.parse(r.stdout);
    assert.equal(obj.content, 'cut');
    assert.equal(obj.finish_reason, 'length');
    assert.equal(obj.complete, false);
    assert.equal(obj.error.exit_code, 8);
  });

  test('content_filter, and reasoning with no answer, each say so', async () => {
    double.chat.enqueue({ reasoning: [], content: ['Part'], finishReason: 'content_filter' });
    const filtered = await runCli(['q'], { env: env() });
    assert.equal(filtered.code, 8);
    assert.equal(filtered.stdout, 'Part');
    assert.match(oneLine(filtered), /content filter \(finish_reason content_filter\)/);
    double.chat.enqueue({ reasoning: ['thinking only'], content: [] });
    const thought = await runCli(['q'], { env: env() });
    assert.equal(thought.code, 8);
    assert.equal(thought.stdout, '');
    assert.match(thought.stderr, /^thinking only/);
    assert.match(thought.stderr, /\nmedchat: the service ended with reasoning but no answer text \(finish_reason stop\); /);
  });
});

describe('misleading messages made plain', { concurrency: 1 }, () => {
  test('a redirect loop: says the service redirected too many times and names the host', async () => {
    const server = http.createServer((req, res) => res.writeHead(307, { location: req.url }).end());
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    closers.push(() => new Promise<void>((r) => server.close(() => r())));
    const url = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
    const r = await runCli(['q'], { env: { ...NO_PROXY_ENV, MEDCHAT_BASE_URL: url, MEDCHAT_API_KEY: TEST_KEY } });
    assert.equal(r.code, 1);
    assert.match(oneLine(r), /^medchat: the service redirected too many times \(a redirect loop at 127\.0\.0\.1:\d+\); check the address with: medchat config get base-url$/);
  });

  test('404 model_not_found names the model and -m / config set model (exit 2)', async () => {
    double.chat.enqueue({ status: 404, body: JSON.stringify({ error: { message: 'The model `medical-nope` does not exist', type: 'invalid_request_error', code: 'model_not_found' } }) });
    const r = await runCli(['q', '-m', 'medical-nope'], { env: { ...NO_PROXY_ENV, MEDCHAT_BASE_URL: double.url, MEDCHAT_API_KEY: TEST_KEY } });
    assert.equal(r.code, 2);
    assert.match(oneLine(r), /^medchat: the service does not know the model "medical-nope" \(404\): .*; pick another with -m <model>, or for good with: medchat config set model <model>$/);
  });
});
