// One renderer of the conversation's printed items (src/ui/text/printed-lines.ts): the screen (<Static>
// through Turn.tsx), the frame writer's answer paragraphs (live-drawing.ts) and the transcript
// viewer (Ctrl+O) show the same lines for the same items; only the viewer writes the reasoning out.
import assert from 'node:assert/strict';
import { afterEach, test } from 'node:test';
import chalk from 'chalk';
import { cleanup, render } from 'ink-testing-library';
import { createElement } from 'react';
import type { ChatController, StaticItem } from '../../src/ui/controller/chat-controller.js';
import type { FrameWriter } from '../../src/ui/frames/frame-writer.js';
import { LiveDrawing } from '../../src/ui/frames/live-drawing.js';
import { SCREEN, VIEWER, itemLines } from '../../src/ui/text/printed-lines.js';
import { TranscriptItem } from '../../src/ui/components/Turn.js';
import { stripAnsi, textWidth } from '../../src/core/text/width.js';

afterEach(() => cleanup());

const URL = 'https://www.example.org/guidelines/paediatrics/paracetamol-dosing-by-weight-and-age-table-2025-edition.html';

const ITEMS: StaticItem[] = [
  { id: 'h', kind: 'header', version: '1.2.3', model: 'medical-large-latest', thinking: true, host: 'api.example.com', disclaimer: true, role: 'ddx' },
  { id: 'u', kind: 'user', text: 'a child of 4 with a fever of 39.2 °C for two days, eating little and sleeping a lot: what to check first?\nand when to refer?' },
  { id: 'r', kind: 'reasoning', text: 'Fever in a young child. Check hydration, rash, neck stiffness.\nThen the duration.', ms: 8200, tokens: 612 },
  { id: 'a1', kind: 'answer', text: '## First\n\n- **Hydration**: wet nappies, tears\n- A rash that does not blanch: *urgent*\n\n| Sign | Act |\n|---|:-:|\n| stiff neck | refer now |' },
  { id: 'a2', kind: 'answer', text: '```js\nconst doseMg = weightKg * 15; // every 6 hours, at most 4 doses in 24 hours, never more than the adult dose\n```' },
  { id: 's1', kind: 'status', status: 'complete', stats: '4.2s · first token 0.3s · 52 tok/s · 1.2k in · 800 out' },
  { id: 's2', kind: 'status', status: 'interrupted' },
  { id: 's3', kind: 'status', status: 'incomplete', error: 'the answer was cut off at --max-tokens 512 (finish_reason length); raise --max-tokens or ask for less' },
  { id: 's4', kind: 'status', status: 'failed', error: 'the service refused the key (401): the key in MEDCHAT_API_KEY is not valid; set it to a valid key' },
  { id: 'n1', kind: 'notice', tone: 'info', text: 'Summarised 14 earlier messages (61.2k → 2.1k tokens)' },
  { id: 'n2', kind: 'notice', tone: 'warn', text: 'found: 1 name, 2 dates, 1 record/account number, 1 phone number, 1 street address', breakAt: ', ' },
  { id: 'n3', kind: 'notice', tone: 'error', text: 'the session could not be saved' },
  { id: 'n4', kind: 'notice', tone: 'plain', text: 'Recent sessions:\n● 20261122-143005-a1b2  2026-11-22 14:30  2 turns  knee pain' },
];

test('the screen and the viewer give the same lines for the same items; the viewer writes the reasoning out', () => {
  for (const level of [0, 3] as const) {
    const was = chalk.level;
    chalk.level = level;
    try {
      for (const width of [40, 80, 120]) {
        for (const item of ITEMS) {
          const screen = itemLines(item, width, SCREEN);
          const viewer = itemLines(item, width, VIEWER);
          for (const l of [...screen, ...viewer]) assert.ok(textWidth(l) <= width, `${item.id} at ${width}: ${JSON.stringify(l)} is wider`);
          if (item.kind !== 'reasoning') {
            assert.deepEqual(viewer, screen, `${item.id} at ${width} columns, colour level ${level}`);
            continue;
          }
          // The screen folds it to one line; the viewer opens the same title and writes the text below it.
          const plain = (lines: string[]) => lines.map(stripAnsi).join(' ');
          assert.equal(screen[0], '');
          assert.equal(plain(screen.slice(1)), '▸ Thought for 8.2s · 612 tokens · Ctrl+O to read');
          assert.deepEqual(viewer.slice(0, 2).map(stripAnsi), ['', '▾ Thought for 8.2s · 612 tokens']);
          const body = viewer.slice(2).map(stripAnsi);
          assert.ok(body.every((l) => l.startsWith('│ ')));
          assert.equal(body.map((l) => l.slice(2)).join(' ').replace(/\s+/g, ' '), item.text.replace(/\s+/g, ' '));
        }
      }
    } finally {
      chalk.level = was;
    }
  }
});

test('the header names the role (as the README says), never the thinking setting, on the screen and in the viewer', () => {
  const header = ITEMS[0]!;
  for (const opts of [SCREEN, VIEWER]) {
    const first = stripAnsi(itemLines(header, 100, opts)[0]!);
    assert.equal(first, 'medchat 1.2.3 · medical-large-latest · api.example.com · role ddx');
  }
});

test('Turn.tsx prints exactly those lines (a thin component), for every kind of item', () => {
  for (const item of ITEMS) {
    const width = 60;
    const { lastFrame, unmount } = render(createElement(TranscriptItem, { item, width }));
    // Ink drops the spaces that end a row; nothing else may differ.
    const rows = (text: string) => stripAnsi(text).split('\n').map((l) => l.trimEnd());
    assert.deepEqual(rows(lastFrame() ?? ''), rows(itemLines(item, width, SCREEN).join('\n')), item.id);
    unmount();
  }
});

test('answer paragraphs printed by the frame writer while an answer streams are the lines <Static> prints', () => {
  const printed: string[][] = [];
  const writer = { setLiveRows() {}, repaint() {}, setCaret() {}, print: (lines: string[]) => (printed.push(lines), true) } as unknown as FrameWriter;
  const controller = { liveTurn: () => undefined } as unknown as ChatController;
  const drawing = new LiveDrawing(controller, writer, () => 80);
  drawing.rows.width = 80;
  const answers = ITEMS.filter((i) => i.kind === 'answer');
  assert.equal(drawing.print(answers), true);
  assert.deepEqual(printed, [answers.flatMap((i) => itemLines(i, 80, SCREEN))]);
  assert.deepEqual(drawing.forStatic(ITEMS), ITEMS.filter((i) => i.kind !== 'answer'), '<Static> does not print them again');
});

test('a web address longer than the width: whole on a row of its own on the screen, cut at the width in the viewer', () => {
  const item: StaticItem = { id: 'u', kind: 'answer', text: `See ${URL} for the table.` };
  const width = 50;
  const screen = itemLines(item, width, SCREEN).map(stripAnsi);
  assert.ok(screen.includes(URL), screen.join('\n'));
  const viewer = itemLines(item, width, VIEWER).map(stripAnsi);
  assert.ok(viewer.every((l) => textWidth(l) <= width));
  assert.equal(viewer.join('').replace(/\s+/g, ''), `See${URL}forthetable.`);
});
