// retexture and task against a service that hangs or never stops sending: `--timeout` bounds the
// whole command (exit 7, the id on stdout, how to come back), and every read is capped in bytes
// (peak memory under 200 MB). The built binary against the double over real sockets.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startServiceDouble, type ServiceDouble } from '../../src/stand-in/index.js';
import { TEST_KEY } from '../support/cli.js';
import { errorLine, runWatched, type WatchedResult } from '../support/watched-run.js';
import { PNG_BYTES, tempDir, writeTemp } from '../fixtures/images.js';

const TIMEOUT_S = 1.5;
/** The promise: a command against a silent server ends within its deadline plus 2 s (startup included here). */
const BOUND_MS = TIMEOUT_S * 1000 + 2000;
const MAX_RSS_MB = 200;
const FAST = ['--poll-interval', '0.02'];

function checked(r: WatchedResult): WatchedResult {
  assert.ok(!r.stdout.includes(TEST_KEY) && !r.stderr.includes(TEST_KEY), 'the key was printed');
  assert.ok(r.peakRssMb < MAX_RSS_MB, `peak memory ${r.peakRssMb} MB`);
  return r;
}

describe('retexture and task: deadlines and byte caps', () => {
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
  const timeout = ['--timeout', String(TIMEOUT_S)];

  describe('--timeout bounds the whole command while a request hangs (exit 7)', () => {
    for (const stall of ['headers', 'body'] as const) {
      it(`submit: ${stall === 'headers' ? 'no answer at all' : 'a body that never finishes'}`, async () => {
        d.retexture.enqueue({ raw: { status: 200, body: '{"code":1,"description":"ok","result":"5"}', contentType: 'application/json', stall } });
        const r = await run(['retexture', '--image', png, '--wait', ...timeout, 'x']);
        assert.equal(r.code, 7, r.stderr);
        assert.equal(r.stdout, '', 'no id exists yet');
        assert.equal(errorLine(r), `medchat: the service did not answer the submit within 1.5s (--timeout); the job may or may not have been submitted`);
        assert.ok(r.elapsedMs < BOUND_MS, `took ${r.elapsedMs} ms`);
      });

      it(`poll: ${stall === 'headers' ? 'no answer at all' : 'a body that never finishes'}`, async () => {
        const id = `42${stall.length}`;
        d.retexture.addTask(id, { fetchResponse: { status: 200, body: `{"id":"${id}","status":"IN_PROGRESS","progress":"5%"}`, contentType: 'application/json', stall } });
        const r = await run(['task', id, '--wait', ...FAST, ...timeout]);
        assert.equal(r.code, 7, r.stderr);
        assert.equal(r.stdout, `${id}\n`);
        assert.equal(r.stderr, `medchat: task ${id} did not finish within 1.5s (no answer from the service); check again later with: medchat task ${id} --wait\n`);
        assert.ok(r.elapsedMs < BOUND_MS, `took ${r.elapsedMs} ms`);
      });

      it(`download: ${stall === 'headers' ? 'no answer at all' : 'a body that never finishes'}`, async () => {
        const id = `43${stall.length}`;
        d.retexture.images.set(`slow-${stall}.png`, { bytes: PNG_BYTES, contentType: 'image/png', stall });
        d.retexture.addTask(id, { steps: [], imageUrl: `${d.url}/mj/image/slow-${stall}.png` });
        const dir = tempDir();
        dirs.push(dir);
        const out = path.join(dir, "it's; here.png");
        const r = await run(['task', id, '--output', out, ...FAST, ...timeout]);
        assert.equal(r.code, 7, r.stderr);
        assert.equal(r.stdout, `${id}\n`);
        assert.equal(
          errorLine(r),
          `medchat: task ${id} is done, but the image did not download within 1.5s; get it later with: medchat task ${id} --output '${dir}/it'\\''s; here.png'`,
        );
        assert.deepEqual(fs.readdirSync(dir), [], 'nothing written');
        assert.ok(r.elapsedMs < BOUND_MS, `took ${r.elapsedMs} ms`);
      });
    }

    it('task without --wait: the query hangs', async () => {
      d.retexture.addTask('4242', { fetchResponse: { status: 200, stall: 'headers' } });
      const r = await run(['task', '4242', ...timeout]);
      assert.equal(r.code, 7, r.stderr);
      assert.equal(r.stdout, '4242\n');
      assert.equal(r.stderr, 'medchat: no answer about task 4242 within 1.5s; check again later with: medchat task 4242 --wait\n');
      assert.ok(r.elapsedMs < BOUND_MS, `took ${r.elapsedMs} ms`);
    });
  });

  describe('every read is capped in bytes and says so (peak memory under 200 MB)', () => {
    it('--image /dev/zero (a device passes a size check) is refused after 25 MB', async () => {
      const before = d.retexture.submits.length;
      const r = await run(['retexture', '--image', '/dev/zero', 'x']);
      assert.equal(r.code, 2, r.stderr);
      assert.equal(r.stdout, '');
      assert.equal(r.stderr, 'medchat: /dev/zero is larger than the 25 MB limit (reading stopped there); send a smaller image, or raise the limit with --max-image-mb\n');
      assert.equal(d.retexture.submits.length, before, 'nothing was sent');
    });

    it('--image - with an endless stdin is refused after 25 MB', async () => {
      const fd = fs.openSync('/dev/zero', 'r');
      try {
        const r = await run(['retexture', '--image', '-', 'x'], { stdinFd: fd });
        assert.equal(r.code, 2, r.stderr);
        assert.equal(r.stderr, 'medchat: the image on stdin is larger than the 25 MB limit (reading stopped there); send a smaller image, or raise the limit with --max-image-mb\n');
      } finally {
        fs.closeSync(fd);
      }
    });

    it('a submit response that never ends', async () => {
      d.retexture.enqueue({ raw: { status: 200, body: '{"code":1,"description":"', contentType: 'application/json', stall: 'endless' } });
      const r = await run(['retexture', '--image', png, 'x']);
      assert.equal(r.code, 1, r.stderr);
      assert.equal(r.stdout, '');
      assert.match(errorLine(r), /^medchat: the service sent more than 1 MB for the submit, far more than it should; refused it — check the base URL/);
      assert.ok(r.elapsedMs < 10000, `took ${r.elapsedMs} ms`);
    });

    it('a task record that never ends (not retried)', async () => {
      d.retexture.addTask('4400', { fetchResponse: { status: 200, body: '{"id":"4400","status":"', contentType: 'application/json', stall: 'endless' } });
      const r = await run(['task', '4400', '--wait', ...FAST]);
      assert.equal(r.code, 1, r.stderr);
      assert.equal(r.stdout, '');
      assert.match(r.stderr, /^medchat: the service sent more than 1 MB for the task query, far more than it should; refused it/);
      assert.equal(d.retexture.fetchesOf('4400').length, 1);
    });

    it('an image download that never ends stops at 32 MB; nothing is written', async () => {
      d.retexture.images.set('endless.png', { bytes: PNG_BYTES, contentType: 'image/png', stall: 'endless' });
      d.retexture.addTask('4401', { steps: [], imageUrl: `${d.url}/mj/image/endless.png` });
      const dir = tempDir();
      dirs.push(dir);
      const r = await run(['task', '4401', '--output', dir, ...FAST]);
      assert.equal(r.code, 1, r.stderr);
      assert.equal(r.stdout, '');
      assert.match(errorLine(r), /^medchat: the image at 127\.0\.0\.1:\d+ is larger than 32 MB; not downloaded \(fetch it another way: medchat task 4401 prints its URL\)$/);
      assert.deepEqual(fs.readdirSync(dir), []);
    });
  });
});
