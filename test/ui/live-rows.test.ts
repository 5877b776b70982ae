import assert from 'node:assert/strict';
import { test } from 'node:test';
import { widenErase } from '../../src/ui/frames/frame-diff.js';
import { FrameWriter } from '../../src/ui/frames/frame-writer.js';
import { answerRows, thinkingRows, WrappedText } from '../../src/ui/text/live-rows.js';
import { VirtualTerminal } from '../support/vt.js';
import { inkErase } from '../support/ink-frames.js';
import { Prng, seedFromEnv } from '../support/prng.js';
import { LineWrap, wrapLine } from '../../src/core/text/width.js';

const erase = inkErase;

/** A text with everything that moves row breaks: long words, blank lines, tabs, wide characters. */
function sampleText(seed: number): string {
  let x = seed;
  const rnd = () => ((x = (x * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const words = ['dose', 'paracetamol', 'every', 'four', 'hours', 'x'.repeat(70), '\t', '退烧药', '', '\n', '\n\n', ' '];
  let s = '';
  // 1,500 characters: some 40 rows at 50 columns, more than the 12 shown, with every kind of break.
  while (s.length < 1500) s += words[Math.floor(rnd() * words.length)] + (rnd() < 0.8 ? ' ' : '');
  return s;
}

test('the streaming rows, updated chunk by chunk, are exactly the rows of the whole text wrapped afresh', () => {
  // Checked against the rows made afresh at every step: the check costs the square of the length,
  // so several shorter texts (more variety for the time) rather than one long one.
  for (const seed of [1, 2, 3, 4]) {
    const text = sampleText(seed);
    const answer = new WrappedText(false);
    const thinking = new WrappedText(true);
    for (let end = 0; end <= text.length; end += 1 + (end % 7)) {
      const part = text.slice(0, end);
      assert.deepEqual(answerRows(part, 50, 12, answer), answerRows(part, 50, 12), `answer at ${end}`);
      assert.deepEqual(thinkingRows(part, 50, thinking), thinkingRows(part, 50), `thinking at ${end}`);
    }
    // A paragraph moved out (the text no longer extends the last one) or a new width: starts over.
    assert.deepEqual(answerRows('new para', 50, 12, answer), ['new para']);
    assert.deepEqual(answerRows(text, 30, 12, answer), answerRows(text, 30, 12));
  }
});

test('a line that never breaks, streamed in random pieces: every frame\'s rows are the rows of the whole text wrapped afresh (only the new end is wrapped)', (t) => {
  const seed = seedFromEnv();
  const words = ['The', 'patient', 'is', 'stable;', ' ', '   ', '\t', '退烧药', 'x'.repeat(45), 'https://example.org/' + 'p'.repeat(60), 'é', ''];
  let frames = 0;
  for (let n = 0; n < 12; n++) {
    const r = new Prng(seed).fork(n);
    const width = r.int(20, 90);
    const max = r.int(1, 15);
    const newlines = r.chance(0.3);
    let text = r.chance(0.5) ? '' : r.pick(['  ', '\n', 'intro\n\n']);
    const answer = new WrappedText(false);
    const thinking = new WrappedText(true);
    const keyed = new WrappedText(false);
    while (text.length < 1200) {
      for (let k = r.int(1, 4); k > 0; k--) text += r.pick(words) + (r.chance(0.7) ? ' ' : '') + (newlines && r.chance(0.02) ? '\n' : '');
      // Pieces end anywhere, inside a word or a run of spaces too.
      const part = text.slice(0, text.length - r.int(0, 3));
      frames++;
      assert.deepEqual(answerRows(part, width, max, answer), answerRows(part, width, max), `seed ${seed} case ${n}: answer at ${part.length}`);
      assert.deepEqual(keyed.rows(part, width, max, 'turn'), new WrappedText(false).rows(part, width, max), `seed ${seed} case ${n}: keyed at ${part.length}`);
      assert.deepEqual(thinkingRows(part, width, thinking), thinkingRows(part, width), `seed ${seed} case ${n}: thinking at ${part.length}`);
    }
    // A new key starts over, whatever the text.
    assert.deepEqual(keyed.rows('next', width, max, 'turn/1'), ['next']);
  }
  t.diagnostic(`seed ${seed} (MEDCHAT_SEED to replay): 12 lines, ${frames} frames checked`);
});

test('LineWrap, fed a token at a time and peeked, gives wrapLine\'s rows', () => {
  const line = 'one two  three\tfour 退烧药 ' + 'y'.repeat(50) + ' five';
  for (const width of [8, 20, 33]) {
    const w = new LineWrap(width);
    w.add(line);
    assert.deepEqual(w.rows(), wrapLine(line, width));
    const p = new LineWrap(width);
    p.add('one two  ');
    assert.deepEqual(p.peek(line.slice('one two  '.length), 100), wrapLine(line, width));
    assert.deepEqual(p.peek('thr', 100), wrapLine('one two  thr', width).length > 1 ? wrapLine('one two  thr', width) : ['one two  thr'.trimEnd()]);
  }
});

test('the answer rows: leading blank lines dropped, wrapped to the width, the last rows only, never none', () => {
  assert.deepEqual(answerRows('\n\nfirst line\n\nsecond', 40, 10), ['first line', '', 'second']);
  assert.deepEqual(answerRows('', 40, 10), ['']);
  assert.deepEqual(answerRows('one two three four five six', 20, 10), ['one two three four', 'five six']);
  assert.deepEqual(answerRows('a\nb\nc\nd', 40, 2), ['c', 'd']);
  // The thinking preview: always four rows, blank lines dropped.
  assert.deepEqual(thinkingRows('first\n\n\nsecond\n', 40), ['first', 'second', '', '']);
});

test('Ink erases cover the rows the writer added to its last frame', () => {
  assert.equal(widenErase(erase(3) + 'x\n', 2), erase(5) + 'x\n');
  assert.equal(widenErase('\x1b[?2026h' + erase(2) + 'x\n', 1), '\x1b[?2026h' + erase(3) + 'x\n');
  assert.equal(widenErase('plain\n', 2), undefined);
});

test('the frame writer draws the live rows in place of the marker, and redraws them alone between Ink frames', () => {
  const vt = new VirtualTerminal(40);
  let sent = '';
  const w = new FrameWriter({ write: (d: string) => ((sent += d), vt.write(d)) }, () => 40);
  let rows = ['Paracetamol'];
  w.setLiveRows({ marker: '<live>', rows: () => rows });
  const ink = (d: string) => {
    w.write(d);
    w.flush();
  };
  const LIVE = '\n<live>\n\n╭ input ╮\nfooter\n'; // Ink counts 6 lines: its output and the one under it
  const screen = (printed: string[], r: string[], footer = 'footer') => [...printed, '', ...r, '', '╭ input ╮', footer];

  ink('› dose?\n' + LIVE); // the question printed (<Static>), then the live region
  assert.deepEqual(vt.lines(), screen(['› dose?'], ['Paracetamol']));

  // The text grows on its line: only the new end is sent.
  rows = ['Paracetamol 500 mg'];
  sent = '';
  w.repaint();
  assert.deepEqual(vt.lines(), screen(['› dose?'], rows));
  assert.ok(sent.endsWith(' 500 mg') && sent.length < 20, JSON.stringify(sent));

  // A second and third row: the input and footer move down.
  rows = ['Paracetamol 500 mg every four to six', 'hours'];
  w.repaint();
  assert.deepEqual(vt.lines(), screen(['› dose?'], rows));
  rows = ['Paracetamol 500 mg every four to six', 'hours, at most', 'four grams a day.'];
  w.repaint();
  assert.deepEqual(vt.lines(), screen(['› dose?'], rows));

  // Ink's next frame erases its own 6 lines plus the 2 the rows added; nothing is left behind.
  ink(erase(6) + LIVE.replace('footer', 'footer · 3 tok/s'));
  assert.deepEqual(vt.lines(), screen(['› dose?'], rows, 'footer · 3 tok/s'));

  // A paragraph printed above (Ink's <Static>: erase, print, live region again), and fewer rows.
  rows = ['next'];
  ink(erase(6) + '\nParacetamol 500 mg.\n' + LIVE);
  assert.deepEqual(vt.lines(), screen(['› dose?', '', 'Paracetamol 500 mg.'], ['next']));

  // The answer ends: Ink's frame has no marker, and repaint has nothing to draw.
  ink(erase(6) + '\nnext\n\n╭ input ╮\nfooter\n');
  sent = '';
  w.repaint();
  assert.equal(sent, '');
  assert.deepEqual(vt.lines(), screen(['› dose?', '', 'Paracetamol 500 mg.'], ['next']));
});

test('finished paragraphs are printed above the live region by the writer, as Ink would print them', () => {
  const vt = new VirtualTerminal(40);
  const w = new FrameWriter({ write: (d: string) => vt.write(d) }, () => 40);
  let rows = ['First paragraph, still', 'being written'];
  w.setLiveRows({ marker: '<live>', rows: () => rows });
  const LIVE = '\n<live>\n\n╭ input ╮\nfooter\n';
  w.write('› dose?\n'); // Ink: the <Static> output, then the live region, in separate writes
  w.write(LIVE);
  w.flush();
  rows = ['Second'];
  assert.equal(w.print(['', 'First paragraph, still being written.']), true);
  assert.deepEqual(vt.lines(), ['› dose?', '', 'First paragraph, still being written.', '', 'Second', '', '╭ input ╮', 'footer']);
  // Ink's next frame erases only its own region: the printed paragraph stays.
  rows = ['Second paragraph.'];
  w.write(erase(6) + LIVE.replace('footer', 'footer · done'));
  w.flush();
  assert.deepEqual(vt.lines(), ['› dose?', '', 'First paragraph, still being written.', '', 'Second paragraph.', '', '╭ input ╮', 'footer · done']);
  // Without a known frame (anything but Ink wrote last), it declines and Ink prints instead.
  w.write('\x1b[2J\x1b[H');
  w.flush();
  assert.equal(w.print(['', 'x']), false);
});
