// Request timers under the command's deadline, and one service request against a double that
// never answers: which limit cut it decides the exit code (7 for the deadline, 1 for a request
// that timed out, retried while polling).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MedchatError } from '../../src/core/errors.js';
import { CommandDeadline, requestTimer } from '../../src/core/retexture/deadline.js';
import { callService } from '../../src/core/retexture/service-http.js';
import { followTask } from '../../src/core/retexture/task-poll.js';
import { startServiceDouble, type ServiceDouble } from '../../src/stand-in/index.js';

const aborted = (signal: AbortSignal, ms: number) =>
  new Promise<number>((resolve, reject) => {
    const start = Date.now();
    const guard = setTimeout(() => reject(new Error(`not aborted within ${ms} ms`)), ms);
    signal.addEventListener('abort', () => {
      clearTimeout(guard);
      resolve(Date.now() - start);
    });
  });

describe('requestTimer', () => {
  it('the request limit fires when the deadline is further away', async () => {
    const t = requestTimer(undefined, 30, CommandDeadline.after(5000));
    await aborted(t.signal, 2000);
    assert.equal(t.expired(), 'request');
    t.dispose();
  });

  it('the deadline fires when it comes first', async () => {
    const t = requestTimer(undefined, 5000, CommandDeadline.after(30));
    await aborted(t.signal, 2000);
    assert.equal(t.expired(), 'deadline');
    t.dispose();
  });

  it('a deadline already passed cuts at once', async () => {
    const t = requestTimer(undefined, 5000, CommandDeadline.after(-1));
    await aborted(t.signal, 500);
    assert.equal(t.expired(), 'deadline');
  });

  it("the caller's own abort is not a timeout", async () => {
    const outer = new AbortController();
    const t = requestTimer(outer.signal, 5000);
    outer.abort();
    assert.equal(t.signal.aborted, true);
    assert.equal(t.expired(), undefined);
    t.dispose();
  });

  it('an idle timer starts again when data arrives; the deadline does not move', async () => {
    const t = requestTimer(undefined, 80, CommandDeadline.after(400), { idle: true });
    const touching = setInterval(() => t.touch(), 20);
    const ms = await aborted(t.signal, 2000);
    clearInterval(touching);
    assert.equal(t.expired(), 'deadline');
    assert.ok(ms >= 350, `cut after ${ms} ms`);
  });
});

describe('callService under limits', () => {
  let d: ServiceDouble;
  before(async () => (d = await startServiceDouble()));
  after(() => d.close());
  const conn = () => ({ baseUrl: d.url, apiKey: 'sk-deadline-test' });

  it('a request that gets no answer within its own limit is a timeout (exit 1)', async () => {
    d.retexture.addTask('801', { fetchResponse: { status: 200, stall: 'headers' } });
    const err = await callService(conn(), 'GET', '/mj/task/801/fetch', undefined, { timeoutMs: 100, what: 'the task query' }).catch((e) => e);
    assert.ok(err instanceof MedchatError);
    assert.equal(err.kind, 'timeout');
    assert.equal(err.exitCode, 1);
    assert.match(err.message, /^no answer from 127\.0\.0\.1:\d+ to the task query within 0\.1s; check the address/);
  });

  it('a request cut by the deadline is kind deadline-cut (exit 7)', async () => {
    d.retexture.addTask('802', { fetchResponse: { status: 200, body: '{"status":"IN', stall: 'body' } });
    const err = await callService(conn(), 'GET', '/mj/task/802/fetch', undefined, { deadline: CommandDeadline.after(100) }).catch((e) => e);
    assert.equal(err.kind, 'deadline-cut');
    assert.equal(err.exitCode, 7);
  });

  it('polling ends at the deadline with the last record it got', async () => {
    // Every poll answers IN_PROGRESS (no steps before it), so one answered poll is enough, however busy the machine.
    d.retexture.addTask('803', { steps: [], end: 'never' });
    const outcome = await followTask(conn(), '803', { intervalMs: 10, deadline: CommandDeadline.after(1000) });
    assert.equal(outcome.kind, 'deadline');
    assert.equal(outcome.record?.status, 'IN_PROGRESS');
  });
});
