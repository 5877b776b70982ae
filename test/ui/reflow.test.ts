import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FrameWriter, type LiveRowsSource } from '../../src/ui/frames/frame-writer.js';
import { eraseNarrowed, rowsAfterNarrowing, terminalReflows } from '../../src/ui/frames/reflow.js';
import { TestTerminal } from '../support/xterm-term.js';
import { inkErase } from '../support/ink-frames.js';

// Narrowing the window: the terminal re-wraps the live region's lines onto more rows than Ink
// wrote, so Ink's erase-by-count left the top of the old region on screen (a stale block). Here
// the frames Ink writes go through the frame writer into xterm.js, which re-wraps as most
// terminals do, and what the user can scroll back through is checked line by line.

const eraseLines = inkErase;

/** The live region as Ink draws it `w` columns wide: a thinking block, the input box, the footer. */
function live(w: number, tag: string, marker?: string): string[] {
  return [
    '',
    `Thinking… ${tag}`,
    marker ?? `  ${'reasoning words '.repeat(10)}`.slice(0, w),
    '',
    `╭${'─'.repeat(w - 2)}╮`,
    `│ › ${' '.repeat(w - 5)}│`,
    `╰${'─'.repeat(w - 2)}╯`,
    ` 8.2k / 128k · 6% · first token 0.3s · 349 tok/s · 10 in · 15 out`.slice(0, w - 1),
  ];
}
const frame = (lines: string[]) => `${lines.join('\n')}\n`;

async function narrowing(opts: { diff: boolean; together: boolean; marker?: boolean }) {
  const term = new TestTerminal(70, 40);
  term.write('shell line one\nshell line two\n');
  const writer = new FrameWriter({ write: term.write }, () => term.cols, { diff: opts.diff, reflows: true, homeAfterMs: 10 });
  const marker = opts.marker ? '\u2800mark\u2800' : undefined;
  let grown = 0;
  if (marker) {
    const rows: LiveRowsSource = { marker, rows: () => [`  ${'streaming thought '.repeat(3)}${'x'.repeat(grown)}`.slice(0, term.cols - 2)] };
    writer.setLiveRows(rows);
  }
  const first = live(70, '1s', marker);
  writer.write('› the question\n'); // printed (Ink's <Static>), then the live region
  writer.write(frame(first));
  writer.flush();
  // A few frames, the thinking line growing between Ink's frames (the cursor is left mid-region).
  for (let i = 0; i < 3; i++) {
    writer.write(eraseLines(first.length + 1) + frame(live(70, `${i + 2}s`, marker)));
    writer.flush();
    grown += 5;
    writer.repaint();
  }
  // Nothing written for a moment: the writer has put the cursor back under the output (homeAfterMs).
  await new Promise((r) => setTimeout(r, 30));
  await term.resize(44);
  // What Ink does on a narrower terminal: erase its last frame by count, then draw the new one.
  const prevCount = first.length + 1;
  const next = frame(live(44, '9s', marker));
  if (opts.together) writer.write(eraseLines(prevCount) + '\x1b[?2026h' + next + '\x1b[?2026l');
  else {
    writer.write(eraseLines(prevCount));
    writer.flush();
    writer.write(next);
  }
  writer.flush();
  await term.settled();
  return term.history();
}

for (const diff of [true, false]) {
  for (const together of [true, false]) {
    test(`narrowing the window leaves no stale block of the old live region (${diff ? 'line differ' : 'MEDCHAT_PLAIN_FRAMES'}, erase and frame ${together ? 'in one write' : 'apart'})`, async () => {
      const lines = await narrowing({ diff, together, marker: diff });
      assert.deepEqual(lines.slice(0, 3), ['shell line one', 'shell line two', '› the question'], lines.join('\n'));
      assert.equal(lines.filter((l) => l.startsWith('Thinking…')).length, 1, lines.join('\n'));
      assert.equal(lines.filter((l) => l.includes('╭')).length, 1, lines.join('\n'));
      assert.equal(lines.filter((l) => l.includes('8.2k')).length, 1, lines.join('\n'));
      assert.ok(lines.includes('Thinking… 9s'), lines.join('\n'));
      assert.ok(lines.every((l) => !l.includes('╭') || l.length === 44), 'the box is drawn at the new width');
    });
  }
}

test('the rows a line takes after narrowing; without reflow (xterm, the Linux console) one each', () => {
  assert.equal(rowsAfterNarrowing('', 40, true), 1);
  assert.equal(rowsAfterNarrowing('x'.repeat(40), 40, true), 1);
  assert.equal(rowsAfterNarrowing('x'.repeat(41), 40, true), 2);
  assert.equal(rowsAfterNarrowing('\x1b[2mxx\x1b[22m', 1, true), 2, 'colour codes take no cells');
  assert.equal(rowsAfterNarrowing('x'.repeat(100), 40, false), 1);
  assert.equal(eraseNarrowed(['x'.repeat(100), 'ab', ''], 40, true), '\x1b[4A\r\x1b[J');
  assert.equal(eraseNarrowed(['x'.repeat(100), 'ab', ''], 40, false), '\x1b[2A\r\x1b[J');
  assert.equal(eraseNarrowed(['x'.repeat(100), 'ab', ''], 40, true, { row: 0, col: 85 }), '\x1b[2A\r\x1b[J', 'from mid-line');
  assert.equal(eraseNarrowed([''], 40, true), '\r\x1b[J');
  assert.equal(terminalReflows({ TERM: 'xterm-256color' }), true);
  assert.equal(terminalReflows({ XTERM_VERSION: 'XTerm(390)' }), false);
  assert.equal(terminalReflows({ XTERM_VERSION: 'XTerm(390)', TMUX: '/tmp/x' }), true, 'tmux inside xterm reflows');
  assert.equal(terminalReflows({ TERM: 'linux' }), false);
});
