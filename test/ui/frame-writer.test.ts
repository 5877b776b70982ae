import assert from 'node:assert/strict';
import { test } from 'node:test';
import { diffFrames, diffLines, parseFrame } from '../../src/ui/frames/frame-diff.js';
import { FrameWriter } from '../../src/ui/frames/frame-writer.js';
import { inkErase } from '../support/ink-frames.js';
import { Prng, seedFromEnv } from '../support/prng.js';
import { XtermScreen } from '../support/xterm.js';
import { pinClusters, textWidth } from '../../src/core/text/width.js';

const erase = inkErase;

test('a growing line is sent as just its new end; unchanged lines are skipped', () => {
  const out = diffLines(['answer so', 'footer', ''], ['answer so far', 'footer', ''], 80);
  assert.equal(out, '\x1b[2A\x1b[10G far\x1b[2B\r');
});

test('a new line is made with a newline; a shorter frame clears what is left below', () => {
  const grow = diffFrames(['a', 'footer', ''], ['a', 'b', 'footer', ''], 80);
  // A shorter line erases its whole row first: a terminal re-wrapping on a narrowing then counts the new text only.
  assert.equal(grow.bytes, '\x1b[A\x1b[2Kb\x1b[B\rfooter\n');
  assert.deepEqual(grow.cursor, { row: 3, col: 0 });
  const shrink = diffFrames(['a', 'b', 'footer', ''], ['a', 'footer', ''], 80);
  assert.equal(shrink.bytes, '\x1b[2A\x1b[2Kfooter\x1b[B\r\x1b[2K\x1b[J');
});

test('a changed row is erased first, then written: a row as wide as the window is never followed by an erase (xterm, urxvt and screen would blank its last cell)', () => {
  const full = 'call haematology if platelets are below 150';
  const d = diffFrames(['call pharmacy', 'footer', ''], [full, 'footer', ''], full.length);
  // (appended: only the new end is written, with nothing after it)
  assert.equal(diffFrames(['call haematology if platelets are below', 'footer', ''], [full, 'footer', ''], full.length).bytes, '\x1b[2A\x1b[40G 150');
  assert.equal(d.bytes, `\x1b[2A\x1b[2K${full}`);
  assert.equal(d.cursor.col, undefined); // waiting to wrap: where the cursor is next is not assumed
  assert.ok(!/\x1b\[0?K/.test(diffFrames(['x'.repeat(10), ''], ['y'.repeat(10), ''], 10).bytes));
});

test('Ink frames are recognised; anything else passes through untouched', () => {
  assert.deepEqual(parseFrame(erase(3) + 'a\nb\n'), { erase: 3, content: 'a\nb\n', sync: false });
  assert.equal(parseFrame('\x1b[2J\x1b[3J\x1b[H'), undefined);
  const sent: string[] = [];
  const w = new FrameWriter({ write: (d: string) => sent.push(d) }, () => 80);
  w.write('text one\nfooter\n');
  w.flush();
  w.write(erase(3) + 'text one more\nfooter\n');
  w.flush();
  // The (hidden) cursor stays after the new text...
  assert.equal(sent[1], '\x1b[2A\x1b[9G more');
  // ...so text appended to the same line costs only itself.
  w.write(erase(3) + 'text one more words\nfooter\n');
  w.flush();
  assert.equal(sent[2], ' words');
  // Anything else first gets the cursor back where Ink left it.
  w.write('\x1b[2J\x1b[H');
  w.flush();
  assert.equal(sent[3], '\x1b[2B\r\x1b[2J\x1b[H');
});

test('showing the cursor again puts it back under the output first', () => {
  const sent: string[] = [];
  const w = new FrameWriter({ write: (d: string) => sent.push(d) }, () => 80);
  w.write('abc\nfooter\n');
  w.flush();
  w.write(erase(3) + 'abcd\nfooter\n\x1b[?25h');
  w.flush();
  assert.equal(sent[1], '\x1b[2A\x1b[4Gd\x1b[2B\r\x1b[?25h');
  w.settle();
  assert.equal(sent.length, 2);
});

test('a write callback runs after that write has reached the terminal (Ink waits on it to exit)', async () => {
  const sent: string[] = [];
  const w = new FrameWriter({ write: (d: string) => sent.push(d) }, () => 80);
  const order: string[] = [];
  w.write('abc\n', () => order.push(`cb1 after ${sent.length}`));
  w.write('', 'utf8', () => order.push(`cb2 after ${sent.length}`));
  assert.deepEqual(order, []);
  await new Promise<void>((r) => setImmediate(r));
  assert.deepEqual(order, ['cb1 after 1', 'cb2 after 1']);
  assert.deepEqual(sent, ['abc\n']);
});

test('a printed line wider than the window is written in one piece, for the terminal to wrap; what follows lands on the rows after it', () => {
  const sent: string[] = [];
  const w = new FrameWriter({ write: (d: string) => sent.push(d) }, () => 20);
  w.setLiveRows({ marker: '<live>', rows: () => ['live'] });
  w.write('<live>\nfooter\n');
  w.flush();
  const url = 'https://example.org/' + 'a'.repeat(25); // 45 cells: three rows at 20 columns
  assert.equal(w.print(['', url, 'after']), true);
  const bytes = sent.slice(1).join('');
  assert.ok(bytes.includes(url), JSON.stringify(bytes)); // never cut by a newline or a cursor move
  // The frame that follows is drawn below the address's three rows (blank, three rows, "after", live, footer).
  sent.length = 0;
  w.write(erase(3) + '<live>\nfooter changed\n');
  w.flush();
  assert.equal(sent.join(''), '\x1b[A\x1b[7G changed'); // one row up from under the output: the footer's row
});

test('a row that changes in the middle (a clock ticking) is rewritten from the first glyph that differs, its colours replayed', () => {
  const dim = (s: string) => `\x1b[2m${s}\x1b[22m`;
  const d = diffFrames(['answer', dim('9s · 300 tokens │ Esc stop'), ''], ['answer', dim('10s · 320 tokens │ Esc stop'), ''], 80);
  // Too little in common at the start ("9s" vs "10s"): the whole row, erased first.
  assert.equal(d.bytes, `\x1b[A\x1b[2K${dim('10s · 320 tokens │ Esc stop')}`);
  const e = diffFrames(['answer', dim('thinking on · 12s · 300 tokens │ Esc stop'), ''], ['answer', dim('thinking on · 13s · 320 tokens │ Esc stop'), ''], 80);
  // The same start and the same end: only the middle, its styles closed after it.
  assert.equal(e.bytes, `\x1b[A\x1b[16G\x1b[2m3s · 32\x1b[0m`);
  const g = diffFrames(['answer', dim('12s · 320 tokens │ Esc stop'), ''], ['answer', dim('13s · 340 tokens │ Esc stop'), ''], 80);
  assert.equal(g.bytes, `\x1b[A\x1b[2G\x1b[2m3s · 34\x1b[0m`);
  // A glyph that changes by a mark is rewritten whole (é after e), never half.
  const f = diffFrames(['paracetamol dose e', ''], ['paracetamol dose e\u0301t', ''], 80);
  assert.ok(f.bytes.endsWith('e\u0301t'), JSON.stringify(f.bytes));
});

test('any row changed into any other through the diff looks exactly like the new row drawn afresh: glyphs, columns and styles (seeded)', async () => {
  const seed = seedFromEnv();
  console.log(`frame-writer: MEDCHAT_SEED=${seed}`);
  const rnd = new Prng(seed);
  const pieces = ['12s', '13s', ' · ', '320 tokens', '340 tokens', ' │ Esc stop', 'é', 'e\u0301', '中文', '⚠️', '👍🏽', 'ab', 'x', '  '];
  const styles = [(t: string) => t, (t: string) => `\x1b[2m${t}\x1b[22m`, (t: string) => `\x1b[1m${t}\x1b[22m`, (t: string) => `\x1b[36m${t}\x1b[39m`];
  const line = () => Array.from({ length: rnd.int(1, 8) }, () => rnd.pick(styles)(rnd.pick(pieces))).join('');
  const mutate = (l: string) => (rnd.chance(0.5) ? l.replace(/\d/, String(rnd.int(0, 9))) : rnd.chance(0.5) ? l + rnd.pick(pieces) : line());
  const cells = (t: XtermScreen, y: number) => {
    const row = t.term.buffer.active.getLine(y)!;
    const out: string[] = [];
    for (let x = 0; x < t.cols; x++) {
      const c = row.getCell(x)!;
      out.push(`${c.getChars() || ' '}/${c.getWidth()}/${c.isDim()}/${c.isBold()}/${c.getFgColor()}`);
    }
    return out.join(' ');
  };
  for (let i = 0; i < 200; i++) {
    const cols = rnd.int(20, 60);
    const was = line();
    const next = mutate(was);
    if (textWidth(was) > cols || textWidth(next) > cols) continue;
    const diffed = new XtermScreen(cols, 5);
    // (written as the frame writer writes everything: disputed glyphs pinned)
    diffed.write(pinClusters(`x\n${was}\nfooter\n`));
    diffed.write(pinClusters(diffFrames(['x', was, 'footer', ''], ['x', next, 'footer', ''], cols).bytes));
    const fresh = new XtermScreen(cols, 5);
    fresh.write(pinClusters(`x\n${next}\nfooter\n`));
    await diffed.settled();
    await fresh.settled();
    assert.equal(cells(diffed, 1), cells(fresh, 1), `MEDCHAT_SEED=${seed} case ${i}: ${JSON.stringify(was)} → ${JSON.stringify(next)} at ${cols}`);
    diffed.dispose();
    fresh.dispose();
  }
});
