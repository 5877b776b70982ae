// Hospital networks: an HTTP proxy (HTTPS_PROXY, HTTP_PROXY, NO_PROXY) and a private certificate
// authority (NODE_EXTRA_CA_CERTS). Everything runs on 127.0.0.1: a proxy written in Node, a TLS
// front with test certificates made by openssl, and the service double behind them.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startServiceDouble, type ServiceDouble } from '../../src/stand-in/index.js';
import { TEST_KEY, runCli, tempHome } from '../support/cli.js';
import { startProxy, type TestProxy } from '../support/proxy.js';
import { makeTestCerts, opensslAvailable, startTlsFront } from '../support/tls.js';

const noOpenssl = opensslAvailable() ? false : 'openssl is not installed (apt-get install openssl): TLS cases skipped';

let double: ServiceDouble;
let proxy: TestProxy;
let tlsUrl = '';
let selfSignedUrl = '';
const closers: Array<() => Promise<void>> = [];

before(async () => {
  double = await startServiceDouble();
  proxy = await startProxy();
  if (!noOpenssl) {
    const certs = makeTestCerts();
    const front = await startTlsFront(double.server.port, certs.server);
    const self = await startTlsFront(double.server.port, certs.selfSigned);
    tlsUrl = front.url;
    selfSignedUrl = self.url;
    closers.push(front.close, self.close);
  }
});
after(async () => {
  for (const c of closers) await c();
  await proxy.close();
  await double.close();
});

/** The proxy variables are cleared unless a test sets them (the developer's own must not leak in). */
const NO_PROXY_ENV = { HTTPS_PROXY: undefined, HTTP_PROXY: undefined, https_proxy: undefined, http_proxy: undefined, NO_PROXY: undefined, no_proxy: undefined, NODE_EXTRA_CA_CERTS: undefined };

const port = (url: string) => new URL(url).port;
const through = (target: string) => proxy.seen.filter((s) => s.target.includes(`127.0.0.1:${target}`));

describe('chat', { concurrency: 1 }, () => {
  test('HTTPS_PROXY carries chat to an https service signed by a private CA (NODE_EXTRA_CA_CERTS)', { skip: noOpenssl }, async () => {
    const before = through(port(tlsUrl)).length;
    double.chat.enqueue({ reasoning: [], content: ['via the proxy'] });
    const r = await runCli(['q'], {
      env: { ...NO_PROXY_ENV, MEDCHAT_BASE_URL: tlsUrl, MEDCHAT_API_KEY: TEST_KEY, HTTPS_PROXY: proxy.url, NODE_EXTRA_CA_CERTS: makeTestCerts().caFile },
    });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'via the proxy');
    const seen = through(port(tlsUrl)).slice(before);
    assert.deepEqual(seen.map((s) => s.method), ['CONNECT'], 'one tunnel through the proxy');
    assert.equal(double.chat.requests.at(-1)!.headers.authorization, `Bearer ${TEST_KEY}`);
  });

  test('HTTP_PROXY carries chat to an http service known only to the proxy; the key stays out of the proxy line', async () => {
    const before = proxy.seen.length;
    double.chat.enqueue({ reasoning: [], content: ['via the proxy'] });
    const intranet = `http://medchat-service.test:${port(double.url)}`;
    const r = await runCli(['q'], { env: { ...NO_PROXY_ENV, MEDCHAT_BASE_URL: intranet, MEDCHAT_API_KEY: TEST_KEY, HTTP_PROXY: proxy.url } });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'via the proxy');
    const seen = proxy.seen.slice(before).filter((s) => s.target.includes(`medchat-service.test:${port(double.url)}`));
    assert.equal(seen.length, 1, 'the request went through the proxy');
    assert.ok(!seen[0]!.target.includes(TEST_KEY));
  });

  test('lower-case https_proxy works too', { skip: noOpenssl }, async () => {
    const before = through(port(tlsUrl)).length;
    const r = await runCli(['q'], {
      env: { ...NO_PROXY_ENV, MEDCHAT_BASE_URL: tlsUrl, MEDCHAT_API_KEY: TEST_KEY, https_proxy: proxy.url, NODE_EXTRA_CA_CERTS: makeTestCerts().caFile },
    });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(through(port(tlsUrl)).length, before + 1);
  });

  test('NO_PROXY lists the service: the proxy is bypassed', async () => {
    const before = proxy.seen.length;
    for (const noProxy of ['127.0.0.1', `localhost,127.0.0.1:${port(double.url)}`]) {
      const r = await runCli(['q'], { env: { ...NO_PROXY_ENV, MEDCHAT_BASE_URL: double.url, MEDCHAT_API_KEY: TEST_KEY, HTTP_PROXY: proxy.url, NO_PROXY: noProxy } });
      assert.equal(r.code, 0, r.stderr);
    }
    assert.equal(proxy.seen.length, before, 'nothing went through the proxy');
  });

  test('a proxy that is down: one line naming the proxy, exit 1', async () => {
    const s = net.createServer();
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
    const dead = `http://127.0.0.1:${(s.address() as net.AddressInfo).port}`;
    await new Promise<void>((r) => s.close(() => r()));
    const r = await runCli(['q'], { env: { ...NO_PROXY_ENV, MEDCHAT_BASE_URL: double.url, MEDCHAT_API_KEY: TEST_KEY, HTTP_PROXY: dead } });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^medchat: cannot connect to the proxy 127\.0\.0\.1:\d+ \(connection refused\); check HTTPS_PROXY \/ HTTP_PROXY \(NO_PROXY lists hosts that bypass it\)\n$/);
  });

  test('a proxy that cannot reach the service: one line naming both, exit 1', async () => {
    const s = net.createServer();
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
    const gone = `http://127.0.0.1:${(s.address() as net.AddressInfo).port}`;
    await new Promise<void>((r) => s.close(() => r()));
    const r = await runCli(['q'], { env: { ...NO_PROXY_ENV, MEDCHAT_BASE_URL: gone, MEDCHAT_API_KEY: TEST_KEY, HTTP_PROXY: proxy.url } });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^medchat: the proxy 127\.0\.0\.1:\d+ could not reach 127\.0\.0\.1:\d+ \(502\); check the address, or NO_PROXY if the service is inside your network\n$/);
  });

  test('NODE_EXTRA_CA_CERTS: a private CA is trusted; without it, one line and exit 1', { skip: noOpenssl }, async () => {
    double.chat.enqueue({ reasoning: [], content: ['trusted'] });
    const ok = await runCli(['q'], { env: { ...NO_PROXY_ENV, MEDCHAT_BASE_URL: tlsUrl, MEDCHAT_API_KEY: TEST_KEY, NODE_EXTRA_CA_CERTS: makeTestCerts().caFile } });
    assert.equal(ok.code, 0, ok.stderr);
    assert.equal(ok.stdout, 'trusted');
    const bad = await runCli(['q'], { env: { ...NO_PROXY_ENV, MEDCHAT_BASE_URL: tlsUrl, MEDCHAT_API_KEY: TEST_KEY } });
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /^medchat: the TLS certificate of 127\.0\.0\.1:\d+ is not trusted \(UNABLE_TO_VERIFY_LEAF_SIGNATURE\); for a private CA set NODE_EXTRA_CA_CERTS=\/path\/to\/ca\.pem\n$/);
  });

  test('a self-signed certificate stays untrusted even through the proxy: one line, exit 1, nothing reaches the service', { skip: noOpenssl }, async () => {
    const before = double.chat.requests.length;
    const r = await runCli(['q'], {
      env: { ...NO_PROXY_ENV, MEDCHAT_BASE_URL: selfSignedUrl, MEDCHAT_API_KEY: TEST_KEY, HTTPS_PROXY: proxy.url, NODE_EXTRA_CA_CERTS: makeTestCerts().caFile },
    });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^medchat: the TLS certificate of 127\.0\.0\.1:\d+ is not trusted \(DEPTH_ZERO_SELF_SIGNED_CERT\); for a private CA set NODE_EXTRA_CA_CERTS=\/path\/to\/ca\.pem\n$/);
    assert.equal(double.chat.requests.length, before);
  });
});

describe('retexture, task polling and the image download', { concurrency: 1 }, () => {
  test('all go through HTTP_PROXY: the service has a name only the proxy can resolve', async () => {
    const home = tempHome();
    const out = path.join(home, 'result.png');
    const intranet = `http://medchat-service.test:${port(double.url)}`;
    const before = proxy.seen.length;
    const id = '1712345678901234567';
    double.retexture.enqueue({ id, life: { steps: [{ status: 'IN_PROGRESS', progress: '50%' }], imageUrl: `${intranet}/mj/image/${id}.png` } });
    const env = { ...NO_PROXY_ENV, MEDCHAT_BASE_URL: intranet, MEDCHAT_API_KEY: TEST_KEY };
    const r = await runCli(['retexture', '--image', 'https://images.example/scan.png', 'watercolour', '--output', out, '--poll-interval', '0.05'], {
      home,
      env: { ...env, HTTP_PROXY: proxy.url },
    });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(fs.readFileSync(out).subarray(1, 4).toString(), 'PNG', 'the image was downloaded');
    assert.ok(proxy.seen.slice(before).every((s) => s.target.includes('medchat-service.test')), 'only the service went through the proxy');
    const reqs = double.server.requests.map((q) => q.path);
    assert.ok(reqs.includes('/mj/submit/retexture'));
    assert.ok(reqs.includes(`/mj/task/${id}/fetch`));
    assert.ok(reqs.includes(`/mj/image/${id}.png`));

    // The same name without the proxy cannot be reached: proof that all of the above went through it.
    const direct = await runCli(['task', id], { home, env });
    assert.equal(direct.code, 1);
    assert.match(direct.stderr, /medchat-service\.test/);
    // And task polling alone through the proxy:
    const polled = await runCli(['task', id], { home, env: { ...env, HTTP_PROXY: proxy.url } });
    assert.equal(polled.code, 0, polled.stderr);
    assert.match(polled.stdout, new RegExp(`/mj/image/${id}\\.png`));
  });
});
