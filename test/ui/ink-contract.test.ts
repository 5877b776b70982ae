import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { test } from 'node:test';
import { FrameWriter } from '../../src/ui/frames/frame-writer.js';
import { XtermScreen } from '../support/xterm.js';

// The contract between Ink and the frame writer, with real Ink (not frames written by hand): the writer must
// recognise every frame Ink writes (its erase, then its lines) and send a line diff instead. If an Ink upgrade
// changes how it erases, the writer passes Ink's frames through whole: still correct on screen, but ~2.7x the CPU
// and ~3x the bytes while an answer streams. This test fails then, instead of the benchmark drifting unnoticed.

// Outside CI, Ink draws every frame; in CI (CI=true) it would draw only the last. Read when Ink loads.
delete process.env.CI;
const { render, Box, Text } = await import('ink');
const { createElement: h } = await import('react');

class FakeTerminal extends EventEmitter {
  isTTY = true;
  columns = 60;
  rows = 20;
  constructor(readonly write: (data: string) => boolean) {
    super();
  }
}

test("real Ink through the frame writer: each of Ink's frames is recognised and sent as a line diff; the screen shows Ink's frame", async () => {
  const term = new XtermScreen(60, 20);
  const sent: string[] = [];
  const writer = new FrameWriter({ write: (d: string) => (sent.push(d), term.write(d)) }, () => 60);
  const view = (answer: string) =>
    h(
      Box,
      { flexDirection: 'column' },
      h(Text, null, answer),
      h(Box, { borderStyle: 'round', width: 60 }, h(Text, null, '› ')),
      h(Text, { dimColor: true }, 'footer · Esc stop'),
    );
  const ink = render(view('Paracetamol'), { stdout: new FakeTerminal(writer.write) as unknown as NodeJS.WriteStream, patchConsole: false, exitOnCtrlC: false, maxFps: 1000 });
  const tick = async () => {
    await new Promise((r) => setTimeout(r, 20));
    writer.flush();
  };
  await tick();
  assert.ok(sent.join('').includes('╭'), 'the first frame is drawn whole');
  let answer = 'Paracetamol';
  for (const word of [' 500', ' mg', ' every', ' six', ' hours.']) {
    answer += word;
    const before = sent.length;
    ink.rerender(view(answer));
    await tick();
    const bytes = sent.slice(before).join('');
    // Only the new end of the answer's line (and cursor moves): the box and the footer are not drawn again.
    assert.ok(bytes.includes(word), `${JSON.stringify(word)} sent: ${JSON.stringify(bytes)}`);
    assert.ok(
      !bytes.includes('╭') && !bytes.includes('footer') && bytes.replace(/\x1b\[\?2026[hl]/g, '').length < word.length + 16,
      `the frame writer did not recognise Ink's frame (did Ink change how it erases its last frame? see parseFrame in src/ui/frames/frame-diff.ts): ${JSON.stringify(bytes)}`,
    );
  }
  ink.unmount();
  writer.settle();
  await term.settled();
  const lines = term.lines();
  assert.equal(lines[0], 'Paracetamol 500 mg every six hours.');
  assert.match(lines[1]!, /^╭─+╮$/);
  assert.equal(lines.filter((l) => l.includes('footer')).length, 1, lines.join('\n'));
  term.dispose();
});
