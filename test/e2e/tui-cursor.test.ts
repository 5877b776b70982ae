import assert from 'node:assert/strict';
import { test } from 'node:test';
import { textWidth } from '../../src/core/text/width.js';
import { waitFor } from '../support/cli.js';
import { builtSkip, paneFixture, TmuxPane } from '../support/tmux.js';

// The terminal's own cursor sits on the input box's caret, so an input method (Chinese, Japanese)
// opens its candidate window where the user types. Checked in a real terminal: tmux's cursor.
const skip = builtSkip;

const fixture = paneFixture();

function pane(width = 60): TmuxPane {
  const p = new TmuxPane([], { MEDCHAT_BASE_URL: fixture.double.url, MEDCHAT_API_KEY: 'sk-test-cursor' }, { width, height: 24 });
  fixture.panes.push(p);
  return p;
}

const visible = (p: TmuxPane) => p.tmux('capture-pane', '-p', '-t', p.name).split('\n');
const cursor = (p: TmuxPane) => {
  const [x, y, shown] = p.tmux('display-message', '-p', '-t', p.name, '#{cursor_x},#{cursor_y},#{cursor_flag}').trim().split(',').map(Number);
  return { x: x!, y: y!, shown: shown === 1 };
};

/** Waits until the cursor is shown right after `before` on the row that holds it (the caret). */
async function caretAfter(p: TmuxPane, before: string, what: string): Promise<void> {
  const expected = () => {
    const rows = visible(p);
    const y = rows.findIndex((r) => r.includes(before));
    return y < 0 ? undefined : { x: textWidth(rows[y]!.slice(0, rows[y]!.indexOf(before) + before.length)), y, shown: true };
  };
  await waitFor(() => JSON.stringify(cursor(p)) === JSON.stringify(expected()), 5000, () => `${what}: the cursor at ${JSON.stringify(expected())}, not ${JSON.stringify(cursor(p))}\n${visible(p).join('\n')}`);
}

test('the terminal cursor is on the caret: after ASCII, after Chinese (two cells each), after moving, on a wrapped row', { skip }, async () => {
  const p = pane();
  await p.ready();
  await caretAfter(p, '│ › ', 'an empty box');
  p.type('dose');
  await caretAfter(p, '│ › dose', 'ASCII');
  p.type('退烧药');
  await caretAfter(p, '│ › dose退烧药', 'CJK');
  p.press('Left');
  await caretAfter(p, '│ › dose退烧', 'one character left (two cells)');
  p.press('C-a');
  await caretAfter(p, '│ › ', 'Ctrl+A');
  p.press('C-e', 'C-u');
  // Longer than the box (60 columns, 53 cells of text a row): the caret goes down with the text.
  const long = '剂量'.repeat(20) + ' then';
  p.type(long);
  await caretAfter(p, '量 then', 'a draft wrapped to a second row');
  const rows = visible(p);
  assert.ok(rows.some((r) => r.startsWith('│ › 剂量')) && rows.some((r) => /^│ {3}\S/.test(r)), `the draft on two rows\n${rows.join('\n')}`);
  p.press('C-d');
  p.press('C-u', 'C-d');
  const end = await p.exited();
  assert.equal(end.code, 0);
  assert.equal(end.cursorVisible, true, 'the cursor is visible again after exit');
});

test('while an answer streams the caret keeps the cursor (with a draft), and the answer is drawn intact around it', { skip }, async () => {
  const words = 'Paracetamol is taken every four to six hours, at most four grams a day for adults. '.split(/(?<= )/);
  fixture.double.chat.enqueue({ reasoning: [], content: [...words, '\n\n', ...words, '\n\n', ...words], paceMs: 30 });
  const p = pane();
  await p.ready();
  await p.send('/think off');
  await p.send('dose?');
  await p.waitForText('Paracetamol is taken');
  p.type('and for 退烧');
  await caretAfter(p, '› and for 退烧', 'a draft typed while the answer streams');
  await p.waitForText(/\d+ in · \d+ out/);
  await caretAfter(p, '│ › and for 退烧', 'after the answer');
  const screen = p.screen();
  assert.equal(screen.split('Paracetamol is taken every four to six hours').length, 4, `each paragraph once, none torn\n${screen}`);
});
