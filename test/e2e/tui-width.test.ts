import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { builtSkip, killTmuxServer, paneFixture, TmuxPane, trackTmuxServer } from '../support/tmux.js';

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

/** The cells tmux gives each glyph (up to 4): printed 10 times from column 0 of a row that has `|` at column 40. */
function tmuxWidths(glyphs: string[]): Map<string, number> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'medchat-tmux-probe-'));
  const sock = `medchat-probe-${process.pid}`;
  trackTmuxServer(sock);
  try {
    const file = path.join(dir, 'probe.txt');
    fs.writeFileSync(file, glyphs.map((g, i) => `\x1b[${i + 1};41H|\x1b[${i + 1};1H${g.repeat(10)}`).join('') + '\x1b[99;1H');
    const env = { ...process.env, LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8' };
    execFileSync('tmux', ['-L', sock, '-f', '/dev/null', 'new-session', '-d', '-x', '80', '-y', String(glyphs.length + 2), `cat '${file}'; sleep 30`], { env });
    let screen = '';
    const deadline = Date.now() + 5000;
    while (Date.now() < deadline && (screen.match(/\|/g)?.length ?? 0) < glyphs.length) {
      spawnSync('sleep', ['0.05']);
      screen = execFileSync('tmux', ['-L', sock, 'capture-pane', '-p'], { encoding: 'utf8', env });
    }
    const widths = new Map<string, number>();
    screen.split('\n').forEach((row, i) => {
      const g = glyphs[i];
      if (g === undefined || !row.startsWith(g.repeat(10))) return;
      const gap = row.slice(g.length * 10).indexOf('|');
      if (gap >= 0) widths.set(g, (40 - gap) / 10);
    });
    return widths;
  } finally {
    killTmuxServer(sock);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const fixture = paneFixture();

test('a table with emoji, CJK and Thai lines up on a real terminal (tmux): every border in one column', { skip }, async (t) => {
  const expected = new Map(CANDIDATES.flatMap(([word, cells]) => glyphsOf(word).map((g, i) => [g, cells[i]!] as const)));
  const glyphs = [...expected.keys()];
  const probed = tmuxWidths(glyphs);
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
