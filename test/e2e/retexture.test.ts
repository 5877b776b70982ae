// `medchat retexture`, run as the built binary against the double over HTTP.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startServiceDouble, type ServiceDouble } from '../../src/stand-in/index.js';
import { runCli, TEST_KEY, type CliResult } from '../support/cli.js';
import { GIF_BYTES, JPEG_BYTES, PNG_BYTES, WEBP_BYTES, tempDir, writeTemp } from '../fixtures/images.js';

const FAST = ['--poll-interval', '0.02'];

/** What every run must keep: one clean stderr, never the key, no colour codes off a terminal. */
function clean(r: CliResult): CliResult {
  assert.ok(!r.stdout.includes(TEST_KEY) && !r.stderr.includes(TEST_KEY), 'the key was printed');
  assert.ok(!r.stderr.includes('\x1b') && !r.stdout.includes('\x1b'), 'ANSI codes off a terminal');
  for (const line of r.stderr.split('\n').filter(Boolean)) assert.match(line, /^medchat: /);
  return r;
}

describe('medchat retexture', () => {
  let d: ServiceDouble;
  let png: string;
  before(async () => {
    d = await startServiceDouble();
    png = writeTemp('scan.png', PNG_BYTES);
  });
  after(() => d.close());
  const run = async (args: string[], opts: { stdin?: Buffer | string; env?: Record<string, string | undefined> } = {}) =>
    clean(await runCli(['retexture', ...args], { baseUrl: d.url, ...opts }));
  const lastSubmit = () => d.retexture.submits.at(-1)!;

  describe('the request', () => {
    it('sends prompt and a PNG data URI only, with the key; stdout is the task id alone', async () => {
      d.retexture.enqueue({ id: '1712345678901234567' });
      const before = d.retexture.submits.length;
      const r = await run(['--image', png, 'make it a watercolour']);
      assert.equal(r.code, 0);
      assert.equal(r.stdout, '1712345678901234567\n');
      assert.equal(r.stderr, '');
      assert.equal(d.retexture.submits.length, before + 1);
      assert.deepEqual(JSON.parse(lastSubmit().rawBody), { prompt: 'make it a watercolour', image: `data:image/png;base64,${PNG_BYTES.toString('base64')}` });
      assert.equal(lastSubmit().headers.authorization, `Bearer ${TEST_KEY}`);
      assert.equal(lastSubmit().headers['content-type'], 'application/json');
    });

    for (const [name, bytes, mime] of [
      ['photo.jpg', JPEG_BYTES, 'image/jpeg'],
      ['anim.webp', WEBP_BYTES, 'image/webp'],
      ['dot.gif', GIF_BYTES, 'image/gif'],
      ['misnamed.png', JPEG_BYTES, 'image/jpeg'],
    ] as const) {
      it(`finds ${mime} from the bytes of ${name}`, async () => {
        const r = await run(['--image', writeTemp(name, bytes), '--prompt', 'sketch']);
        assert.equal(r.code, 0);
        assert.equal(lastSubmit().body.image, `data:${mime};base64,${Buffer.from(bytes).toString('base64')}`);
      });
    }

    it('reads the image from stdin with -', async () => {
      const r = await run(['--image', '-', 'oil painting'], { stdin: Buffer.from(JPEG_BYTES) });
      assert.equal(r.code, 0);
      assert.equal(lastSubmit().body.image, `data:image/jpeg;base64,${Buffer.from(JPEG_BYTES).toString('base64')}`);
    });

    it('sends a link as is, and state, notifyHook, noStorage when given', async () => {
      const r = await run(['-i', 'https://img.example.com/a.png?v=2', '-p', 'pencil', '--state', 'job-7', '--notify-hook', 'https://hooks.example.com/mj', '--no-storage']);
      assert.equal(r.code, 0);
      assert.deepEqual(JSON.parse(lastSubmit().rawBody), {
        prompt: 'pencil',
        image: 'https://img.example.com/a.png?v=2',
        state: 'job-7',
        notifyHook: 'https://hooks.example.com/mj',
        noStorage: true,
      });
    });
  });

  describe('refused before any request (exit 2)', () => {
    const cases: Array<[string, () => string[], RegExp]> = [
      ['not an image', () => ['--image', writeTemp('notes.png', 'just text'), 'x'], /notes\.png is not a PNG, JPEG, WebP or GIF image/],
      ['an empty file', () => ['--image', writeTemp('empty.png', ''), 'x'], /empty\.png is empty/],
      ['a missing file', () => ['--image', path.join(tempDir(), 'gone.png'), 'x'], /cannot read .*gone\.png: no such file/],
      ['a file over the limit', () => ['--image', png, '--max-image-mb', '0.00001', 'x'], /larger than the .* limit; send a smaller image, or raise the limit with --max-image-mb/],
      ['no prompt', () => ['--image', png], /give a prompt/],
      ['no image', () => ['make it blue'], /give an image: --image/],
      ['a bad hook', () => ['--image', png, '--notify-hook', 'ftp://x', 'x'], /--notify-hook must be an http\(s\):\/\/ address/],
      ['a bad timeout', () => ['--image', png, '--wait', '--timeout', 'soon', 'x'], /--timeout must be a number of seconds/],
    ];
    for (const [what, args, message] of cases) {
      it(what, async () => {
        const before = d.retexture.submits.length;
        const r = await run(args());
        assert.equal(r.code, 2);
        assert.equal(r.stdout, '');
        assert.match(r.stderr, message);
        assert.equal(d.retexture.submits.length, before, 'a request was sent');
      });
    }

    it('an empty stdin', async () => {
      const r = await run(['--image', '-', 'x'], { stdin: '' });
      assert.equal(r.code, 2);
      assert.match(r.stderr, /^medchat: the image on stdin is empty/);
    });
  });

  describe('codes that give a task id', () => {
    it('21 (already exists) and 22 (queued) print the id and say so on stderr', async () => {
      d.retexture.enqueue({ code: 21, id: '555' }, { code: 22, id: '556' });
      let r = await run(['--image', png, 'x']);
      assert.equal(r.code, 0);
      assert.equal(r.stdout, '555\n');
      assert.match(r.stderr, /task 555 already exists \(code 21\)/);
      r = await run(['--image', png, 'x']);
      assert.equal(r.code, 0);
      assert.equal(r.stdout, '556\n');
      assert.match(r.stderr, /task 556 is queued \(code 22\); follow it with: medchat task 556 --wait/);
    });

    it('keeps a bare-number id above 2^53 and a quoted id with leading zeros digit for digit', async () => {
      d.retexture.enqueue({ id: '9007199254740993123', idShape: 'number' }, { id: '000012345678901234567' });
      assert.equal((await run(['--image', png, 'x'])).stdout, '9007199254740993123\n');
      assert.equal((await run(['--image', png, 'x'])).stdout, '000012345678901234567\n');
    });

    it('--json prints the response with the id as a string', async () => {
      d.retexture.enqueue({ id: '18014398509481985', idShape: 'number', description: 'Submit success' });
      const r = await run(['--image', png, '--json', 'x']);
      assert.equal(r.code, 0);
      assert.deepEqual(JSON.parse(r.stdout), { code: 1, description: 'Submit success', properties: {}, result: '18014398509481985' });
    });
  });

  describe('rejections and failures', () => {
    const json = (o: unknown) => ({ status: 200, body: JSON.stringify(o), contentType: 'application/json' });
    const cases: Array<[string, Parameters<ServiceDouble['retexture']['enqueue']>[0], number, RegExp]> = [
      ['code 3', { code: 3, description: 'Account not found' }, 5, /rejected the job \(code 3\): Account not found/],
      ['code 4', { code: 4, description: 'Invalid image' }, 5, /\(code 4\): Invalid image; check the prompt and image/],
      ['code 9', { code: 9, description: 'Queue full, please try later' }, 5, /\(code 9\): Queue full, please try later; try again later/],
      ['code 23', { code: 23, description: 'Queue is full' }, 5, /\(code 23\): Queue is full/],
      ['code 24 with the word', { code: 24, description: 'Banned prompt', properties: { bannedWord: 'gore' } }, 5, /\(code 24\): Banned prompt; rejected word: "gore"; reword the prompt/],
      ['an unknown code', { code: 99, description: 'Something new' }, 5, /\(code 99\): Something new/],
      ['HTTP 200 with success false', { raw: json({ success: false, code: -1, message: 'insufficient quota' }) }, 5, /rejected the job \(code -1\): insufficient quota/],
      ['HTTP 400 with a description', { raw: { status: 400, body: JSON.stringify({ description: 'prompt is required', type: 'validation', code: 'bad_request' }), contentType: 'application/json' } }, 5, /rejected the job \(400\): prompt is required/],
      ['HTTP 401 with a plain-text body', { raw: { status: 401, body: 'Invalid token', contentType: 'text/plain' } }, 3, /refused the API key \(401\): Invalid token; this key came from MEDCHAT_API_KEY: set it to a valid one/],
      ['HTTP 413', { raw: { status: 413, body: '<html><head><title>413 Request Entity Too Large</title></head></html>', contentType: 'text/html' } }, 2, /too large for the service \(413\): 413 Request Entity Too Large; send a smaller image/],
      ['HTTP 429 with an empty body', { raw: { status: 429, body: '' } }, 1, /limiting requests \(429\); wait a moment and try again/],
      ['HTTP 403 with an empty body', { raw: { status: 403, body: '' } }, 1, /limiting requests \(403\)/],
      ['HTTP 502 with an HTML page', { raw: { status: 502, body: '<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body>x</body></html>', contentType: 'text/html' } }, 1, /the service failed \(502\): 502 Bad Gateway; try again later/],
      ['HTTP 200 with an HTML page', { raw: { status: 200, body: '<html><head><title>Login</title></head></html>', contentType: 'text/html' } }, 1, /sent a web page instead of a task id \(Login\)/],
      ['code 1 without a result', { code: 1, idShape: 'none' }, 1, /accepted the job \(code 1\) but sent no task id/],
    ];
    for (const [what, script, code, message] of cases) {
      it(`${what} → exit ${code}`, async () => {
        d.retexture.enqueue(script);
        const r = await run(['--image', png, 'x']);
        assert.equal(r.code, code, r.stderr);
        assert.equal(r.stdout, '');
        assert.match(r.stderr, message);
        assert.equal(r.stderr.split('\n').filter(Boolean).length, 1);
      });
    }

    it('a service that is not there → exit 1 with the next step', async () => {
      const probe = net.createServer();
      await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
      const port = (probe.address() as net.AddressInfo).port;
      await new Promise((resolve) => probe.close(resolve));
      const r = clean(await runCli(['retexture', '--image', png, 'x'], { baseUrl: `http://127.0.0.1:${port}` }));
      assert.equal(r.code, 1);
      assert.match(r.stderr, new RegExp(`^medchat: cannot connect to 127\\.0\\.0\\.1:${port} \\(connection refused\\); check the address`));
    });
  });

  describe('--wait', () => {
    it('follows the task to SUCCESS: stdout is the image URL, stderr one line per change', async () => {
      d.retexture.enqueue({
        id: '0420',
        life: { steps: [{ status: '' }, { status: 'SUBMITTED', progress: '0%' }, { status: 'IN_PROGRESS', progress: '30%' }, { status: 'IN_PROGRESS', progress: '30%' }, { status: 'IN_PROGRESS', progress: '80%' }] },
      });
      const r = await run(['--image', png, '--wait', ...FAST, 'x']);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, `${d.url}/mj/image/0420.png\n`);
      assert.equal(
        r.stderr,
        ['waiting', 'queued 0%', 'in progress 30%', 'in progress 80%', 'done 100%'].map((s) => `medchat: task 0420: ${s}\n`).join(''),
      );
      assert.equal(d.retexture.fetchesOf('0420').length, 6);
      assert.equal(d.retexture.fetchesOf('0420')[0]!.headers.authorization, `Bearer ${TEST_KEY}`);
    });

    it('FAILURE prints the reason and exits 6', async () => {
      d.retexture.enqueue({ id: '77', life: { steps: [{ status: 'IN_PROGRESS', progress: '10%' }], end: 'FAILURE', failReason: 'Banned image content' } });
      const r = await run(['--image', png, '--wait', ...FAST, 'x']);
      assert.equal(r.code, 6);
      assert.equal(r.stdout, '');
      assert.match(r.stderr, /medchat: task 77 failed: Banned image content\n$/);
    });

    it('CANCEL exits 6 too', async () => {
      d.retexture.enqueue({ id: '78', life: { steps: [], end: 'CANCEL', failReason: 'cancelled by admin' } });
      const r = await run(['--image', png, '--wait', ...FAST, 'x']);
      assert.equal(r.code, 6);
      assert.match(r.stderr, /task 78 was cancelled: cancelled by admin/);
    });

    it('the deadline: says so, prints the id on stdout, exits 7', async () => {
      d.retexture.enqueue({ id: '0000999', life: { end: 'never' } });
      // 1.5 s, not less: the state it names is the last the service gave, and a loaded machine (CI runs three
      // suites) may not get one query answered in a fifth of a second.
      const r = await run(['--image', png, '--wait', '--poll-interval', '0.02', '--timeout', '1.5', 'x']);
      assert.equal(r.code, 7);
      assert.equal(r.stdout, '0000999\n');
      assert.match(r.stderr, /medchat: task 0000999 did not finish within 1\.5s \(still IN_PROGRESS at 99%\); check again later with: medchat task 0000999 --wait\n$/);
    });

    it('--json --wait prints the response, then the final record, ids as strings', async () => {
      d.retexture.enqueue({ id: '9007199254740995', idShape: 'number', life: { idShape: 'number', steps: [] } });
      const r = await run(['--image', png, '--wait', '--json', ...FAST, 'x']);
      assert.equal(r.code, 0);
      const [response, record] = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
      assert.equal(response.result, '9007199254740995');
      assert.equal(record.id, '9007199254740995');
      assert.equal(record.status, 'SUCCESS');
      assert.equal(record.imageUrl, `${d.url}/mj/image/9007199254740995.png`);
    });

    it('rides out a gateway hiccup while polling', async () => {
      d.retexture.enqueue({ id: '31', life: { steps: [], failFirstFetches: 2 } });
      const r = await run(['--image', png, '--wait', ...FAST, 'x']);
      assert.equal(r.code, 0);
      assert.match(r.stderr, /the service failed \(502\): 502 Bad Gateway; try again later \(retrying\)/);
      assert.equal(r.stdout, `${d.url}/mj/image/31.png\n`);
    });

    it('a task the service does not know yet right after submitting is still waited for', async () => {
      d.retexture.enqueue({ id: '32', life: { steps: [], notFoundFirstFetches: 1 } });
      const r = await run(['--image', png, '--wait', ...FAST, 'x']);
      assert.equal(r.code, 0, r.stderr);
    });
  });

  describe('--output', () => {
    it('downloads the result, checks it, writes it and prints the path (implies --wait)', async () => {
      d.retexture.enqueue({ id: '40', life: { steps: [] } });
      const out = path.join(tempDir(), 'result.png');
      const r = await run(['--image', png, '--output', out, ...FAST, 'x']);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, `${out}\n`);
      const bytes = fs.readFileSync(out);
      assert.deepEqual(bytes.subarray(0, 8), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
      assert.deepEqual(fs.readdirSync(path.dirname(out)), ['result.png'], 'a temporary file was left behind');
    });

    it('a folder gets retexture-<id>.<ext>', async () => {
      d.retexture.enqueue({ id: '0041', life: { steps: [] } });
      const dir = tempDir();
      const r = await run(['--image', png, '-o', dir, ...FAST, 'x']);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, `${path.join(dir, 'retexture-0041.png')}\n`);
      assert.ok(fs.existsSync(path.join(dir, 'retexture-0041.png')));
    });

    it('something that is not an image is refused and nothing is written', async () => {
      d.retexture.images.set('page.html', { bytes: Buffer.from('<html>sign in</html>'), contentType: 'text/html' });
      d.retexture.enqueue({ id: '42', life: { steps: [], imageUrl: `${d.url}/mj/image/page.html` } });
      const dir = tempDir();
      const out = path.join(dir, 'result.png');
      const r = await run(['--image', png, '--output', out, ...FAST, 'x']);
      assert.equal(r.code, 1);
      assert.equal(r.stdout, '');
      assert.match(r.stderr, /the download from 127\.0\.0\.1:\d+ is not an image \(text\/html\); nothing was written/);
      assert.deepEqual(fs.readdirSync(dir), []);
    });

    it('--output - writes the image bytes to stdout', async () => {
      d.retexture.enqueue({ id: '43', life: { steps: [] } });
      const r = await runCli(['retexture', '--image', png, '--output', '-', ...FAST, 'x'], { baseUrl: d.url });
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(r.stdoutBytes.subarray(0, 4), Buffer.from([0x89, 0x50, 0x4e, 0x47]));
    });

    it('a relative image URL is fetched from the service with the key; another host never gets it', async () => {
      d.retexture.enqueue({ id: '44', life: { steps: [], imageUrl: '/mj/image/44.png' } });
      const r = await run(['--image', png, '--output', path.join(tempDir(), 'r.png'), ...FAST, 'x']);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(d.retexture.imageRequests.at(-1)!.headers.authorization, `Bearer ${TEST_KEY}`);
      const other = d.url.replace('127.0.0.1', 'localhost');
      d.retexture.enqueue({ id: '45', life: { steps: [], imageUrl: `${other}/mj/image/45.png` } });
      const r2 = await run(['--image', png, '--output', path.join(tempDir(), 'r.png'), ...FAST, 'x']);
      assert.equal(r2.code, 0, r2.stderr);
      assert.equal(d.retexture.imageRequests.at(-1)!.headers.authorization, undefined);
    });
  });
});
