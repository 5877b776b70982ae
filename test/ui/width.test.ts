import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startServiceDouble, type ServiceDouble } from '../../src/stand-in/index.js';
import * as ed from '../../src/ui/text/editor.js';
import { clusterEnd, clusterStart, clusters, indexAtWidth, pinClusters, stripAnsi, textWidth, wrapLine, wrapText } from '../../src/core/text/width.js';
import { shorten } from '../../src/ui/text/format.js';
import { Prng, seedFromEnv } from '../support/prng.js';
import { renderChat } from '../support/tui.js';

test('one glyph, the cells medchat reserves for it: the widest any terminal draws it in (ZWJ sequences, skin tones, VS16), marks 0, CJK 2, flags 2', () => {
  const cases: Array<[string, number]> = [
    ['dose', 4],
    ['👨‍👩‍👧', 6], // family ZWJ sequence: one glyph in tmux and VTE, three (2+2+2) in xterm, urxvt and GNU screen
    ['👩‍⚕️', 3], // 2 + 1 (⚕ without VS16 is narrow in wcwidth)
    ['✅', 2],
    ['⚠️', 2], // with VS16: 1 in xterm, urxvt, screen, tmux and VTE, 2 in newer terminals
    ['⚠', 1], // without: text presentation
    ['กั', 1], // Thai consonant + vowel mark
    ['ครั้ง', 3],
    ['दूध', 2], // Devanagari with a vowel sign below
    ['中文', 4],
    ['🇫🇷', 2],
    ['1️⃣', 2],
    ['👍🏽', 4], // the skin tone drawn as a swatch of its own in xterm, urxvt, screen, tmux and VTE
    ['नमस्ते', 4], // the conjunct स्ते: 2 where each consonant takes a cell (xterm, urxvt, screen)
    ['e\u0301', 1], // e + combining acute
    ['\x1b[1mbold\x1b[22m', 4],
    ['\x1b]8;;https://example.org\x1b\\link\x1b]8;;\x1b\\', 4],
    ['─│┌', 3],
  ];
  for (const [s, w] of cases) assert.equal(textWidth(s), w, JSON.stringify(s));
  assert.deepEqual(clusters('a👨‍👩‍👧🇫🇷e\u0301'), ['a', '👨‍👩‍👧', '🇫🇷', 'e\u0301']);
});

test('cluster edges: a caret moves over a whole glyph, in both directions', () => {
  const text = 'a👨‍👩‍👧b🇫🇷e\u0301\r\nx';
  const stops: number[] = [0];
  for (let i = 0; i < text.length; ) stops.push((i = clusterEnd(text, i)));
  assert.deepEqual(stops, [0, 1, 9, 10, 14, 16, 18, 19]);
  const back: number[] = [text.length];
  for (let i = text.length; i > 0; ) back.push((i = clusterStart(text, i)));
  assert.deepEqual(back, [...stops].reverse());
  assert.equal(indexAtWidth('中文abc', 3), 2); // no glyph is cut: the column after 文
  assert.equal(indexAtWidth('中文abc', 5), 3);
});

test('editor: Left, Right, Backspace and Delete take a whole emoji sequence or letter with its marks', () => {
  let s = ed.fromText('x👨‍👩‍👧ครั้ง');
  s = ed.backspace(s); // ง
  s = ed.backspace(s); // รั้ (a consonant with two marks)
  assert.equal(s.text, 'x👨‍👩‍👧ค');
  s = ed.left(ed.left(s));
  assert.equal(s.cursor, 1);
  s = ed.deleteForward(s);
  assert.equal(s.text, 'xค');
  // Up/Down keep the column in cells: under the 3rd cell of 中文x is x's neighbour, not a half of 文.
  const two = ed.fromText('中文xyz\nabcdefg');
  const up = ed.verticalMove({ ...two, cursor: two.text.length - 3 }, -1)!; // col 4 of line 2
  assert.equal(up.cursor, 2); // after 文 (4 cells)
  assert.equal(ed.position(up).col, 4);
});

/** Random lines with what moves breaks: long words, runs of spaces, colours, emoji, CJK, marks. */
function sampleLine(rnd: Prng): string {
  const words = ['dose', 'paracetamol', 'every', 'four', 'hours', 'x'.repeat(rnd.int(20, 70)), '退烧药', '✅', '⚠️', '👨‍👩‍👧', '🇫🇷🇩🇪', 'ครั้ง', 'दूध', '\x1b[1mbold\x1b[22m', '\x1b[36m•\x1b[39m'];
  const spaces = [' ', ' ', ' ', '  ', '   '];
  let s = '';
  for (let n = rnd.int(1, 30); n > 0; n--) s += rnd.pick(words) + rnd.pick(spaces);
  return rnd.chance(0.5) ? s.trimEnd() : s;
}

test('wrapped lines never start with a space, fit the width, and keep every word (seeded)', () => {
  const seed = seedFromEnv();
  console.log(`width: MEDCHAT_SEED=${seed}`);
  const rnd = new Prng(seed);
  for (let i = 0; i < 1000; i++) {
    const line = sampleLine(rnd);
    const indent = rnd.pick(['', '  ', '    ']);
    const width = rnd.int(4 + indent.length, 60);
    const rows = wrapLine(line, width, indent);
    const what = `MEDCHAT_SEED=${seed} case ${i}: ${JSON.stringify(line)} at ${width}, indent ${JSON.stringify(indent)}`;
    rows.slice(1).forEach((r) => {
      const plain = stripAnsi(r);
      assert.ok(plain.startsWith(indent) && !/^\s/.test(plain.slice(indent.length)), `${what}: ${JSON.stringify(r)}`);
    });
    // (A row may be wider only when it holds one glyph wider than the room after the indent: it cannot be cut.)
    const oneGlyph = (r: string) => clusters(stripAnsi(r).slice(indent.length)).length === 1;
    for (const r of rows) assert.ok(textWidth(r) <= width || oneGlyph(r), `${what}: ${JSON.stringify(r)} too wide`);
    const words = (s: string) => stripAnsi(s).split(/\s+/).join('');
    assert.equal(words(rows.join('')), words(line), what);
  }
});

let double: ServiceDouble;
before(async () => {
  double = await startServiceDouble();
});
after(async () => {
  await double.close();
});

test('a question or message longer than the screen wraps without a space at the start of a line', async () => {
  // 98 cells of word after "› " fill the 100-column line exactly: Ink's own wrapping began the next line with the space.
  const question = 'w'.repeat(98) + ' next words of the question';
  double.chat.enqueue({ reasoning: [], content: ['Fine.'] });
  const t = await renderChat(double.url);
  await t.send(question);
  await t.idle();
  const lines = t.screen().split('\n');
  const at = lines.findIndex((l) => l === '› ' + 'w'.repeat(98));
  assert.ok(at >= 0, t.screen());
  assert.equal(lines[at + 1], '  next words of the question');
  t.ui.unmount();
  assert.equal(wrapText('w'.repeat(20) + ' next', 20), 'w'.repeat(20) + '\nnext');
});

test('a wrapped link (OSC 8) or colour is closed at the end of each row and opened again on the next', () => {
  const open = '\x1b]8;;https://example.org/dosing\x1b\\';
  const close = '\x1b]8;;\x1b\\';
  const rows = wrapLine(`see ${open}\x1b[4mthe dosing guide for adults${close}\x1b[24m today`, 16);
  assert.deepEqual(rows.map(stripAnsi), ['see the dosing', 'guide for adults', 'today']);
  assert.ok(rows[0]!.endsWith(close + '\x1b[0m'), JSON.stringify(rows[0]));
  assert.ok(rows[1]!.startsWith('\x1b[4m' + open), JSON.stringify(rows[1]));
  for (const r of rows) assert.ok(textWidth(r) <= 16);
});

test('a glyph terminals draw in different widths is written pinned: its cells blanked, then the cursor put after them; other text as it is', () => {
  const SAVE = '\x1b7';
  const RESTORE = '\x1b8';
  assert.equal(pinClusters('below 150 · 中文 ครั้ง 🇫🇷 ✅'), 'below 150 · 中文 ครั้ง 🇫🇷 ✅');
  assert.equal(pinClusters('Warn ⚠️ing'), `Warn ${SAVE}  ${RESTORE}⚠️${RESTORE}\x1b[2Cing`);
  assert.equal(pinClusters('\x1b[1m👍🏽\x1b[22m lab'), `\x1b[1m${SAVE}    ${RESTORE}👍🏽${RESTORE}\x1b[4C\x1b[22m lab`);
  // Escape sequences and line ends are kept whole; a sequence is never taken for text.
  const mixed = '\x1b]8;;https://e.org/⚠️\x1b\\link\x1b]8;;\x1b\\\r\n👩🏽‍🔬 x\x1b[2K';
  const pinned = pinClusters(mixed);
  assert.ok(pinned.startsWith('\x1b]8;;https://e.org/⚠️\x1b\\link\x1b]8;;\x1b\\\r\n\x1b7      \x1b8👩🏽‍🔬\x1b8\x1b[6C x\x1b[2K'), JSON.stringify(pinned));
  // Taking the pins out gives back exactly what was written.
  const unpin = (s: string) => s.replace(/\x1b7 *\x1b8([^\x1b]*)\x1b8\x1b\[\d+C/g, '$1');
  for (const s of ['⚠️⚠️⚠️', 'a❤️b👍🏽c1️⃣dनमस्तेe', mixed]) assert.equal(unpin(pinClusters(s)), s);
});

test('Chinese wraps between characters, filling each row, and closing punctuation never starts a row', () => {
  const line = 'medchat 提供医学信息，不作诊断。医疗决策请咨询医生；紧急情况请拨打当地急救电话。';
  for (const width of [80, 60, 40, 21]) {
    const rows = wrapLine(line, width);
    assert.equal(rows.join('').replace(/\s/g, ''), line.replace(/\s/g, ''), `nothing lost at ${width}`);
    for (const r of rows) assert.ok(textWidth(r) <= width, `${r} within ${width}`);
    for (const r of rows.slice(1)) assert.doesNotMatch(r, /^[，。；：、）]/, rows.join(' / '));
    // "medchat" keeps its row: the Chinese after it is not moved whole to the next one.
    if (width >= 21) assert.ok(rows[0]!.startsWith('medchat 提供'), rows.join(' / '));
    for (const r of rows.slice(0, -1)) assert.ok(textWidth(r) >= width - 3, `a full row at ${width}: ${rows.join(' / ')}`);
  }
});

test('a Chinese question shortened to fit (a queued line, what Esc took back) takes no more cells than it is given', () => {
  const question = '下一个问题：阿莫西林的成人常用剂量是多少？';
  for (let cells = 1; cells <= textWidth(question); cells++) {
    const s = shorten(question, cells);
    assert.ok(textWidth(s) <= cells, `${s} (${textWidth(s)}) within ${cells}`);
    assert.ok(textWidth(s) >= cells - 2, `${s} uses the room it has (${cells})`);
  }
});

test('mixed Chinese and Latin wraps after a closing mark inside a Latin run, and an opening mark never ends a row', () => {
  const rows = wrapLine('结束时输出一个 JSON 对象：id、model、content、reasoning、usage、finish_reason', 40);
  assert.ok(rows.every((r) => textWidth(r) <= 40), rows.join('\n'));
  assert.ok(!rows.some((r) => /finish_$/.test(r)), `a word cut at the width: ${rows.join(' | ')}`);
  assert.equal(rows.join('').replace(/ /g, ''), '结束时输出一个JSON对象：id、model、content、reasoning、usage、finish_reason');
  for (const width of [10, 12, 15, 21, 30]) {
    const wrapped = wrapLine('redact（发送占位符，回答中再填回原值）、off（默认：配置项 privacy，warn）', width);
    assert.ok(!wrapped.some((r) => /[（「『“‘]$/.test(r)), `a row ends with an opening mark at ${width}: ${wrapped.join(' | ')}`);
    assert.ok(!wrapped.slice(1).some((r) => /^[，。、；：！？）」』”’]/.test(r)), `a row starts with a closing mark at ${width}: ${wrapped.join(' | ')}`);
  }
});
