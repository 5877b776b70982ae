// The streaming answer's one clock. It counts whole seconds from the moment
// the question was sent and ticks on each second, not on a timer of its own phase; every live
// counter (waiting, thinking, the footer) reads it.
import assert from 'node:assert/strict';
import { afterEach, beforeEach, mock, test } from 'node:test';
import { TurnClock } from '../../../src/ui/controller/turn-clock.js';

beforeEach(() => mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 10_000 }));
afterEach(() => mock.timers.reset());

test('ticks on each second since the start, from the first second: 0s, then 1s at +1.0 s, 2s at +2.0 s', () => {
  const clock = new TurnClock();
  const seen: number[] = [];
  clock.subscribe(() => seen.push(clock.seconds));
  clock.start(Date.now());
  assert.equal(clock.seconds, 0);
  mock.timers.tick(999);
  assert.deepEqual(seen, [], 'no tick before the first second is over');
  mock.timers.tick(1);
  assert.deepEqual(seen, [1]);
  mock.timers.tick(1000);
  mock.timers.tick(1000);
  assert.deepEqual(seen, [1, 2, 3], 'one tick a second, each a new second');
});

test('counts from when the question was sent: started late (the first render came 700 ms after), it still ticks on the second', () => {
  const clock = new TurnClock();
  const sent = Date.now();
  mock.timers.tick(700);
  clock.start(sent);
  const seen: number[] = [];
  clock.subscribe(() => seen.push(clock.seconds));
  mock.timers.tick(300);
  assert.deepEqual(seen, [1], '1s at one second after sending, not after the start call');
  mock.timers.tick(1700);
  assert.deepEqual(seen, [1, 2]);
  assert.equal(clock.seconds, 2);
});

test('stopped, it ticks no more and reads 0; started again, it counts the new answer from 0', () => {
  const clock = new TurnClock();
  let ticks = 0;
  clock.subscribe(() => ticks++);
  clock.start(Date.now());
  for (const ms of [1000, 1000, 500]) mock.timers.tick(ms);
  assert.equal(clock.seconds, 2);
  clock.stop();
  assert.equal(clock.seconds, 0);
  assert.equal(clock.running, false);
  mock.timers.tick(5000);
  assert.equal(ticks, 2);
  clock.start(Date.now());
  assert.equal(clock.seconds, 0);
  mock.timers.tick(1000);
  assert.equal(clock.seconds, 1);
  clock.stop();
});
