import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, afterEach, before, test } from 'node:test';
import { cleanup } from 'ink-testing-library';
import { startServiceDouble, type ServiceDouble } from '../../src/stand-in/index.js';
import { COMMANDS } from '../../src/ui/slash/index.js';
import { MENU_ROWS } from '../../src/ui/slash/menu.js';
import { KEY_BINDINGS, KeyDecoder } from '../../src/ui/text/keys.js';
import { KEY_HELP, keyHelpMarkdown } from '../../src/ui/text/key-help.js';
import { lineCount } from '../../src/ui/text/editor.js';
import { textWidth } from '../../src/core/text/width.js';
import { REPO, WAIT_MS, waitFor } from '../support/cli.js';
import { renderChat } from '../support/tui.js';

// The input box: the / menu, /help, pastes. (The caret in a real terminal: e2e/tui-cursor.test.ts.)
let double: ServiceDouble;
before(async () => {
  double = await startServiceDouble();
});
after(() => double.close());
afterEach(() => cleanup());

const DOWN = '\x1b[B';
const UP = '\x1b[A';
const SHIFT_TAB = '\x1b[Z';
const box = (screen: string) => screen.split('\n').find((l) => l.startsWith('│ › '))?.replace(/\s*│\s*$/, '');

test('typing / opens the menu: a window of 8 commands with "↓ N more" under it', async () => {
  const t = await renderChat(double.url);
  t.type('/');
  await t.waitForText(`↓ ${COMMANDS.length - MENU_ROWS} more`);
  const s = t.screen();
  for (const c of COMMANDS.slice(0, MENU_ROWS)) assert.match(s, new RegExp(`/${c.name}\\b`));
  assert.doesNotMatch(s, /\/reasoning\b/, 'the ones below the window are not drawn');
  assert.doesNotMatch(s, /↑ \d+ more/);
  assert.match(s, /› \/help · list commands and keys/, 'the first one is selected');
});

test('Up/Down move the selection inside the menu and scroll it; Enter runs the selected command', async () => {
  const t = await renderChat(double.url);
  t.type('/');
  await t.waitForText('more');
  for (let i = 0; i < MENU_ROWS; i++) t.press(DOWN);
  const ninth = COMMANDS[MENU_ROWS]!.name;
  await t.waitForText(`› /${ninth}`);
  assert.match(t.screen(), /↑ 1 more/);
  assert.match(t.screen(), new RegExp(`↓ ${COMMANDS.length - MENU_ROWS - 1} more`));
  assert.equal(box(t.screen()), '│ › /', 'the draft is untouched');
  t.press(UP);
  await t.waitForText(`› /${COMMANDS[MENU_ROWS - 1]!.name}`);
  // On to /tokens (a command that only prints), wherever it is in the list, and run it with Enter.
  const tokens = COMMANDS.findIndex((c) => c.name === 'tokens');
  for (let i = MENU_ROWS - 1; i < tokens; i++) t.press(DOWN);
  await t.waitForText('› /tokens');
  t.press('\r');
  await t.waitForText('Context window');
  assert.match(t.screen(), /room left/);
});

test('Up from the top of the menu goes round to the last command', async () => {
  const t = await renderChat(double.url);
  t.type('/');
  await t.waitForText('more');
  t.press(UP);
  await t.waitForText(`› /${COMMANDS.at(-1)!.name}`);
  assert.match(t.screen(), new RegExp(`↑ ${COMMANDS.length - MENU_ROWS} more`));
});

test('Tab completes the selected name; Tab again goes through the matches, Shift+Tab back; Enter runs it', async () => {
  const t = await renderChat(double.url);
  t.type('/re');
  const matches = COMMANDS.filter((c) => c.name.startsWith('re')).map((c) => c.name);
  assert.ok(matches.length >= 3, matches.join());
  await t.waitForText(`/${matches.at(-1)}`);
  t.press('\t');
  await waitFor(() => box(t.screen()) === `│ › /${matches[0]}`, WAIT_MS, 'the first match in the box');
  t.press('\t');
  await waitFor(() => box(t.screen()) === `│ › /${matches[1]}`, WAIT_MS, 'the second match');
  for (const m of matches) assert.match(t.screen(), new RegExp(`/${m}\\b`), 'the menu still shows every match');
  t.press('\t');
  await waitFor(() => box(t.screen()) === `│ › /${matches[2]}`, WAIT_MS, 'the third match');
  t.press(SHIFT_TAB);
  t.press(SHIFT_TAB);
  await waitFor(() => box(t.screen()) === `│ › /${matches[0]}`, WAIT_MS, 'back to the first');
  t.press('\r');
  await t.waitForText('nothing to retry yet');
});

test('a / command recalled from history opens no menu: Up goes on through the history', async () => {
  const t = await renderChat(double.url);
  await t.send('/tokens');
  await t.waitForText('Context window');
  await t.send('/think on');
  await t.waitForText('thinking on:');
  t.press(UP);
  await waitFor(() => box(t.screen()) === '│ › /think on', WAIT_MS, '/think on recalled');
  t.press(UP);
  await waitFor(() => box(t.screen()) === '│ › /tokens', WAIT_MS, '/tokens recalled, not a menu move');
});

test('a paste of 50 lines ending in a newline says 50 lines', async () => {
  const t = await renderChat(double.url);
  const body = Array.from({ length: 50 }, (_, i) => `lab value ${i}\n`).join('');
  t.press(`\x1b[200~${body}\x1b[201~`);
  await t.waitForText('[pasted 50 lines]');
  assert.equal(lineCount(body), 50);
  assert.equal(lineCount('a\nb'), 2);
  assert.equal(lineCount('a\n\n'), 2, 'a blank line before the last newline is a line');
});

test('/help is laid out for the width: no line wider, wrapped descriptions hang under their column', async () => {
  const t = await renderChat(double.url, { columns: 60 });
  await t.send('/help');
  await t.waitForText('Keys:');
  const s = t.screen().split('\n');
  const help = s.slice(s.indexOf('Commands:'), s.findIndex((l) => l.startsWith('Pasting never sends')));
  assert.ok(help.length > 30, help.join('\n'));
  for (const line of help) assert.ok(textWidth(line) <= 60, `wider than 60: ${JSON.stringify(line)}`);
  const keys = help.slice(help.indexOf('Keys:') + 1).filter((l) => l.startsWith('  '));
  const column = keys[0]!.indexOf('send');
  const wrapped = keys.filter((l) => /^ {4}/.test(l) && !/^ {4}\S/.test(l));
  assert.ok(wrapped.length > 3, 'some descriptions wrap');
  for (const line of wrapped) assert.equal(line.length - line.trimStart().length, column, `hangs under the descriptions: ${JSON.stringify(line)}`);
  assert.ok(help.every((l) => l === 'Commands:' || l === 'Keys:' || l.startsWith('  ')), `nothing wraps back to column 0:\n${help.join('\n')}`);
});

test('/help names every key the decoder knows (word moves, kill keys, Home/End, history, Ctrl+G, Ctrl+J, paste…)', async () => {
  const t = await renderChat(double.url, { columns: 200 });
  await t.send('/help');
  await t.waitForText('Keys:');
  const s = t.screen();
  for (const b of KEY_BINDINGS) assert.ok(s.includes(b.label), `/help lacks ${b.label}`);
  assert.match(s, /Pasting never sends/);
  assert.match(s, /\\ then Enter/);
});

test('every key the decoder turns bytes into is described in the key help, and decodes as listed', () => {
  const described = new Set(KEY_HELP.flatMap((h) => h.keys));
  for (const b of KEY_BINDINGS) {
    assert.ok(described.has(b.key), `${b.label} (${b.key}) is not in KEY_HELP`);
    for (const seq of b.sends) assert.deepEqual(new KeyDecoder().push(seq), [{ name: b.key }], `${JSON.stringify(seq)} is ${b.label}`);
  }
  for (const k of described) assert.ok(KEY_BINDINGS.some((b) => b.key === k), `KEY_HELP describes ${k}, which no key sends`);
});

test('the manual\'s key table is the one the key list gives', () => {
  const manual = fs.readFileSync(path.join(REPO, 'docs', 'manual.md'), 'utf8');
  assert.ok(manual.includes(keyHelpMarkdown()), `docs/manual.md should hold:\n${keyHelpMarkdown()}`);
});
