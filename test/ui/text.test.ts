import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import * as ed from '../../src/ui/text/editor.js';
import { KeyDecoder } from '../../src/ui/text/keys.js';
import { renderMarkdown, renderInline } from '../../src/ui/text/markdown.js';
import { lastSafeSplit } from '../../src/ui/text/split.js';
import { formatWindow } from '../../src/core/text/format.js';
import { meterText } from '../../src/ui/text/format.js';
import { stripAnsi, textWidth, wrapLine } from '../../src/core/text/width.js';
import { PromptHistory } from '../../src/ui/controller/prompt-history.js';
import { tempDir } from '../support/temp.js';

const keys = (...events: string[]) => {
  const d = new KeyDecoder();
  return events.flatMap((e) => d.push(e));
};

test('Enter sends; Ctrl+J, Alt+Enter and Shift+Enter make a new line', () => {
  assert.deepEqual(keys('\r'), [{ name: 'enter' }]);
  assert.deepEqual(keys('\n'), [{ name: 'newline' }]);
  assert.deepEqual(keys('\x1b\r'), [{ name: 'newline' }]);
  assert.deepEqual(keys('\x1b[13;2u'), [{ name: 'newline' }]);
});

test('shell editing keys are recognised', () => {
  const names = (s: string) => keys(s).map((k) => k.name);
  assert.deepEqual(names('\x01'), ['home']);
  assert.deepEqual(names('\x05'), ['end']);
  assert.deepEqual(names('\x17'), ['kill-word-before']);
  assert.deepEqual(names('\x15'), ['kill-line-start']);
  assert.deepEqual(names('\x0b'), ['kill-line-end']);
  assert.deepEqual(names('\x1b[1;5D'), ['word-left']);
  assert.deepEqual(names('\x1bf'), ['word-right']);
  assert.deepEqual(names('\x1b[3~'), ['delete']);
  assert.deepEqual(names('\x7f\x7f'), ['backspace', 'backspace']);
});

test('a bracketed paste never sends, even with newlines, and may arrive in pieces', () => {
  assert.deepEqual(keys('\x1b[200~', 'line one\rline', ' two\r', '\x1b[201~'), [{ name: 'paste', text: 'line one\rline two\r' }]);
});

test('pasted lines without bracketed paste are a paste; typed text then Enter still sends', () => {
  assert.deepEqual(keys('a\rb\rc'), [{ name: 'paste', text: 'a\rb\rc' }]);
  assert.deepEqual(keys('hello\r'), [{ name: 'text', text: 'hello' }, { name: 'enter' }]);
  assert.deepEqual(keys('typed ahead\n'), [{ name: 'text', text: 'typed ahead' }, { name: 'enter' }]);
});

test('editor: insert, move, delete words and lines', () => {
  let s = ed.fromText('take two tablets');
  s = ed.deleteWordBefore(s);
  assert.equal(s.text, 'take two ');
  s = ed.insert(s, 'pills');
  s = ed.wordLeft(s);
  assert.equal(s.cursor, 9);
  s = ed.killToLineEnd(s);
  assert.equal(s.text, 'take two ');
  s = ed.home(s);
  s = ed.deleteForward(s);
  assert.equal(s.text, 'ake two ');
  s = ed.end(s);
  s = ed.killToLineStart(s);
  assert.equal(s.text, '');
});

test('editor: Up/Down move between lines of a draft, then give way to history', () => {
  const s = ed.fromText('first\nsecond line');
  const up = ed.verticalMove(s, -1)!;
  assert.equal(ed.position(up).line, 0);
  assert.equal(ed.verticalMove(up, -1), undefined);
  assert.equal(ed.verticalMove(s, 1), undefined);
});

test('editor: a large paste shows as a placeholder and is sent in full; Backspace removes it whole', () => {
  const body = Array.from({ length: 120 }, (_, i) => `row ${i}`).join('\n');
  let s = ed.insertPaste(ed.fromText('see: '), body);
  assert.equal(s.text, 'see: [pasted 120 lines]');
  assert.equal(ed.expandedText(s), `see: ${body}`);
  s = ed.backspace(s);
  assert.equal(s.text, 'see: ');
  assert.equal(ed.expandedText(s), 'see: ');
  const small = ed.insertPaste(ed.emptyEditor(), 'a\nb');
  assert.equal(small.text, 'a\nb');
});

test('finished paragraphs split at blank lines, never inside a code fence', () => {
  assert.equal(lastSafeSplit('one\n\ntwo'), 5);
  assert.equal(lastSafeSplit('one line still going'), 0);
  const fenced = 'intro\n\n```\ncode\n\nmore code\n';
  assert.equal(lastSafeSplit(fenced), 7);
  const closed = 'intro\n\n```\ncode\n\nmore\n```\n\nafter';
  assert.equal(closed.slice(lastSafeSplit(closed)), 'after');
});

test('markdown: headings, emphasis, lists, code with colours, tables', () => {
  const out = renderMarkdown('# Fever\n\nA **high** temperature and `38 °C`.\n\n- rest\n- fluids\n\n```js\nconst x = 1; // note\n```\n\n| Age | Limit |\n|---|---|\n| adult | 38 |', { width: 60 });
  const plain = stripAnsi(out);
  assert.match(plain, /^Fever/);
  assert.match(plain, /A high temperature and 38 °C\./);
  assert.match(plain, /• rest\n• fluids/);
  assert.match(plain, /const x = 1; \/\/ note/);
  assert.match(plain, /│ Age +│ Limit │/);
  assert.match(out, /\x1b\[1mhigh\x1b\[22m/); // bold
  assert.match(out, /\x1b\[35mconst/); // keyword colour
  assert.equal(stripAnsi(renderInline('[NHS](https://nhs.uk)', false)), 'NHS (https://nhs.uk)');
});

test('markdown wraps to the width with hanging indents; a table too wide becomes records', () => {
  const out = stripAnsi(renderMarkdown('- ' + 'word '.repeat(30), { width: 40, colour: false }));
  for (const l of out.split('\n')) assert.ok(textWidth(l) <= 40, l);
  assert.match(out.split('\n')[1]!, /^  word/);
  const wide = stripAnsi(renderMarkdown(`| a | b |\n|---|---|\n| ${'x'.repeat(50)} | y |`, { width: 30, colour: false }));
  assert.match(wide, /a:\s+x+/);
  assert.equal(wrapLine('abc', 10).length, 1);
});

test('footer meter: 23.4k / 128k · 18%, warning colour near the limit', () => {
  assert.equal(formatWindow(131072), '128k');
  assert.deepEqual(meterText({ used: 23_400, window: 131072 }), { text: '23.4k / 128k · 18%', level: 'ok' });
  assert.equal(meterText({ used: 110_000, window: 131072 }).level, 'warn');
  assert.equal(meterText({ used: 125_000, window: 131072 }).level, 'full');
});

test('prompt history persists across runs in a 0600 file', () => {
  const dir = tempDir('medchat-hist-');
  const file = path.join(dir, 'sub', 'prompt-history.jsonl');
  const h = new PromptHistory(file);
  h.add('first question');
  h.add('second\nwith two lines');
  assert.equal(fs.statSync(file).mode & 0o777, 0o600);
  const again = new PromptHistory(file);
  assert.equal(again.previous('draft'), 'second\nwith two lines');
  assert.equal(again.previous(''), 'first question');
  assert.equal(again.previous(''), undefined);
  assert.equal(again.next(), 'second\nwith two lines');
  assert.equal(again.next(), 'draft');
});

test('a prompt history file that is a link to /dev/zero or a FIFO is not read (at once, nothing held) nor replaced; history is kept for the run', { skip: !fs.existsSync('/dev/zero') && 'needs /dev/zero' }, () => {
  const dir = tempDir('medchat-hist-');
  const link = path.join(dir, 'prompt-history.jsonl');
  fs.symlinkSync('/dev/zero', link);
  const h = new PromptHistory(link);
  assert.deepEqual(h.all, []);
  h.add('a question');
  assert.equal(h.previous(''), 'a question');
  assert.equal(fs.readlinkSync(link), '/dev/zero', 'the link is left as it was');
});
