import assert from 'node:assert/strict';
import { test } from 'node:test';
import { codeBlocks } from '../../src/core/text/markdown/code-blocks.js';

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
