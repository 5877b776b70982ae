// Resources and time: every endless or huge input is refused with peak
// memory under 200 MB, and every command against a server that never answers — directly or
// through a proxy that refuses CONNECT or stays silent — ends within its deadline plus 2 s.
// Memory is read from /proc/<pid>/status (VmRSS every 50 ms, and VmHWM) of the built binary.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { PNG_BYTES } from '../fixtures/images.js';
import { tempHome } from '../support/cli.js';
import {
  sendEndless,
  startHostileServer,
  startRefusingProxy,
  startSilentServer,
  type HostileServer,
  type RefusingProxy,
  type SilentServer,
} from '../support/hostile-server.js';
import { EXIT_CODES, keyLeaks, stderrProblems } from '../support/invariants.js';
import { canWatchMemory, mb, runWatched, type WatchedRun } from '../support/rss.js';

/** The README's exit codes, the image-job ones (5, 6, 7) included. */
const TABLE = [...EXIT_CODES, 5, 6, 7];
const LIMIT_KB = 200 * 1024;
/** A leaking run is stopped here, well before it hurts the machine. */
const KILL_KB = 400 * 1024;

/** A home of its own for each run, removed when the file ends (test/support/temp.ts). */
const home = tempHome;

/** The checks every run here shares: it ended by itself, with a table exit code, one outcome line and no key. */
function assertEndedWell(r: WatchedRun, codes: number[]): void {
  const said = `exit ${r.code}${r.signal ? ` (${r.signal})` : ''} after ${r.elapsedMs} ms, peak ${mb(r.peakRssKb)}; stderr: ${JSON.stringify(r.stderr.slice(-400))}`;
  assert.ok(!r.killed, `medchat had to be killed (${r.killed === 'memory' ? `over ${mb(KILL_KB)}` : 'still running at the time limit'}): ${said}`);
  assert.ok(r.code !== null && TABLE.includes(r.code), `not a README exit code: ${said}`);
  assert.ok(codes.includes(r.code!), `expected exit ${codes.join(' or ')}: ${said}`);
  assert.deepEqual(stderrProblems(r.stderr, r.code!), [], said);
  assert.deepEqual(keyLeaks(r.stdout + r.stderr), [], `the key was printed: ${said}`);
}

describe('peak memory stays under 200 MB on endless or huge input', { skip: !canWatchMemory && 'needs /proc (Linux)', concurrency: 2 }, () => {
  let server: HostileServer;
  const refusedImageRequests: string[] = [];

  before(async () => {
    server = await startHostileServer();
    const sse = 'HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n';
    const json = 'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nconnection: close\r\n\r\n';
    server.route('/endless-line/', (_req, s) => sendEndless(s, sse + 'data: {"id":"x","choices":[{"index":0,"delta":{"content":"', 'a'));
    server.route('/endless-body/', (_req, s) => sendEndless(s, json + '{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"', 'b'));
    server.route('/endless-headers/', (_req, s) => sendEndless(s, 'HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n', 'x-padding: ' + 'p'.repeat(100) + '\r\n'));
    server.route('/endless-task/', (_req, s) => sendEndless(s, json + '{"id":"42","action":"RETEXTURE","status":"IN_PROGRESS","progress":"45%","description":"', 'c'));
    server.route('/refuse-image/', (req, s) => {
      refusedImageRequests.push(req.path);
      s.end('HTTP/1.1 500 Internal Server Error\r\ncontent-length: 0\r\nconnection: close\r\n\r\n');
    });
    server.route('/small-answer/', (_req, s) => {
      const chunk = JSON.stringify({ id: 'x', choices: [{ index: 0, delta: { content: 'ok' }, finish_reason: 'stop' }] });
      s.end(`HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\ndata: ${chunk}\n\ndata: [DONE]\n\n`);
    });
  });
  after(() => server?.close());

  const watch = (args: string[], base: string, extra: { stdin?: Buffer } = {}) =>
    runWatched(args, { baseUrl: server.url + base, home: home(), env: { NO_COLOR: '1' }, timeoutMs: 10_000, killAboveKb: KILL_KB, ...extra });

  const memory = (r: WatchedRun) => {
    assert.ok(r.peakRssKb < LIMIT_KB && (r.hwmKb === 0 || r.hwmKb < LIMIT_KB), `peak RSS ${mb(r.peakRssKb)} (VmHWM ${mb(r.hwmKb)}), limit ${mb(LIMIT_KB)}; exit ${r.code} after ${r.elapsedMs} ms; stderr ${JSON.stringify(r.stderr.slice(-300))}`);
  };

  test('an SSE line that never ends is refused', async () => {
    const r = await watch(['--idle-timeout', '5', '-p', 'q'], '/endless-line');
    memory(r);
    assertEndedWell(r, [1, 4]);
  });

  test('a --no-stream body that never ends is refused', async () => {
    const r = await watch(['--no-stream', '--idle-timeout', '5', '-p', 'q'], '/endless-body');
    memory(r);
    assertEndedWell(r, [1, 4]);
  });

  test('response headers that never end are refused', async () => {
    const r = await watch(['--idle-timeout', '5', '-p', 'q'], '/endless-headers');
    memory(r);
    assertEndedWell(r, [1]);
  });

  test('a 50 MB stdin is refused, and not written into the session', async () => {
    const h = home();
    const r = await runWatched(['-p', 'summarise'], {
      baseUrl: server.url + '/small-answer',
      home: h,
      env: { NO_COLOR: '1' },
      stdin: Buffer.alloc(50 * 1024 * 1024, 'note text '),
      timeoutMs: 10_000,
      killAboveKb: KILL_KB,
    });
    memory(r);
    assertEndedWell(r, [2]);
    const big: string[] = [];
    const walk = (d: string) => {
      for (const n of fs.existsSync(d) ? fs.readdirSync(d) : []) {
        const f = path.join(d, n);
        if (fs.statSync(f).isDirectory()) walk(f);
        else if (fs.statSync(f).size > 1024 * 1024) big.push(`${f} (${fs.statSync(f).size} bytes)`);
      }
    };
    walk(h);
    assert.deepEqual(big, [], 'the refused question was saved');
  });

  test('retexture --image /dev/zero is refused before anything is sent', async () => {
    const r = await watch(['retexture', '--image', '/dev/zero', 'watercolour'], '/refuse-image');
    memory(r);
    assertEndedWell(r, [2]);
    assert.deepEqual(refusedImageRequests, [], 'a request was sent');
  });

  test('a task record that never ends is refused', async () => {
    const r = await watch(['task', '42'], '/endless-task');
    memory(r);
    assertEndedWell(r, [1]);
  });
});

describe('against a server that never answers, every command ends within its deadline + 2 s', { concurrency: 4 }, () => {
  let silent: SilentServer;
  let png: string;

  before(async () => {
    silent = await startSilentServer();
    png = path.join(home(), 'scan.png');
    fs.writeFileSync(png, PNG_BYTES);
  });
  after(() => silent?.close());

  interface Row {
    name: string;
    args: () => string[];
    deadlineMs: number;
    codes: number[];
    via?: 'refusing proxy' | 'closing proxy' | 'silent proxy' | 'tunnel to nowhere';
    /** The service's scheme behind a proxy (https needs CONNECT). */
    scheme?: 'http' | 'https';
  }
  const oneshot = ['--idle-timeout', '2', '-p', 'q'];
  const rows: Row[] = [
    { name: 'one-shot --idle-timeout 2', args: () => oneshot, deadlineMs: 2000, codes: [1, 4] },
    { name: 'one-shot --no-stream --idle-timeout 2', args: () => ['--no-stream', ...oneshot], deadlineMs: 2000, codes: [1, 4] },
    { name: 'retexture --image <png> --timeout 5', args: () => ['retexture', '--image', png, '--timeout', '5', 'watercolour'], deadlineMs: 5000, codes: [1, 7] },
    { name: 'task 42 --wait --timeout 5', args: () => ['task', '42', '--wait', '--timeout', '5'], deadlineMs: 5000, codes: [1, 7] },
    { name: 'one-shot, http:// service behind a proxy that refuses CONNECT', args: () => oneshot, deadlineMs: 2000, codes: [1], via: 'refusing proxy', scheme: 'http' },
    { name: 'one-shot, https:// service behind a proxy that refuses CONNECT', args: () => oneshot, deadlineMs: 2000, codes: [1], via: 'refusing proxy', scheme: 'https' },
    { name: 'one-shot, http:// service behind a proxy that closes CONNECT', args: () => oneshot, deadlineMs: 2000, codes: [1], via: 'closing proxy', scheme: 'http' },
    { name: 'task 42 --wait --timeout 5 behind a proxy that refuses CONNECT', args: () => ['task', '42', '--wait', '--timeout', '5'], deadlineMs: 5000, codes: [1, 7], via: 'refusing proxy', scheme: 'https' },
    { name: 'one-shot, http:// service behind a silent proxy', args: () => oneshot, deadlineMs: 2000, codes: [1], via: 'silent proxy', scheme: 'http' },
    { name: 'one-shot, https:// service behind a silent proxy', args: () => oneshot, deadlineMs: 2000, codes: [1], via: 'silent proxy', scheme: 'https' },
    { name: 'one-shot, https:// service behind a proxy that accepts CONNECT and relays nothing', args: () => oneshot, deadlineMs: 2000, codes: [1], via: 'tunnel to nowhere', scheme: 'https' },
    { name: 'retexture --timeout 5 behind a silent proxy', args: () => ['retexture', '--image', png, '--timeout', '5', 'watercolour'], deadlineMs: 5000, codes: [1, 7], via: 'silent proxy', scheme: 'https' },
  ];

  for (const row of rows) {
    test(row.name, async (t) => {
      // Each row has its own proxy, so what it counts belongs to this row.
      const refusing: RefusingProxy | undefined =
        row.via === 'refusing proxy'
          ? await startRefusingProxy()
          : row.via === 'closing proxy'
            ? await startRefusingProxy({ connect: 'close' })
            : row.via === 'tunnel to nowhere'
              ? await startRefusingProxy({ connect: 'accept' })
              : undefined;
      const proxy: SilentServer | undefined = refusing ?? (row.via === 'silent proxy' ? await startSilentServer() : undefined);
      t.after(() => proxy?.close());
      // Behind a proxy the service has a name only the proxy could resolve: a request that skips the proxy fails at DNS.
      const baseUrl = proxy ? `${row.scheme}://medchat-silent.test:${silent.port}` : silent.url;
      const env: Record<string, string> = { NO_COLOR: '1' };
      if (proxy) Object.assign(env, { HTTPS_PROXY: proxy.url, HTTP_PROXY: proxy.url, https_proxy: proxy.url, http_proxy: proxy.url });
      const r = await runWatched(row.args(), { baseUrl, home: home(), env, timeoutMs: row.deadlineMs + 4000 });
      const connects = refusing ? `; ${refusing.connects} CONNECT(s) to the proxy` : '';
      const said = `exit ${r.code} after ${r.elapsedMs} ms (deadline ${row.deadlineMs} ms + 2 s)${connects}; stderr ${JSON.stringify(r.stderr.slice(-400))}`;
      assert.ok(r.elapsedMs <= row.deadlineMs + 2000 && !r.killed, `did not end in time: ${said}`);
      assertEndedWell(r, row.codes);
      if (proxy) assert.ok(proxy.connections > 0, `the request did not go through the proxy: ${said}`);
      if (refusing) assert.ok(refusing.connects <= 5, `${refusing.connects} CONNECTs to the proxy (bounded retries expected): ${said}`);
    });
  }
});
