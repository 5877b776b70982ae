import assert from 'node:assert/strict';
import { test } from 'node:test';
import { closeCutMarkup } from '../../src/core/text/markdown/cut-off.js';
import { renderMarkdown } from '../../src/ui/text/markdown.js';

const shown = (s: string) => renderMarkdown(closeCutMarkup(s), { width: 80, colour: false });

test('an answer cut mid-markup: what its last block left open is closed, so it renders with no raw markers', () => {
  const cases: Array<[string, string]> = [
    ['- item two is **very impor', '• item two is very impor'],
    ['Take **Dose:** 500 mg of `amoxic', 'Take Dose: 500 mg of amoxic'],
    ['This is *important and _very', 'This is important and very'],
    ['a ~~wrong', 'a wrong'],
    ['**bold `code` and more', 'bold code and more'],
    ['## Red **fl', 'Red fl'],
    ['first line **opens\nthe second goes on', 'first line opens the second goes on'],
    ['see **', 'see'],
  ];
  for (const [cut, want] of cases) assert.equal(shown(cut), want, JSON.stringify(cut));
});

test('what is not open is left as it is: finished markup, code blocks, words with * and _ in them, escapes', () => {
  for (const s of ['done **bold** and *it*', 'snake_case and 2*3 are fine', '```js\nconst a = **', 'escaped \\*star', 'x `code` y', '| a | b |\n|---|---|\n| **x | y |']) {
    assert.equal(closeCutMarkup(s), s, JSON.stringify(s));
  }
});
