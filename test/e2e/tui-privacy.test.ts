import assert from 'node:assert/strict';
import { test } from 'node:test';
import { waitFor } from '../support/cli.js';
import { builtSkip, paneFixture, TmuxPane } from '../support/tmux.js';

// In a real terminal: the privacy guard's question (warn mode, the default)
// is tidy at 60 to 100 columns, its keys never split from one another, and what is typed while it
// waits does not vanish without a word.
const skip = builtSkip;

const fixture = paneFixture();

// Four kinds: at 100 columns the old one-line prompt left `· e edit` alone on a row.
const QUESTION = 'Mrs Margaret Ellison, born 12/03/1951, MRN K4471902, 14 Elm Road SW1A 1AA: fit for discharge?';
const KINDS = ['1 name', '1 date', '1 record/account number', '1 address/postcode'];
const CHOICES = 'Enter send anyway · r redact · e edit';

function open(width: number): TmuxPane {
  fixture.double.chat.defaultScript = { reasoning: [], content: ['Received.'] };
  const p = new TmuxPane([], { MEDCHAT_BASE_URL: fixture.double.url, MEDCHAT_API_KEY: 'sk-test-privacy-prompt' }, { width, height: 30 });
  fixture.panes.push(p);
  return p;
}

/** Type the question (it wraps in the box, so TmuxPane.send cannot see it whole) and press Enter until the guard asks. */
async function ask(p: TmuxPane): Promise<void> {
  p.type(QUESTION);
  await p.waitForText('fit for discharge?', 5000);
  for (let i = 0; i < 10 && !p.screen().includes('r redact'); i++) {
    p.press('Enter');
    await waitFor(() => p.screen().includes('r redact'), 1000, 'the guard to ask').catch(() => undefined);
  }
  await p.waitForText('r redact', 1000);
}

/** The screen's rows from the question on (the header and disclaimer left out). */
const fromQuestion = (screen: string) => {
  const rows = screen.split('\n');
  return rows.slice(rows.findIndex((r) => r.startsWith('› Mrs'))).filter((r) => r.trim());
};

for (const width of [100, 60]) {
  test(`at ${width} columns the privacy question is two tidy lines: what was found, then the keys together on one row`, { skip }, async () => {
    const p = open(width);
    await p.ready();
    const before = fixture.double.chat.requests.length;
    await ask(p);
    const rows = fromQuestion(p.screen());
    const keysRow = rows.filter((r) => r.includes('r redact'));
    assert.equal(keysRow.length, 1, `the keys on one row\n${rows.join('\n')}`);
    assert.ok(keysRow[0]!.includes(CHOICES), `all three keys together: ${keysRow[0]}`);
    assert.ok(!rows.some((r) => /^[│ ]*·? ?e edit[ │]*$/.test(r)), `no key alone on a row\n${rows.join('\n')}`);
    for (const r of rows) assert.ok([...r].length <= width, `no row wider than the window: ${r}`);
    // What was found: each count whole on a row with its kind ("1 record/account" never split from "number").
    const found = rows.slice(rows.findIndex((r) => r.startsWith('⚠ found')));
    const foundRows = found.slice(0, found.findIndex((r, i) => i > 0 && !r.startsWith('  ')));
    assert.ok(foundRows.length >= 1 && foundRows.length <= 2, `what was found: one or two rows\n${rows.join('\n')}`);
    for (const kind of KINDS) assert.ok(foundRows.some((r) => r.includes(kind)), `${kind} whole on a row\n${foundRows.join('\n')}`);
    if (width === 100) assert.equal(foundRows.length, 1, `one row at 100 columns: ${foundRows.join(' / ')}`);
    assert.equal(fixture.double.chat.requests.length, before, 'nothing sent while it asks');
    p.type('e');
    await p.waitForText('not sent: your question is back in the box');
  });
}

test('letters typed while the privacy question waits are not lost without a word: the box says it waits for a choice, and names what was not typed', { skip }, async () => {
  const p = open(80);
  await p.ready();
  const before = fixture.double.chat.requests.length;
  await ask(p);
  assert.match(p.screen(), /│ choose: Enter send anyway · r redact · e edit +│/, 'the box says it waits for a choice before anything is typed');
  p.type('what');
  await p.waitForText(/"what" not typed/);
  assert.match(p.screen(), /"what" not typed: the box is waiting for your choice/);
  assert.equal(fixture.double.chat.requests.length, before, 'a letter is no choice: nothing sent');
  p.type('r');
  await p.waitForText('Received.');
  assert.equal(fixture.double.chat.requests.length, before + 1);
  assert.doesNotMatch(p.screen(), /not typed/, 'the note goes with the question');
  // The box takes typing again.
  p.type('next');
  await p.waitForText('› next');
});
