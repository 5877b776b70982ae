// The node:http fetch the SDK streams through (src/core/net/http-transport.ts) and the wire monitor
// fed from it, against a real HTTP server on 127.0.0.1.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { gzipSync } from 'node:zlib';
import { httpFetch } from '../../src/core/net/http-transport.js';
import { causeCode } from '../../src/core/net/network-errors.js';
import { WireMonitor } from '../../src/core/chat/wire-monitor.js';

type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void | Promise<void>;

let server: http.Server;
let base = '';
const handlers = new Map<string, Handler>();
/** Resolves when the server side of the request to `path` has seen its connection close. */
const closed = new Map<string, Promise<void>>();
const sockets = new Set<Socket>();

before(async () => {
  server = http.createServer((req, res) => {
    const path = req.url!;
    closed.set(path, new Promise((r) => res.on('close', () => r())));
    void handlers.get(path)?.(req, res);
  });
  server.on('connection', (s) => {
    s.setNoDelay(true);
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(async () => {
  for (const s of sockets) s.destroy();
  await new Promise<void>((r) => server.close(() => r()));
});

let n = 0;
/** A fresh path served by `handler`. */
function serve(handler: Handler): string {
  const path = `/t${++n}`;
  handlers.set(path, handler);
  return `${base}${path}`;
}

const text = (chunks: Uint8Array[]) => Buffer.concat(chunks).toString('utf8');

/** Reads a body to its end into `into`. */
async function drain(body: ReadableStream<Uint8Array>, into: Uint8Array[]): Promise<void> {
  const reader = body.getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    into.push(value);
  }
}

async function closedPort(): Promise<number> {
  const s = http.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

describe('httpFetch', () => {
  test('a streamed body arrives chunk by chunk, each before the server writes the next', async () => {
    let ack: (() => void) | undefined;
    const url = serve(async (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for (let i = 0; i < 5; i++) {
        const read = new Promise<void>((r) => (ack = r));
        res.write(`data: ${i}\n\n`);
        await read; // the client has it: the transport does not hold chunks back
      }
      res.end();
    });
    const response = await httpFetch(url, { method: 'GET' });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'text/event-stream');
    const reader = response.body!.getReader();
    const seen: string[] = [];
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      seen.push(Buffer.from(value).toString());
      assert.ok(value instanceof Uint8Array);
      ack?.();
    }
    assert.deepEqual(seen, [0, 1, 2, 3, 4].map((i) => `data: ${i}\n\n`));
  });

  test('request headers from Headers, an object or pairs; a string body with its length; status, statusText and joined response headers', async () => {
    const got: http.IncomingHttpHeaders[] = [];
    const bodies: string[] = [];
    const url = serve(async (req, res) => {
      got.push(req.headers);
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      bodies.push(Buffer.concat(chunks).toString());
      res.writeHead(201, 'Made It', [['X-Multi', 'a'], ['X-Multi', 'b'], ['Content-Type', 'application/json']]);
      res.end('{"ok":true}');
    });
    const inits: RequestInit[] = [
      { method: 'POST', headers: new Headers({ Authorization: 'Bearer k', 'Content-Type': 'application/json' }), body: '{"q":"é"}' },
      { method: 'post', headers: { Authorization: 'Bearer k', 'Content-Type': 'application/json' }, body: new TextEncoder().encode('{"q":"é"}') },
      { method: 'POST', headers: [['Authorization', 'Bearer k'], ['Content-Type', 'application/json']], body: '{"q":"é"}' },
    ];
    for (const init of inits) {
      const r = await httpFetch(url, init);
      assert.equal(r.status, 201);
      assert.equal(r.statusText, 'Made It');
      assert.equal(r.headers.get('x-multi'), 'a, b');
      assert.deepEqual(await r.json(), { ok: true });
    }
    for (const h of got) {
      assert.equal(h.authorization, 'Bearer k');
      assert.equal(h['content-type'], 'application/json');
      assert.equal(h['content-length'], String(Buffer.byteLength('{"q":"é"}')));
      assert.equal(h['accept-encoding'], undefined, 'no compression is asked for');
    }
    assert.deepEqual(bodies, ['{"q":"é"}', '{"q":"é"}', '{"q":"é"}']);
  });

  test('a body compressed without being asked is decoded, as fetch does; a redirect is followed by fetch', async () => {
    const url = serve((_req, res) => {
      res.writeHead(200, { 'content-encoding': 'gzip' });
      res.end(gzipSync('data: squeezed\n\n'));
    });
    assert.equal(await (await httpFetch(url)).text(), 'data: squeezed\n\n');
    const target = serve((req, res) => void res.end(`moved ${req.method}`));
    const from = serve((_req, res) => {
      res.writeHead(307, { location: target });
      res.end();
    });
    const r = await httpFetch(from, { method: 'POST', body: '{}' });
    assert.equal(r.status, 200);
    assert.equal(await r.text(), 'moved POST');
  });

  test('keep-alive: a second request reuses the connection', async () => {
    const ports: number[] = [];
    const url = serve((req, res) => {
      ports.push(req.socket.remotePort!);
      res.end('x');
    });
    await (await httpFetch(url)).text();
    await (await httpFetch(url)).text();
    assert.equal(ports.length, 2);
    assert.equal(ports[0], ports[1]);
  });

  test('back-pressure: a slow reader pauses the socket (the server has to wait) and loses no bytes', async () => {
    const total = 64 * 1024 * 1024; // beyond what the kernel's socket buffers can hold (tcp_rmem may allow 32 MB)
    const piece = 16 * 1024;
    let written = 0;
    const url = serve(async (_req, res) => {
      res.writeHead(200);
      for (let off = 0; off < total; off += piece) {
        const buf = Buffer.alloc(piece);
        for (let i = 0; i < piece; i += 4) buf.writeUInt32LE((off + i) >>> 0, i);
        if (!res.write(buf)) await new Promise((r) => res.once('drain', r));
        written = off + piece;
      }
      res.end();
    });
    const response = await httpFetch(url);
    const reader = response.body!.getReader();
    await sleep(300); // nobody reads: the stream's queue fills, the socket is paused, the server waits
    const held = written;
    await sleep(200);
    assert.ok(written === held && written < total, `the server is held back (it wrote ${held}, then ${written}, of ${total} bytes)`);
    let received = 0;
    let carry = Buffer.alloc(0);
    let slow = 0;
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      if (slow++ < 20) await sleep(5);
      let bytes = Buffer.concat([carry, Buffer.from(value)]);
      const whole = bytes.length - (bytes.length % 4);
      for (let i = 0; i < whole; i += 4) assert.equal(bytes.readUInt32LE(i), (received + i) >>> 0);
      received += whole;
      carry = Buffer.from(bytes.subarray(whole));
      bytes = carry;
    }
    assert.equal(received + carry.length, total);
  });

  test('a reader behind the socket gets what arrived meanwhile in one piece, every byte in order', async () => {
    const events = Array.from({ length: 200 }, (_, i) => `data: {"n":${i}}\n\n`);
    let allWritten: () => void;
    const written = new Promise<void>((r) => (allWritten = r));
    const url = serve(async (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for (const e of events) {
        res.write(e);
        await sleep(0); // each its own write (and, mostly, its own chunk on the socket)
      }
      res.end();
      allWritten();
    });
    const response = await httpFetch(url);
    const reader = response.body!.getReader();
    await written; // the reader is busy: everything arrives meanwhile
    await sleep(100);
    const pieces: string[] = [];
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      pieces.push(Buffer.from(value).toString());
    }
    assert.equal(pieces.join(''), events.join(''));
    assert.ok(pieces.length <= 3, `${pieces.length} reads for ${events.length} events written one by one`);
  });

  test('abort mid-body: the read rejects with an AbortError and the connection is closed', async () => {
    const url = serve((_req, res) => {
      res.writeHead(200);
      res.write('data: first\n\n'); // and nothing more
    });
    const ac = new AbortController();
    const response = await httpFetch(url, { signal: ac.signal });
    const reader = response.body!.getReader();
    assert.equal(Buffer.from((await reader.read()).value!).toString(), 'data: first\n\n');
    const pending = reader.read();
    ac.abort();
    await assert.rejects(pending, (err: Error) => err instanceof DOMException && err.name === 'AbortError');
    await closed.get(new URL(url).pathname);
  });

  test('abort before the headers rejects with an AbortError; an aborted signal sends nothing', async () => {
    const url = serve(() => {}); // never answers
    const ac = new AbortController();
    const pending = httpFetch(url, { signal: ac.signal });
    await sleep(50);
    ac.abort();
    await assert.rejects(pending, { name: 'AbortError' });
    await closed.get(new URL(url).pathname);

    const before = n;
    const url2 = serve(() => assert.fail('no request may arrive'));
    await assert.rejects(httpFetch(url2, { signal: AbortSignal.abort() }), { name: 'AbortError' });
    assert.equal(closed.has(new URL(url2).pathname), false);
    assert.equal(n, before + 1);
  });

  test("cancel() on the body closes the connection", async () => {
    const url = serve((_req, res) => {
      res.writeHead(200);
      res.write('x');
    });
    const response = await httpFetch(url);
    const reader = response.body!.getReader();
    await reader.read();
    await reader.cancel();
    await closed.get(new URL(url).pathname);
  });

  test('connection refused rejects like fetch: TypeError("fetch failed") with the code in its cause', async () => {
    const port = await closedPort();
    const err = await httpFetch(`http://127.0.0.1:${port}/v1/x`, { method: 'POST', body: '{}' }).then(
      () => assert.fail('resolved'),
      (e: unknown) => e,
    );
    assert.ok(err instanceof TypeError);
    assert.equal(err.message, 'fetch failed');
    assert.equal(causeCode(err), 'ECONNREFUSED');
  });

  test('a connection reset mid-body errors the body: TypeError("terminated"), ECONNRESET in its cause', async () => {
    const url = serve(async (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: a\n\n');
      await sleep(30);
      (res.socket as Socket & { resetAndDestroy?: () => void }).resetAndDestroy?.() ?? res.socket!.destroy();
    });
    const response = await httpFetch(url);
    const chunks: Uint8Array[] = [];
    const err = await drain(response.body!, chunks).then(
      () => assert.fail('the body ended cleanly'),
      (e: unknown) => e,
    );
    assert.equal(text(chunks), 'data: a\n\n');
    assert.ok(err instanceof TypeError);
    assert.equal(err.message, 'terminated');
    assert.equal(causeCode(err), 'ECONNRESET');
  });
});

describe('WireMonitor on httpFetch', () => {
  const frame = `data: ${JSON.stringify({ choices: [{ delta: { content: 'data: [DONE] is only text here' } }] })}\n\n`;

  async function monitorOf(parts: string[], gapMs = 15): Promise<WireMonitor> {
    const url = serve(async (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for (const p of parts) {
        res.write(p);
        await sleep(gapMs);
      }
      res.end();
    });
    const monitor = new WireMonitor(5000, () => {}, httpFetch);
    const response = await monitor.fetch(url);
    const chunks: Uint8Array[] = [];
    await drain(response.body!, chunks);
    // Everything arrives, except what follows `[DONE]`: the body ends there (the service may leave it open).
    if (monitor.sawDone) assert.ok(parts.join('').startsWith(text(chunks)) && /\[DONE\]\n*$/.test(text(chunks)), text(chunks));
    else assert.equal(text(chunks), parts.join(''));
    return monitor;
  }

  test('[DONE] split across chunks is seen, and the bytes are counted', async () => {
    const parts = [frame, 'da', 'ta: [DO', 'NE]', '\n\n'];
    const m = await monitorOf(parts);
    assert.equal(m.sawDone, true);
    assert.equal(m.bytesReceived, Buffer.byteLength(parts.slice(0, -1).join('')), 'read up to [DONE], not after');
  });

  test('[DONE] right after a chunk that ends a line, and without the space', async () => {
    assert.equal((await monitorOf([frame, 'data:[DONE]\n\n'])).sawDone, true);
    assert.equal((await monitorOf(['data: [DONE]\n\n'])).sawDone, true, 'at the very start of the body');
  });

  test('[DONE] that is not at a line start does not count', async () => {
    assert.equal((await monitorOf([frame, ': data: [DONE]\n\n'])).sawDone, false);
    assert.equal((await monitorOf([frame.slice(0, 40), frame.slice(40)])).sawDone, false);
  });

  test('[DONE] is found at every split point, one byte or one chunk at a time', () => {
    const wire = Buffer.from(`${frame}data: [DONE]\n\n`);
    for (let cut = 1; cut < wire.length; cut++) {
      const m = new WireMonitor(5000, () => {}, httpFetch);
      m.data(wire.subarray(0, cut));
      m.data(wire.subarray(cut));
      assert.equal(m.sawDone, true, `cut at ${cut}`);
      m.stop();
    }
    for (let size = 1; size <= 14; size++) {
      const m = new WireMonitor(5000, () => {}, httpFetch);
      for (let i = 0; i < wire.length; i += size) m.data(wire.subarray(i, i + size));
      assert.equal(m.sawDone, true, `${size}-byte chunks`);
      m.stop();
    }
    const near = Buffer.from(`${frame}data: [DONX]\n\nxdata: [DONE]\n\n`);
    const m = new WireMonitor(5000, () => {}, httpFetch);
    for (let i = 0; i < near.length; i++) m.data(near.subarray(i, i + 1));
    assert.equal(m.sawDone, false, 'a near miss, then [DONE] mid-line');
  });

  test('[DONE] split any way agrees with a scan of the whole body (random bodies and cuts)', () => {
    const pieces = ['data: {"a":1}\n\n', '\n', 'data: [DONE]', 'data:[DONE]', 'data: [DON', 'x', ': ping\n', 'data: [DONE', ']', 'data', ' [DONE]', '\r\n'];
    let seed = 7;
    const rand = (k: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % k);
    for (let round = 0; round < 3000; round++) {
      let body = '';
      for (let p = rand(8) + 1; p > 0; p--) body += pieces[rand(pieces.length)];
      const expected = /(^|\n)data: ?\[DONE\]/.test(body);
      const wire = Buffer.from(body);
      const m = new WireMonitor(5000, () => {}, httpFetch);
      for (let i = 0; i < wire.length; ) {
        const size = rand(6) + 1;
        m.data(wire.subarray(i, i + size));
        i += size;
      }
      m.stop();
      assert.equal(m.sawDone, expected, JSON.stringify(body));
    }
  });

  test('the idle timer fires when the body stalls, and not after it ends', async () => {
    const url = serve((_req, res) => {
      res.writeHead(200);
      res.write('data: a\n\n'); // then silence
    });
    const ac = new AbortController();
    let idle = 0;
    const monitor = new WireMonitor(150, () => (idle++, ac.abort()), httpFetch);
    const response = await monitor.fetch(url, { signal: ac.signal });
    const reader = response.body!.getReader();
    await reader.read();
    await assert.rejects(reader.read(), { name: 'AbortError' });
    assert.equal(monitor.idleExpired, true);
    assert.equal(idle, 1);

    const done = await monitorOf(['data: [DONE]\n\n']);
    await sleep(50);
    assert.equal(done.idleExpired, false);
  });
});

test('an event stream line that arrives in many pieces reaches the reader whole, once its line break has come', async () => {
  // The SDK's line decoder joins its buffer with every chunk: a 4 MB line in 64 KB pieces would cost
  // it 64 joins of a growing buffer (a 16 MB one, before the cap, took seconds); it gets one piece.
  const piece = 'a'.repeat(64 * 1024);
  const url = serve(async (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write('data: {"x":"');
    for (let i = 0; i < 64; i++) {
      res.write(piece);
      await sleep(1);
    }
    res.write('"}\n\ndata: [DONE]\n\n');
    res.end();
  });
  const response = await httpFetch(url);
  const reader = response.body!.getReader();
  const chunks: Uint8Array[] = [];
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    chunks.push(value);
  }
  const body = text(chunks);
  assert.equal(body, `data: {"x":"${piece.repeat(64)}"}\n\ndata: [DONE]\n\n`, 'every byte, in order');
  const withLine = chunks.findIndex((c) => Buffer.from(c).includes('"}\n'));
  assert.ok(chunks[withLine]!.length > 64 * piece.length, `the line came as one piece (${chunks.map((c) => c.length).join(', ')})`);
});
