import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { SessionEvent } from '../../../src/core/sessions/chat-session.js';
import { STALL_MS, changeOf, finishLive, liveFigures, reduceLive, startLive } from '../../../src/ui/controller/live-turn.js';
import type { LiveTurn, NewItem } from '../../../src/ui/controller/screen-state.js';

// The live-turn reducer alone: events (with the time each arrived) in, screen state out.

type Timed = [at: number, e: SessionEvent];

function feed(events: Timed[], live = startLive('t1', 0)): { live: LiveTurn; printed: NewItem[] } {
  const printed: NewItem[] = [];
  for (const [at, e] of events) {
    const step = reduceLive(live, e, at);
    printed.push(...step.print);
    live = step.live;
  }
  return { live, printed };
}

const r = (text: string): SessionEvent => ({ type: 'reasoning', text });
const c = (text: string): SessionEvent => ({ type: 'content', text });

test('waiting, then reasoning, then the answer: the reasoning is folded into one printed item when the answer begins', () => {
  const { live, printed } = feed([
    [100, r('Normal is ')],
    [200, r('about 37 °C.')],
    [1100, c('A fever is ')],
  ]);
  assert.equal(live.phase, 'answer');
  assert.equal(live.answerTail, 'A fever is ');
  assert.equal(live.reasoning, '', 'the folded reasoning leaves the live area');
  assert.deepEqual(printed, [{ kind: 'reasoning', text: 'Normal is about 37 °C.', ms: 1000, tokens: 2 }]);
  assert.equal(live.reasoningMs, 1000);
  assert.equal(live.firstTokenAt, 100);
  assert.equal(live.answerStartedAt, 1100);
});

test('finished paragraphs move into the transcript; the paragraph being written and code fences stay live', () => {
  const { live, printed } = feed([
    [1, c('First paragraph.\n\nSecond ')],
    [2, c('starts.\n\n```\ncode\n\n')],
    [3, c('more code\n')],
  ]);
  assert.deepEqual(printed, [
    { kind: 'answer', text: 'First paragraph.' },
    { kind: 'answer', text: 'Second starts.' },
  ]);
  assert.equal(live.answerTail, '```\ncode\n\nmore code\n');
});

test('text from the service is sanitised before it reaches the screen state', () => {
  const { live } = feed([[1, c('safe \x1b[2J text')]]);
  assert.equal(live.answerTail, 'safe ␛[2J text');
});

test('a retry notice shows until the next text; a fold notice is printed at once', () => {
  let { live } = feed([[10, { type: 'retry', attempt: 1, delayMs: 1500, reason: 'rate limited' }]]);
  assert.equal(live.retry, 'rate limited; trying again in 1.5s (attempt 2)');
  const fold = reduceLive(live, { type: 'compacted', text: 'Summarised 4 earlier messages', compaction: {} as never }, 20);
  assert.deepEqual(fold.print, [{ kind: 'notice', text: 'Summarised 4 earlier messages', tone: 'info' }]);
  live = reduceLive(live, c('ok'), 30).live;
  assert.equal(live.retry, undefined);
});

test('the change kind: text only, finished paragraphs, or anything else', () => {
  const a = startLive('t', 0);
  const first = reduceLive(a, c('x'), 1);
  assert.equal(changeOf(a, c('x'), first), 'any', 'the phase changed');
  const more = reduceLive(first.live, c('y'), 2);
  assert.equal(changeOf(first.live, c('y'), more), 'text');
  const para = reduceLive(more.live, c('\n\nz'), 3);
  assert.equal(changeOf(more.live, c('\n\nz'), para), 'paragraphs');
  const usage = { type: 'usage', usage: { prompt_tokens: 1, completion_tokens: 1 } } as const;
  assert.equal(changeOf(para.live, usage, reduceLive(para.live, usage, 4)), 'any');
});

test('the end: the open reasoning is folded, the rest of the answer printed, then the status line with the figures', () => {
  const { live } = feed([
    [100, r('think')],
    [600, c('Answer ')],
    [700, c('end.  ')],
    [800, { type: 'usage', usage: { prompt_tokens: 40, completion_tokens: 5 } }],
  ]);
  const done = finishLive(live, { status: 'complete' }, 900);
  assert.deepEqual(done.print.slice(0, 1), [{ kind: 'answer', text: 'Answer end.' }]);
  const status = done.print.at(-1)!;
  assert.equal(status.kind, 'status');
  assert.equal(status.kind === 'status' && status.status, 'complete');
  // 5 completion tokens less 1 of reasoning: 4 answer tokens, the last 3 in the 100 ms after the first.
  assert.equal(status.kind === 'status' ? status.stats : '', '0.9s · first token 0.1s · 30 tok/s · 40 in · 5 out');
  assert.equal(done.times.durationMs, 900);
  assert.deepEqual(done.last?.usage, { prompt_tokens: 40, completion_tokens: 5 });
});

test('reasoning only, then the stream fails: the reasoning is still printed, and the error is on the status line', () => {
  const { live } = feed([[50, r('thinking…')]]);
  const outcome = { status: 'failed', error: 'the service stopped sending' } as const;
  const done = finishLive(live, outcome, 450);
  assert.deepEqual(done.print[0], { kind: 'reasoning', text: 'thinking…', ms: 400, tokens: 1 });
  assert.deepEqual(
    done.print.map((i) => i.kind),
    ['reasoning', 'status'],
  );
  const status = done.print[1]!;
  assert.equal(status.kind === 'status' && status.status, 'failed');
  assert.equal(status.kind === 'status' && status.error, 'the service stopped sending');
  assert.equal(done.last, undefined);
});

test('the reducer never changes the state it is given', () => {
  const a = startLive('t', 0);
  const frozen = JSON.stringify(a);
  const b = reduceLive(a, r('x'), 1).live;
  reduceLive(b, c('y\n\nz'), 2);
  finishLive(b, { status: 'complete' }, 3);
  assert.equal(JSON.stringify(a), frozen);
  assert.equal(b.reasoning, 'x');
});

test('figures: "first token" is the first token of anything; tok/s is the answer\'s tokens over the time the answer took', () => {
  // Ten reasoning tokens from 100 ms, a two-second pause, then the answer: eleven pieces over one second.
  const events: Timed[] = [];
  for (let i = 0; i < 10; i++) events.push([100 + i * 100, r(`r${i} `)]);
  for (let i = 0; i <= 10; i++) events.push([3000 + i * 100, c(`a${i} `)]);
  // The service counts 31 completion tokens: the reasoning's 10 and the answer's 21.
  events.push([4100, { type: 'usage', usage: { prompt_tokens: 50, completion_tokens: 31 } }]);
  const { live } = feed(events);
  const done = finishLive(live, { status: 'complete' }, 4200);
  assert.equal(done.times.firstTokenMs, 100, 'the first reasoning token, not the first answer token (3000)');
  assert.equal(done.times.reasoningMs, 2900);
  assert.equal(done.times.tokensPerSecond, 20, '(21 - 1) tokens in the 1 s from the first answer token to the last');
  assert.equal(done.last?.tokensPerSecond, 20);
  // Without usage, the pieces streamed are the tokens.
  const bare = finishLive(feed(events.slice(0, -1)).live, { status: 'complete' }, 4200);
  assert.equal(bare.times.tokensPerSecond, 10);
});

test('an interrupted or failed answer leaves no figures for the footer', () => {
  const { live } = feed([[100, c('Half')], [200, { type: 'usage', usage: { prompt_tokens: 5, completion_tokens: 1 } }]]);
  assert.equal(finishLive(live, { status: 'interrupted' }, 300).last, undefined);
  assert.equal(finishLive(live, { status: 'failed', error: 'x' }, 300).last, undefined);
  assert.ok(finishLive(live, { status: 'complete' }, 300).last);
});

test('the live figures: the turn clock\'s seconds and tokens so far; "no data" once the service is quiet, but not while waiting or retrying', () => {
  const waiting = startLive('t', 0);
  assert.deepEqual(liveFigures(waiting, 20_000, 20), { text: '20s · 0 tokens' }, 'the waiting line counts this already');
  const { live } = feed([[1000, r('a')], [1500, c('b')]]);
  assert.deepEqual(liveFigures(live, 3000, 3), { text: '3s · 2 tokens' });
  assert.deepEqual(liveFigures(live, 1500 + STALL_MS - 1, 6), { text: '6s · 2 tokens' });
  assert.deepEqual(liveFigures(live, 13_700, 13), { text: '13s · 2 tokens', stall: 'no data for 12s' });
  const retrying = reduceLive(live, { type: 'retry', attempt: 1, delayMs: 20_000, reason: 'rate limited' }, 2000).live;
  assert.equal(liveFigures(retrying, 13_700, 13).stall, undefined);
});

test('an answer ending a line of 100,000 spaces followed by a word is finished at once, its word kept (trimming it from every space was quadratic: ~8 s)', () => {
  const { live } = feed([[100, c('Dose: ' + ' '.repeat(100_000) + 'none')]]);
  const t0 = performance.now();
  const done = finishLive(live, { status: 'complete' }, 200);
  assert.ok(performance.now() - t0 < 1000, `finished in ${Math.round(performance.now() - t0)} ms`);
  const answer = done.print.filter((i) => i.kind === 'answer').map((i) => (i as { text: string }).text).join('\n');
  assert.match(answer, /none$/);
});
