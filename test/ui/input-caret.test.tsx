import assert from 'node:assert/strict';
import { afterEach, test } from 'node:test';
import { Box, Text } from 'ink';
import { cleanup, render } from 'ink-testing-library';
import { FrameWriter, type Caret } from '../../src/ui/frames/frame-writer.js';
import { Input } from '../../src/ui/components/Input.js';
import { layoutDraft } from '../../src/ui/text/draft-layout.js';
import * as ed from '../../src/ui/text/editor.js';
import { stripAnsi, textWidth } from '../../src/core/text/width.js';
import { VirtualTerminal } from '../support/vt.js';
import { inkErase } from '../support/ink-frames.js';

afterEach(() => cleanup());

const erase = inkErase;
const tick = () => new Promise<void>((r) => setImmediate(r));

test('the draft is cut into rows by cells, wide characters whole; the caret row and column are where the text is', () => {
  const l = layoutDraft('ab退烧药cd', 3, 6, 8); // cursor before 烧
  assert.deepEqual(l.rows.map((r) => r.text), ['ab退烧', '药cd']);
  assert.deepEqual([l.caretRow, l.caretCol, l.caretIndex, l.atCaret], [0, 4, 3, '烧']);
  const end = layoutDraft('abcdef', 6, 6, 8); // at the end of a full row: the caret starts the next one
  assert.deepEqual(end.rows.map((r) => r.text), ['abcdef', '']);
  assert.deepEqual([end.caretRow, end.caretCol], [1, 0]);
  const lines = layoutDraft('one\ntwo\nthree', 5, 10, 2); // window of 2 rows keeps the caret in view
  assert.deepEqual([lines.above, lines.rows.map((r) => r.text), lines.caretRow, lines.caretCol], [0, ['one', 'two'], 1, 1]);
  const emoji = layoutDraft('👩‍⚕️ ok', 0, 10, 8);
  assert.equal(emoji.atCaret, '👩‍⚕️', 'a ZWJ sequence is one grapheme under the caret');
});

/** Renders the input box between a line above and a footer line, and the caret it reports. */
function renderInput(text: string, cursor = text.length, width = 40) {
  const reported: Array<Caret | undefined> = [];
  const onCaret = (c: Caret | undefined) => reported.push(c);
  const editor = { ...ed.fromText(text), cursor };
  const ui = render(
    <Box flexDirection="column">
      <Text>the answer above</Text>
      <Box marginTop={1} flexDirection="column">
        <Input editor={editor} menu={undefined} busy={false} width={width} onCaret={onCaret} />
        <Text>footer</Text>
      </Box>
    </Box>,
  );
  return { frame: stripAnsi(ui.lastFrame() ?? '').split('\n'), caret: reported.at(-1) };
}

for (const [name, text, cursor, before] of [
  ['ASCII', 'dose', 4, '│ › dose'],
  ['Chinese, two cells a character', '剂量退烧药', 5, '│ › 剂量退烧药'],
  ['in the middle of Chinese text', '剂量退烧药', 2, '│ › 剂量'],
  ['on a wrapped second row', '剂量'.repeat(20), 40, '│   剂量剂量'],
] as const) {
  test(`the caret the box reports is where the text puts it: ${name}`, () => {
    const { frame, caret } = renderInput(text, cursor);
    assert.ok(caret, 'a caret is reported');
    // Ink leaves the cursor on the line under its output: `up` rows above that.
    const row = frame[frame.length - caret.up]!;
    assert.ok(row.startsWith(before.slice(0, 4)), `row ${JSON.stringify(row)}`);
    const expectedCol = before.startsWith('│   ') ? textWidth(row.slice(0, row.lastIndexOf('剂量') + 2)) : textWidth(before);
    assert.equal(caret.col, expectedCol, `column in ${JSON.stringify(row)}`);
  });
}

function writerOnTerminal() {
  const vt = new VirtualTerminal(40);
  const sent: string[] = [];
  const w = new FrameWriter({ write: (d: string) => (sent.push(d), vt.write(d)) }, () => 40);
  return { vt, sent, w };
}

test('the frame writer rests the cursor on the caret, shown, and draws each frame with it hidden', async () => {
  const { vt, sent, w } = writerOnTerminal();
  w.write('answer so\n╭──╮\n│ › dose │\n╰──╯\nfooter\n');
  w.setCaret({ up: 3, col: 8 });
  await tick();
  assert.deepEqual([vt.row, vt.col], [2, 8], 'on the box row, after "dose"');
  assert.match(sent.at(-1)!, /\x1b\[\?25h$/);
  const before = sent.length;
  w.write(erase(6) + 'answer so far\n╭──╮\n│ › dose │\n╰──╯\nfooter\n');
  await tick();
  const frame = sent.slice(before).join('');
  assert.ok(frame.startsWith('\x1b[?25l') && frame.endsWith('\x1b[?25h'), JSON.stringify(frame));
  assert.deepEqual([vt.row, vt.col], [2, 8], 'back on the caret');
  assert.deepEqual(vt.lines(), ['answer so far', '╭──╮', '│ › dose │', '╰──╯', 'footer']);
  assert.ok(Buffer.byteLength(frame) < 40, `a small frame stays small: ${JSON.stringify(frame)}`);
  // The caret moved (Left), nothing else changed: only the cursor moves.
  w.setCaret({ up: 3, col: 7 });
  await tick();
  assert.equal(sent.at(-1), '\x1b[8G');
  // No caret: the cursor is hidden and left where drawing ends (cheapest while text streams).
  w.setCaret(undefined);
  await tick();
  assert.equal(sent.at(-1), '\x1b[?25l');
});

test('Ink showing the cursor on exit ends the caret: the cursor goes under the output and stays shown', async () => {
  const { vt, sent, w } = writerOnTerminal();
  w.write('a\n│ › x │\nfooter\n');
  w.setCaret({ up: 2, col: 5 });
  await tick();
  w.write(erase(4) + 'a\n│ › x │\nfooter\n\x1b[?25h');
  await tick();
  assert.deepEqual([vt.row, vt.col], [3, 0]);
  assert.ok(sent.at(-1)!.endsWith('\x1b[?25h'));
  w.setCaret({ up: 2, col: 6 });
  await tick();
  assert.deepEqual([vt.row, vt.col], [3, 0], 'not moved again');
});

test('bracketed paste switched on before the first frame does not stop the writer from diffing it', async () => {
  const { sent, w } = writerOnTerminal();
  w.write('\x1b[?2004h');
  w.write('text one\nfooter\n');
  await tick();
  w.write(erase(3) + 'text one more\nfooter\n');
  await tick();
  assert.equal(sent.at(-1), '\x1b[2A\x1b[9G more');
});
