// The rate control of a batch (AIMD): halve on a throttle, once per round; wait as long as the
// service asks; one more at a time after each run of answers, up to -j.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RateControl } from '../../src/core/batch/rate.js';

function clock(start = 1_000_000) {
  let t = start;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

test('a throttle halves the limit once, however many requests of that round meet it', () => {
  const c = clock();
  const rate = new RateControl(16, c.now);
  const sentAt = c.now();
  c.advance(50);
  assert.deepEqual(rate.throttled({ status: 429, attemptStartedAt: sentAt }), { from: 16, to: 8 });
  for (let i = 0; i < 15; i++) assert.equal(rate.throttled({ status: 429, attemptStartedAt: sentAt }), undefined, 'sent before the halving');
  assert.equal(rate.limit, 8);
  c.advance(10);
  assert.deepEqual(rate.throttled({ status: 503, attemptStartedAt: c.now() - 5 }), { from: 8, to: 4 }, 'a request sent after the halving halves again');
  for (let i = 0; i < 5; i++) rate.throttled({ status: 429, attemptStartedAt: c.advance(1) });
  assert.equal(rate.limit, 1, 'never below one');
});

test('retry-after holds every new request until then; a later, shorter one does not shorten it', () => {
  const c = clock();
  const rate = new RateControl(4, c.now);
  assert.equal(rate.holdMs(), 0);
  rate.throttled({ status: 429, retryAfterMs: 2000, attemptStartedAt: c.now() });
  assert.equal(rate.holdMs(), 2000);
  c.advance(500);
  rate.throttled({ status: 429, retryAfterMs: 100, attemptStartedAt: c.now() - 600 });
  assert.equal(rate.holdMs(), 1500);
  c.advance(1500);
  assert.equal(rate.holdMs(), 0);
});

test('after a throttle, each run of `limit` answers raises the limit by one, up to -j', () => {
  const c = clock();
  const rate = new RateControl(6, c.now);
  rate.throttled({ status: 429, attemptStartedAt: c.now() - 1 });
  assert.equal(rate.limit, 3);
  const limits: number[] = [];
  for (let i = 0; i < 40; i++) {
    rate.answered();
    limits.push(rate.limit);
  }
  assert.deepEqual(limits.slice(0, 8), [3, 3, 4, 4, 4, 4, 5, 5]);
  assert.equal(Math.max(...limits), 6, 'never above -j');
  rate.throttled({ status: 429, attemptStartedAt: c.advance(1) });
  rate.answered();
  rate.answered();
  assert.equal(rate.limit, 3, 'a throttle starts the run of answers again');
});
