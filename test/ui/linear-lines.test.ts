import assert from 'node:assert/strict';
import { test } from 'node:test';
import { answerLines, linearItemLines } from '../../src/ui/linear/linear-lines.js';

// Screen-reader mode's lines (ui/linear): what a speech synthesiser reads, so no Markdown marks,
// no box drawing, no symbols read by name, and a table read row by row.

test('an answer is read as plain lines: marks dropped, a link keeps its address, a blank line between blocks, a table as column: value lines', () => {
  const lines = answerLines('# Title\n\nSee [NICE](https://nice.org.uk/ng1) and `x=1`, **bold**.\nsame paragraph\n\n- one\n- *two*\n\n```js\nlet a = 1;\n```\n\n---\n\n| Drug | Dose |\n|---|---|\n| Metoprolol | 50 mg |\n| Bisoprolol | 5 mg |');
  assert.deepEqual(lines, [
    'Title',
    '',
    'See NICE (https://nice.org.uk/ng1) and x=1, bold. same paragraph',
    '',
    '- one',
    '- two',
    '',
    'code, js:',
    'let a = 1;',
    'end of code',
    '',
    'table, 2 rows:',
    'row 1:',
    'Drug: Metoprolol',
    'Dose: 50 mg',
    'row 2:',
    'Drug: Bisoprolol',
    'Dose: 5 mg',
    'end of table',
  ]);
  for (const l of lines) assert.doesNotMatch(l, /[\u2500-\u257f\x1b*`|]/, l);
});

test('each turn is labelled, the reasoning is one line in whole seconds, and a line ends each answer', () => {
  assert.deepEqual(linearItemLines({ id: 'a', kind: 'user', text: 'dose of metoprolol?' }, false), ['', 'you: dose of metoprolol?']);
  assert.deepEqual(linearItemLines({ id: 'b', kind: 'reasoning', text: 'long thoughts', ms: 8240, tokens: 600 }, false), ['thought for 8 seconds; /reasoning reads it']);
  assert.deepEqual(linearItemLines({ id: 'c', kind: 'answer', text: 'First.\n\nSecond.' }, true), ['medchat: First.', '', 'Second.']);
  assert.deepEqual(linearItemLines({ id: 'd', kind: 'answer', text: 'Third.' }, false), ['', 'Third.'], 'a later paragraph of the same answer is not labelled again');
  assert.deepEqual(linearItemLines({ id: 'e', kind: 'status', status: 'complete', stats: '4.2s · first token 0.3s · 52 tok/s' }, false), ['end of answer: 4.2s']);
  assert.deepEqual(linearItemLines({ id: 'f', kind: 'status', status: 'interrupted' }, false), ['answer stopped; /retry asks again']);
  assert.deepEqual(linearItemLines({ id: 'h', kind: 'notice', tone: 'plain', text: '----==++\n--**==++' }, false), ['the picture preview is left out here; the address above opens the picture'], 'a picture in characters is not read out');
  assert.deepEqual(linearItemLines({ id: 'g', kind: 'notice', tone: 'error', text: '✗ the key was refused\nrun medchat config set api-key' }, false), ['error: the key was refused', 'run medchat config set api-key'], 'a symbol is not read by name; the tone is a word');
});
