import assert from 'node:assert/strict';
import { test } from 'node:test';
import chalk from 'chalk';
import { render } from 'ink-testing-library';
import { createElement } from 'react';
import { FrameWriter } from '../../src/ui/frames/frame-writer.js';
import { Input } from '../../src/ui/components/Input.js';
import { LiveRows } from '../../src/ui/frames/live-rows.js';
import { SCREEN, itemLines } from '../../src/ui/text/printed-lines.js';
import type { LiveTurn } from '../../src/ui/controller/chat-controller.js';
import { clusterEnd, clusters, stripAnsi, textWidth } from '../../src/core/text/width.js';
import { Prng, seedFromEnv } from '../support/prng.js';
import { XtermScreen } from '../support/xterm.js';

// What a real terminal (xterm.js with grapheme clusters) shows when medchat streams text in
// every script a clinician may meet. test/support/vt.ts counts UTF-16 units and could not see
// glyphs drawn in the wrong column; this terminal counts cells.

const SCRIPTS = [
  '✅ Take it with food. ⚠️ Not with alcohol. 👩‍⚕️ Ask your doctor; 👨‍👩‍👧 family history matters.',
  'Emoji: 🫁 lungs, 💊 pills, 🩺 check-up, ❤️ heart, 👍🏽 fine, 1️⃣ first.',
  'Thai: ยาแก้ปวด วันละสองครั้ง หลังอาหาร ห้ามเกินขนาด',
  'Hindi: दूध में सुबह लें, खुद न लें',
  'Chinese: 每天两次，饭后服用。不要空腹服用，也不要与酒精同服。',
  'Flags: 🇫🇷 🇩🇪 🇯🇵 🇮🇳 🇹🇭 travel vaccines; Korean 한국어; café naïve ½ → done.',
  'A long word: ' + '💊'.repeat(30) + '👨‍👩‍👧‍👦'.repeat(8) + '🇫🇷'.repeat(12) + 'ยา'.repeat(20),
];

const SEED = seedFromEnv();
console.log(`terminal-width: MEDCHAT_SEED=${SEED}`);

/**
 * `row` as the terminal shows it, glyph by glyph: every visible glyph at the column medchat reserved for it. A
 * cluster terminals draw in different widths (⚠️, 👍🏽, a ZWJ sequence) gets the widest of them, pinned: a terminal that
 * draws it narrower shows blank cells after it, never a later glyph moved.
 */
function assertRow(term: XtermScreen, y: number, row: string, what: string): void {
  const text = stripAnsi(row).trimEnd();
  const expected: Array<{ text: string; col: number }> = [];
  let col = 0;
  for (const c of clusters(text)) {
    if (c !== ' ') expected.push({ text: c, col });
    col += textWidth(c);
  }
  const shown = term.glyphs(y).filter((g) => g.text !== ' ' && g.text !== '');
  assert.deepEqual(shown.map((g) => ({ text: g.text, col: g.col })), expected, `${what}: row ${y} ${JSON.stringify(text)}`);
  assert.ok(textWidth(text) <= term.cols, `${what}: row ${y} fits the width`);
}

/** A row's glyphs without its blanks (assertRow checks where each glyph is). */
const words = (l: string) => l.replace(/ +/g, '');

/** Pieces of `text` as a service sends them: cut at random code points, so a ZWJ sequence or a flag may arrive in parts. */
function chunks(text: string, rnd: Prng): string[] {
  const cps = Array.from(text);
  const out: string[] = [];
  for (let i = 0; i < cps.length; ) {
    const n = rnd.int(1, 8);
    out.push(cps.slice(i, i + n).join(''));
    i += n;
  }
  return out;
}

const LIVE = '\n<live>\n\n╭ input ╮\nfooter\n';

for (const cols of [80, 41, 23]) {
  test(`streamed through the frame writer at ${cols} columns, every glyph of every frame lands where medchat measured it`, async () => {
    for (const [n, script] of SCRIPTS.entries()) {
      const rnd = new Prng(SEED).fork(n * 100 + cols);
      const term = new XtermScreen(cols);
      let sent = '';
      const live: LiveTurn = { phase: 'answer', answerTail: '' } as LiveTurn;
      const rows = new LiveRows(() => live, () => cols);
      rows.width = cols;
      rows.maxRows = 30;
      const marker = rows.marker;
      const w = new FrameWriter({ write: (d: string) => term.write(d) }, () => cols);
      w.setLiveRows(rows);
      w.write('› dose?\n' + LIVE.replace('<live>', marker));
      w.flush();
      for (const piece of chunks(cols === 80 ? script + ' ' + script : script, rnd)) {
        sent += piece;
        live.answerTail = sent;
        w.repaint();
        await term.settled();
        const expected = ['› dose?', '', ...rows.rows(), '', '╭ input ╮', 'footer'];
        const what = `script ${n} at ${cols} columns after ${JSON.stringify(sent.slice(-12))} (MEDCHAT_SEED=${SEED})`;
        assert.deepEqual(term.lines().map(words), expected.map((l) => words(stripAnsi(l))), what);
        expected.forEach((row, y) => assertRow(term, y, row, what));
      }
      term.dispose();
    }
  });
}

test('a word longer than the width is cut between glyphs, never inside one', () => {
  const word = '👨‍👩‍👧‍👦🇫🇷' + '⚠️✅'.repeat(10) + 'ยาแก้ปวด';
  for (const width of [20, 21, 23]) {
    const rows = new LiveRows(() => ({ phase: 'answer', answerTail: word }) as LiveTurn, () => width);
    rows.width = width;
    const got = rows.rows();
    assert.equal(got.join(''), word);
    const whole = new Set(clusters(word));
    for (const r of got) {
      assert.ok(textWidth(r) <= width, r);
      for (const c of clusters(r)) assert.ok(whole.has(c), `${JSON.stringify(c)} is part of a glyph (width ${width})`);
    }
  }
});

test('Markdown tables with emoji, CJK, Thai and flags line up: every border in one column', async () => {
  const table = [
    '| Drug | Dose | Note |',
    '| --- | --- | --- |',
    '| 💊 Paracetamol | 500 mg ✅ | with food 🍽️ |',
    '| ⚠️ Ibuprofen | 200 mg | not with 🍷 |',
    '| 布洛芬 | 两次 | 饭后 |',
    '| ยาแก้ปวด | วันละ 2 | 🇹🇭 |',
    '| 👩‍⚕️ ask | 👨‍👩‍👧 family | दूध में |',
  ].join('\n');
  for (const cols of [80, 60]) {
    const term = new XtermScreen(cols);
    const w = new FrameWriter({ write: (d: string) => term.write(d) }, () => cols);
    w.setLiveRows({ marker: '<live>', rows: () => [''] });
    w.write('› doses?\n' + LIVE);
    w.flush();
    const printed = itemLines({ id: 'a', kind: 'answer', text: table }, cols, SCREEN);
    assert.equal(w.print(printed), true);
    await term.settled();
    const lines = term.lines();
    const top = lines.findIndex((l) => l.startsWith('┌'));
    assert.ok(top > 0, lines.join('\n'));
    const borders = term.columnsOf(top, '┬').concat(term.columnsOf(top, '┐'));
    assert.equal(borders.length, 3);
    for (let y = top; y < top + 9; y++) {
      const ch = lines[y]!.startsWith('│') ? '│' : lines[y]!.startsWith('├') ? '┼' : lines[y]!.startsWith('└') ? '┴' : '┬';
      const right = lines[y]!.startsWith('│') ? '│' : lines[y]!.startsWith('├') ? '┤' : lines[y]!.startsWith('└') ? '┘' : '┐';
      const cols2 = [...term.columnsOf(y, ch).filter((c) => c > 0), ...(ch === right ? [] : term.columnsOf(y, right))];
      assert.deepEqual(cols2, borders, `row ${y} at ${cols} columns: ${lines[y]}`);
      assertRow(term, y, printed.find((p) => words(stripAnsi(p)) === words(lines[y]!)) ?? '', `table row ${y}`);
    }
    term.dispose();
  }
});

test('the input box with emoji, CJK and Thai typed in it: its right border stays in one column wherever the cursor is', async (t) => {
  const text = '✅ 👩‍⚕️ ask 医生 ครั้ง 🇫🇷 ok';
  const stops = [0];
  for (let i = 0; i < text.length; ) stops.push((i = clusterEnd(text, i)));
  const level = chalk.level;
  chalk.level = 1; // the block cursor is drawn in inverse video: with colour codes, as on a terminal
  t.after(() => {
    chalk.level = level;
  });
  for (const cursor of stops) {
    const ui = render(createElement(Input, { editor: { text, cursor, pastes: new Map() }, menu: undefined, busy: false, width: 40 }));
    const term = new XtermScreen(40, 10);
    term.write(ui.lastFrame() ?? '');
    await term.settled();
    const lines = term.lines();
    const right = term.columnsOf(0, '╮');
    assert.deepEqual(right, [39], lines.join('\n'));
    assert.deepEqual(term.columnsOf(1, '│'), [0, 39], `cursor at ${cursor}: ${lines[1]}`);
    assert.equal(lines[1]!.replace(/^│ › |\s*│$/g, ''), text);
    ui.unmount();
    term.dispose();
  }
});
