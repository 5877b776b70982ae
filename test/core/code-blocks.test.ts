import assert from 'node:assert/strict';
import { test } from 'node:test';
import { codeBlocks } from '../../src/core/text/markdown/code-blocks.js';
import { MAX_QUOTE_DEPTH } from '../../src/core/text/markdown/blocks.js';
import { closeCutMarkup } from '../../src/core/text/markdown/cut-off.js';
import { fileBlock } from '../../src/core/request/inputs/blocks.js';
import type { InputFile } from '../../src/core/request/inputs/files.js';
import { adversarialCase, boundMs } from '../support/adversarial-text.js';
import { Prng, seedFromEnv } from '../support/prng.js';

test('fenced blocks come out exactly as written, with their language, in order', () => {
  const answer = [
    'Check the dose:',
    '',
    '```python',
    'def dose(kg):',
    '\treturn 15 * kg  # mg',
    '```',
    '',
    'Then run:',
    '',
    '```bash title="run"',
    'python dose.py   ',
    '```',
    '',
    '```',
    '',
    '  indented',
    '```',
  ].join('\n');
  assert.deepEqual(codeBlocks(answer), [
    { lang: 'python', code: 'def dose(kg):\n\treturn 15 * kg  # mg', closed: true },
    { lang: 'bash', code: 'python dose.py   ', closed: true },
    { lang: '', code: '\n  indented', closed: true },
  ]);
});

test('a longer fence holds shorter ones; tildes hold backticks; a backtick info string with a backtick is not a fence', () => {
  const answer = ['````markdown', 'Use:', '```js', 'x()', '```', '````', '~~~', '```', 'still tilde', '~~~~', '``` `not a fence` ```', 'text'].join('\n');
  assert.deepEqual(codeBlocks(answer), [
    { lang: 'markdown', code: 'Use:\n```js\nx()\n```', closed: true },
    { lang: '', code: '```\nstill tilde', closed: true },
  ]);
});

test('a block the answer never closed runs to the end (without the final newline)', () => {
  assert.deepEqual(codeBlocks('Try:\n```sql\nSELECT 1;\n'), [{ lang: 'sql', code: 'SELECT 1;', closed: false }]);
  assert.deepEqual(codeBlocks('```\n'), [{ lang: '', code: '', closed: false }]);
});

test('fences indented under a list item lose that indent only; fences in quotes count; CRLF is read as LF', () => {
  assert.deepEqual(codeBlocks('1. Install:\n   ```sh\n   npm i\n     --save\n   ```\n2. Done'), [{ lang: 'sh', code: 'npm i\n  --save', closed: true }]);
  assert.deepEqual(codeBlocks('> ```\n> quoted()\n> ```'), [{ lang: '', code: 'quoted()', closed: true }]);
  assert.deepEqual(codeBlocks('```js\r\na();\r\n```\r\n'), [{ lang: 'js', code: 'a();', closed: true }]);
  // Four spaces is not a fence; nor is inline code.
  assert.deepEqual(codeBlocks('    ```\n    x\n    ```\nand `code` here'), []);
});

test('adversarial text: 400,000 runs of backticks, quotes nested 10,000 deep and the generated families end within 2 s per 100 KB, without a stack overflow', () => {
  const ticks = '`a'.repeat(400_000);
  const t0 = performance.now();
  const block = fileBlock({ name: 'ticks.md', text: ticks.replace(/`a$/, '```a') } as InputFile);
  assert.ok(block.startsWith('File: ticks.md\n````\n'), 'a fence one longer than the longest run (3)');
  assert.equal(closeCutMarkup(ticks + '`code'), ticks + '`code`', 'the open code span is closed');
  assert.ok(performance.now() - t0 < boundMs(ticks.length * 2));

  const deep = '> '.repeat(10_000) + '```\ncode\n```';
  assert.deepEqual(codeBlocks(deep).length, 1);
  const quoted = (depth: number) => ['```sh', 'ls', '```'].map((l) => '> '.repeat(depth) + l).join('\n');
  assert.deepEqual(codeBlocks(quoted(MAX_QUOTE_DEPTH)), [{ lang: 'sh', code: 'ls', closed: true }], 'a code block inside 32 quotes is still one');
  assert.deepEqual(codeBlocks(quoted(MAX_QUOTE_DEPTH + 1)), [], 'deeper, the quote marks are text');

  const seed = seedFromEnv();
  const r = new Prng(seed);
  const cases = Array.from({ length: 20 }, () => adversarialCase(r, r.pick([10_000, 100_000])));
  for (const c of cases) {
    const t1 = performance.now();
    codeBlocks(c.text);
    closeCutMarkup(c.text);
    fileBlock({ name: 'x', text: c.text } as InputFile);
    assert.ok(performance.now() - t1 < boundMs(c.text.length), `${c.name} (MEDCHAT_SEED=${seed})`);
  }
  console.log(`# markdown and fences, adversarial text: ${cases.length + 2} cases, seed ${seed}`);
});
