import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ThinkTagSplitter } from '../../src/core/chat/think-tags.js';

function run(chunks: string[], detectMissingOpen = true) {
  const s = new ThinkTagSplitter(detectMissingOpen);
  const pieces = [...chunks.flatMap((c) => s.push(c)), ...s.end()];
  return {
    reasoning: pieces.filter((p) => p.kind === 'reasoning').map((p) => p.text).join(''),
    content: pieces.filter((p) => p.kind === 'content').map((p) => p.text).join(''),
  };
}

test('inline <think> reasoning is split from the answer', () => {
  assert.deepEqual(run(['<think>weigh it</think>\n\nAnswer.']), { reasoning: 'weigh it', content: 'Answer.' });
});

test('tags split across chunks are still found', () => {
  assert.deepEqual(run(['<th', 'ink>wei', 'gh it</th', 'ink>', 'Ans', 'wer.']), { reasoning: 'weigh it', content: 'Answer.' });
});

test('a missing opening tag: the text before </think> is reasoning', () => {
  assert.deepEqual(run(['weigh ', 'it</thi', 'nk>\n\nAnswer.']), { reasoning: 'weigh it', content: 'Answer.' });
});

test('plain content without tags passes through unchanged', () => {
  assert.deepEqual(run(['Just ', 'an answer with <b>tags</b>.']), { reasoning: '', content: 'Just an answer with <b>tags</b>.' });
});

test('without missing-tag detection, plain content streams at once', () => {
  const s = new ThinkTagSplitter(false);
  assert.deepEqual(s.push('Hello'), [{ kind: 'content', text: 'Hello' }]);
});

test('reasoning streams out before the closing tag arrives', () => {
  const s = new ThinkTagSplitter(true);
  assert.deepEqual(s.push('<think>step one, '), [{ kind: 'reasoning', text: 'step one, ' }]);
  assert.deepEqual(s.push('step two</think>Done'), [
    { kind: 'reasoning', text: 'step two' },
    { kind: 'content', text: 'Done' },
  ]);
});

test('white space at the start is held for an opening tag only up to the hold limit, then streams as content', () => {
  const s = new ThinkTagSplitter(false, 512);
  const out: Array<{ kind: string; text: string }> = [];
  // An answer that is nothing but spaces, a character a piece: held at first (a <think> may follow)…
  for (let i = 0; i < 512; i++) out.push(...s.push(' '));
  assert.equal(out.length, 0);
  // …then given out, not held (and searched again) for ever.
  for (let i = 0; i < 10_000; i++) out.push(...s.push(i % 2 ? ' ' : '\n'));
  const content = out.map((p) => p.text).join('');
  assert.ok(out.every((p) => p.kind === 'content'));
  assert.equal(content.length, 10_512);
  // White space before an opening tag within the limit is still dropped, the tag still read.
  assert.deepEqual(run(['  \n ', '<thi', 'nk>weigh</think>Answer.']), { reasoning: 'weigh', content: 'Answer.' });
});
