import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';
import { cellWidths } from '../support/terminals.js';
import { builtSkip, paneFixture, TmuxPane } from '../support/tmux.js';

// A Markdown table with emoji, CJK and Thai, answered to the real binary in tmux: its borders line up on the screen
// as tmux counts cells. Terminals differ on some glyphs (tmux 3.3a draws `⚠️` in 1 cell and `👍🏽` in 4, newer ones
// both in 2), so tmux is asked first how wide each glyph is, and the table is made of words where it agrees.
const skip = builtSkip;

/** Words for the table's cells, with the cells each glyph takes (the answer medchat must give, not asked of it). */
const CANDIDATES: Array<[string, number[]]> = [
  ['✅', [2]],
  ['💊', [2]],
  ['🫁', [2]],
  ['👩‍⚕️', [2]],
  ['👨‍👩‍👧', [2]],
  ['🇫🇷', [2]],
  ['⚠️', [2]],
  ['👍🏽', [2]],
  ['中文', [2, 2]],
  ['ยาแก้ปวด', [1, 1, 1, 1, 1, 1, 1]],
  ['ครั้ง', [1, 1, 1]],
];
const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
const glyphsOf = (s: string) => Array.from(segmenter.segment(s), (x) => x.segment);
const plainGlyph = (g: string) => /^[\x20-\x7e─┌┬┐│├┼┤└┴┘]$/.test(g);

const fixture = paneFixture();

test('a table with emoji, CJK and Thai lines up on a real terminal (tmux): every border in one column', { skip }, async (t) => {
  const expected = new Map(CANDIDATES.flatMap(([word, cells]) => glyphsOf(word).map((g, i) => [g, cells[i]!] as const)));
  const glyphs = [...expected.keys()];
  const probed = (await cellWidths(glyphs, ['tmux'])).get('tmux')!;
  const agrees = (g: string) => probed.get(g) === expected.get(g);
  const agreed = CANDIDATES.map(([word]) => word).filter((w) => glyphsOf(w).every(agrees));
  const differ = glyphs.filter((g) => !agrees(g)).map((g) => `${g}: tmux ${probed.get(g)}, a current terminal ${expected.get(g)}`);
  if (differ.length) t.diagnostic(`tmux counts these differently, left out: ${differ.join('; ')}`);
  const emoji = agreed.filter((g) => /\p{Extended_Pictographic}|\p{Regional_Indicator}/u.test(g));
  if (emoji.length < 3) return t.skip(`tmux ${execFileSync('tmux', ['-V'], { encoding: 'utf8' }).trim()} agrees with medchat on only ${emoji.length} emoji`);
  const word = (i: number) => agreed[i % agreed.length]!;
  const table = [
    '| Drug | Dose | Note |',
    '| --- | --- | --- |',
    ...Array.from({ length: 5 }, (_, i) => `| ${word(i)} drug ${i} | ${word(i + 1)}${word(i + 2)} ${i + 1}00 mg | ${word(i + 3)} note |`),
  ].join('\n');

  fixture.double.chat.enqueue({ reasoning: [], content: table.split(/(?<=\n)/) });
  const p = new TmuxPane([], { MEDCHAT_BASE_URL: fixture.double.url, MEDCHAT_API_KEY: 'sk-test-width' }, { width: 80, height: 30 });
  fixture.panes.push(p);
  await p.ready();
  await p.send('doses?');
  await p.waitForText(/\d+ in · \d+ out/);
  const screen = p.tmux('capture-pane', '-p', '-t', p.name); // not joined: each row as tmux shows it
  const lines = screen.split('\n');
  const first = lines.findIndex((l) => l.startsWith('┌'));
  const rows = lines.slice(first, lines.findIndex((l) => l.startsWith('└')) + 1);
  assert.equal(rows.length, 9, screen);
  /** The columns of the border glyphs in a row, counted with tmux's own widths. */
  const borders = (row: string) => {
    const cols: number[] = [];
    let col = 0;
    for (const g of glyphsOf(row)) {
      if (/^[┌┬┐│├┼┤└┴┘]$/.test(g)) cols.push(col);
      const w = plainGlyph(g) ? 1 : probed.get(g);
      assert.ok(w !== undefined, `no tmux width for ${JSON.stringify(g)} in ${row}`);
      col += w;
    }
    return cols;
  };
  const top = borders(rows[0]!);
  assert.equal(top.length, 4, rows[0]);
  for (const row of rows) assert.deepEqual(borders(row), top, `${row}\n--- screen ---\n${screen}`);
});
