import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TokenBreakdown } from '../../../src/core/context/context.js';
import { ContextMeter } from '../../../src/ui/controller/context-meter.js';

// The meter alone: counted once per change, the draft included.

const breakdown = (prompt: number): TokenBreakdown => ({
  window: 10_000,
  maxTokens: 1000,
  budget: 9000,
  threshold: 7200,
  system: 0,
  summary: 0,
  keptTurns: 0,
  kept: prompt,
  foldedTurns: 0,
  next: 0,
  prompt,
  room: 9000 - prompt,
  fraction: (prompt + 1000) / 10_000,
  calibrated: true,
});

test('the meter is the next request (prompt + max_tokens), recounted only after a change', () => {
  const counted: string[] = [];
  const meter = new ContextMeter((draft) => {
    counted.push(draft);
    return breakdown(500 + draft.length);
  });
  assert.deepEqual(meter.value(), { used: 1500, window: 10_000, warnAt: 0.82 });
  meter.value();
  assert.equal(counted.length, 1, 'counted once');
  assert.equal(meter.setDraft('abc'), true);
  assert.equal(meter.setDraft('abc'), false);
  assert.equal(meter.value().used, 1500, 'not recounted until invalidated');
  meter.invalidate();
  assert.equal(meter.value().used, 1503);
  assert.equal(meter.breakdown().prompt, 503);
});
