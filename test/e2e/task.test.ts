// `medchat task <id>`, run as the built binary against the double over HTTP.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startServiceDouble, type ServiceDouble } from '../../src/stand-in/index.js';
import { runCli, TEST_KEY, type CliResult } from '../support/cli.js';
import { tempDir } from '../fixtures/images.js';

const FAST = ['--poll-interval', '0.02'];

function clean(r: CliResult): CliResult {
  assert.ok(!r.stdout.includes(TEST_KEY) && !r.stderr.includes(TEST_KEY), 'the key was printed');
  assert.ok(!r.stderr.includes('\x1b'), 'ANSI codes off a terminal');
  for (const line of r.stderr.split('\n').filter(Boolean)) assert.match(line, /^medchat: /);
  return r;
}

describe('medchat task', () => {
  let d: ServiceDouble;
  before(async () => (d = await startServiceDouble()));
  after(() => d.close());
  const run = async (args: string[], env?: Record<string, string | undefined>) => clean(await runCli(['task', ...args], { baseUrl: d.url, env }));

  it('a pending task prints its status and progress', async () => {
    d.retexture.addTask('0100', { steps: [{ status: 'IN_PROGRESS', progress: '45%' }] });
    const r = await run(['0100']);
    assert.equal(r.code, 0);
    assert.equal(r.stdout, 'IN_PROGRESS 45%\n');
    assert.equal(d.retexture.fetchesOf('0100')[0]!.path, '/mj/task/0100/fetch');
  });

  it('an empty status counts as pending', async () => {
    d.retexture.addTask('0101', { steps: [{ status: null }] });
    const r = await run(['0101']);
    assert.equal(r.code, 0);
    assert.equal(r.stdout, 'PENDING\n');
  });

  it('a finished task prints its image URL', async () => {
    d.retexture.addTask('0102', { steps: [] });
    const r = await run(['0102']);
    assert.equal(r.code, 0);
    assert.equal(r.stdout, `${d.url}/mj/image/0102.png\n`);
  });

  it('a failed task prints its reason and exits 6', async () => {
    d.retexture.addTask('0103', { steps: [], end: 'FAILURE', failReason: 'upstream timeout' });
    const r = await run(['0103']);
    assert.equal(r.code, 6);
    assert.equal(r.stdout, '');
    assert.equal(r.stderr, 'medchat: task 0103 failed: upstream timeout\n');
  });

  it('--wait follows a record whose id is a bare number above 2^53', async () => {
    d.retexture.addTask('12345678901234567890', { idShape: 'number', steps: [{ status: 'SUBMITTED' }, { status: 'IN_PROGRESS', progress: '60%' }] });
    const r = await run(['12345678901234567890', '--wait', ...FAST]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, `${d.url}/mj/image/12345678901234567890.png\n`);
    assert.match(r.stderr, /^medchat: task 12345678901234567890: queued\nmedchat: task 12345678901234567890: in progress 60%\n/);
  });

  it('--json prints the record with the id as a string', async () => {
    d.retexture.addTask('9007199254740993', { idShape: 'number', steps: [{ status: 'IN_PROGRESS', progress: '5%' }] });
    const r = await run(['9007199254740993', '--json']);
    assert.equal(r.code, 0);
    const rec = JSON.parse(r.stdout);
    assert.equal(rec.id, '9007199254740993');
    assert.equal(rec.status, 'IN_PROGRESS');
    assert.equal(rec.action, 'RETEXTURE');
  });

  it('--json on a failed task prints the record and exits 6', async () => {
    d.retexture.addTask('0104', { steps: [], end: 'CANCEL' });
    const r = await run(['0104', '--json']);
    assert.equal(r.code, 6);
    assert.equal(JSON.parse(r.stdout).status, 'CANCEL');
    assert.match(r.stderr, /task 0104 was cancelled: no reason given/);
  });

  it('--wait --output downloads the image and prints the path', async () => {
    d.retexture.addTask('0105', { steps: [{ status: 'IN_PROGRESS', progress: '50%' }] });
    const out = path.join(tempDir(), 'sub', 'final.png');
    const r = await run(['0105', '--wait', '--output', out, ...FAST]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, `${out}\n`);
    assert.equal(fs.readFileSync(out).subarray(1, 4).toString('ascii'), 'PNG');
  });

  it('a saved name that disagrees with the bytes gets a note', async () => {
    d.retexture.addTask('0106', { steps: [] });
    const out = path.join(tempDir(), 'final.jpg');
    const r = await run(['0106', '--output', out, ...FAST]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /note: the image is PNG; saved as .*final\.jpg anyway/);
  });

  it('the deadline prints the id and exits 7', async () => {
    d.retexture.addTask('0107', { end: 'never' });
    const r = await run(['0107', '--wait', '--poll-interval', '0.02', '--timeout', '0.15']);
    assert.equal(r.code, 7);
    assert.equal(r.stdout, '0107\n');
    assert.match(r.stderr, /did not finish within 0\.15s .*; check again later with: medchat task 0107 --wait/);
  });

  for (const shape of ['404', '400', '204', 'empty', 'null'] as const) {
    it(`an unknown id answered with ${shape} is reported as not found`, async () => {
      d.retexture.notFoundShape = shape;
      try {
        const r = await run(['31415926535897932384', '--wait', ...FAST]);
        assert.equal(r.code, 1);
        assert.equal(r.stdout, '');
        assert.match(r.stderr, /^medchat: the service has no task 31415926535897932384 \(.+\); check the id/);
        if (shape === '400') assert.match(r.stderr, /400: task not found/);
      } finally {
        d.retexture.notFoundShape = '404';
      }
    });
  }

  it('a refused key while polling exits 3', async () => {
    d.retexture.addTask('0108', { fetchResponse: { status: 401, body: 'Unauthorized', contentType: 'text/plain' } });
    const r = await run(['0108', '--wait', ...FAST]);
    assert.equal(r.code, 3);
    assert.match(r.stderr, /refused the API key \(401\): Unauthorized/);
  });

  it('a service that keeps failing gives up after a few tries with exit 1', async () => {
    d.retexture.addTask('0109', { fetchResponse: { status: 503, body: '' } });
    const r = await run(['0109', '--wait', ...FAST]);
    assert.equal(r.code, 1);
    assert.equal(d.retexture.fetchesOf('0109').length, 5);
    assert.match(r.stderr, /the service failed \(503\); try again later\n$/);
  });

  it('Ctrl+C while waiting stops waiting, says how to come back, exits 130', async () => {
    d.retexture.addTask('0110', { end: 'never' });
    let stderr = '';
    let sent = false;
    const r = await runCli(['task', '0110', '--wait', ...FAST], {
      baseUrl: d.url,
      onSpawn: (child) =>
        child.stderr!.on('data', (c: Buffer) => {
          stderr += c.toString();
          if (!sent && /in progress 99%/.test(stderr)) sent = child.kill('SIGINT');
        }),
    });
    assert.equal(r.code, 130);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /medchat: stopped waiting; task 0110 goes on — follow it with: medchat task 0110 --wait\n$/);
  });

  it('ids that cannot be ids are usage errors', async () => {
    const r = await run(['a b']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /is not a task id/);
  });

  it('the list-by-condition endpoint answers records with exact ids', async () => {
    d.retexture.addTask('9007199254740999', { idShape: 'number' });
    const res = await fetch(`${d.url}/mj/task/list-by-condition`, { method: 'POST', body: JSON.stringify({ ids: ['9007199254740999', 'nope'] }) });
    const text = await res.text();
    assert.match(text, /^\[\{"id":9007199254740999,/);
  });
});
