import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BatchProgress } from '../../src/core/batch/progress.js';
import { describeCompaction } from '../../src/core/context/compaction.js';
import { outcomeError } from '../../src/core/retexture/task-poll.js';
import { formatDuration, formatListTime, formatSeconds, formatTokens, formatWindow, tokensWord } from '../../src/core/text/format.js';
import { statsText } from '../../src/ui/controller/live-turn.js';
import { meterText } from '../../src/ui/text/format.js';
import { reasoningTitle } from '../../src/ui/text/printed-lines.js';

// One form for a token count and one for a length of time, wherever medchat shows one.

test('token counts: exact below 1000, then k with one decimal (no .0) below 100k, whole k, then M', () => {
  const cases: Array<[number, string]> = [
    [0, '0'],
    [1, '1'],
    [950, '950'],
    [999.4, '999'],
    [999.6, '1k'],
    [1000, '1k'],
    [2000, '2k'],
    [2049, '2k'],
    [2050, '2.1k'],
    [2100, '2.1k'],
    [23_400, '23.4k'],
    [61_234, '61.2k'],
    [99_949, '99.9k'],
    [99_950, '100k'],
    [122_880, '123k'],
    [131_072, '131k'],
    [999_499, '999k'],
    [999_500, '1M'],
    [1_500_000, '1.5M'],
    [2_000_000, '2M'],
    [123_456_789, '123M'],
    [-1500, '-1.5k'],
    [Number.NaN, '?'],
  ];
  for (const [n, want] of cases) assert.equal(formatTokens(n), want, `formatTokens(${n})`);
  assert.equal(tokensWord(1), '1 token');
  assert.equal(tokensWord(612), '612 tokens');
  assert.equal(tokensWord(2100), '2.1k tokens');
});

test('a context window reads in KiB when it is a power-of-two multiple, else as tokens', () => {
  assert.equal(formatWindow(131_072), '128k');
  assert.equal(formatWindow(2048), '2k');
  assert.equal(formatWindow(100_000), '100k');
  assert.equal(formatWindow(32_000), '32k');
});

test('durations: hundredths below 1 s, tenths below 10 s (no trailing zeros), whole seconds, then 1m05s, 15m, 1h05m', () => {
  const cases: Array<[number, string]> = [
    [0, '0s'],
    [-5, '0s'],
    [4, '0s'],
    [40, '0.04s'],
    [150, '0.15s'],
    [250, '0.25s'],
    [300, '0.3s'],
    [994, '0.99s'],
    [995, '1s'],
    [1049, '1s'],
    [1050, '1.1s'],
    [1000, '1s'],
    [1500, '1.5s'],
    [8_200, '8.2s'],
    [9_949, '9.9s'],
    [9_950, '10s'],
    [12_400, '12s'],
    [59_499, '59s'],
    [59_500, '1m'],
    [65_000, '1m05s'],
    [125_000, '2m05s'],
    [900_000, '15m'],
    [3_599_000, '59m59s'],
    [3_600_000, '1h'],
    [3_900_000, '1h05m'],
    [86_400_000, '24h'],
    [Number.POSITIVE_INFINITY, '?'],
  ];
  for (const [ms, want] of cases) assert.equal(formatDuration(ms), want, `formatDuration(${ms})`);
  // A clock that counts whole seconds never shows tenths.
  assert.equal(formatSeconds(8), '8s');
  assert.equal(formatSeconds(8.9), '8s');
  assert.equal(formatSeconds(65), '1m05s');
});

test('list times are local, to the minute', () => {
  const d = new Date(2026, 10, 22, 14, 30, 5);
  assert.equal(formatListTime(d.toISOString()), '2026-11-22 14:30');
  assert.equal(formatListTime(''), '-');
  assert.equal(formatListTime('not a date'), '-');
});

test('places that wrote the same number two ways now agree: 2k tokens, 1m05s', () => {
  // Tokens: the summary notice said 2.0k, batch progress 2.0k, the chat footer 2000, the meter 2k.
  const notice = describeCompaction({ at: 0, method: 'summarise', messages: 4, beforeTokens: 2000, afterTokens: 12_345, throughTurn: 1 });
  assert.match(notice, /\(2k → 12\.3k tokens\)/);
  assert.equal(meterText({ used: 2000, window: 131_072 }).text, '2k / 128k · 2%');
  assert.match(statsText({ usage: { prompt_tokens: 2000, completion_tokens: 12_345, total_tokens: 14_345 } }), /^2k in · 12\.3k out$/);
  const lines: string[] = [];
  const stream = { write: (s: string) => (lines.push(s), true), columns: 120 } as unknown as NodeJS.WriteStream;
  let now = 0;
  const progress = new BatchProgress(stream, 10, { tty: false, colour: false, now: () => now });
  now = 65_000;
  progress.update({ stats: { answered: 5, failed: 0, promptTokens: 2000, completionTokens: 12_345 }, inFlight: 0, limit: 4, max: 4 });
  assert.match(lines.join(''), /ETA 1m05s · tokens 2k in \/ 12\.3k out/);

  // Durations: retexture said 1m 5s, the chat screen's answer line 65.0s, batch 1m05s.
  assert.match(outcomeError({ kind: 'deadline', elapsedMs: 65_000 }, '42', 65_000)!.message, /did not finish within 1m05s;/);
  assert.match(statsText({ durationMs: 65_000, firstTokenMs: 300 }), /^1m05s · first token 0\.3s$/);
  assert.equal(reasoningTitle(65_000, 2000), 'Thought for 1m05s · 2k tokens');
});
