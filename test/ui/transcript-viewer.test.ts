import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ChatSnapshot, LiveTurn, StaticItem } from '../../src/ui/controller/chat-controller.js';
import { HeldOutput } from '../../src/ui/frames/screen-output.js';
import type { Key } from '../../src/ui/text/keys.js';
import { TranscriptViewer, type TranscriptSource } from '../../src/ui/viewer/transcript-viewer.js';
import { TestTerminal } from '../support/xterm-term.js';

// The transcript viewer on a real terminal emulator (xterm.js): the alternate screen, what it
// shows, and the main screen and scrollback left exactly as they were.

const ITEMS: StaticItem[] = [
  { id: 'h', kind: 'header', version: '1.0.0', model: 'm', thinking: true, host: 'h', disclaimer: false },
  { id: 'u1', kind: 'user', text: 'heart rate?' },
  { id: 'r1', kind: 'reasoning', text: 'Check the adult range.\nThen the child range.', ms: 1200, tokens: 9 },
  { id: 'a1', kind: 'answer', text: '60 to 100 beats a minute at rest.' },
  { id: 's1', kind: 'status', status: 'complete', stats: '1.2s' },
  ...Array.from({ length: 12 }, (_, i): StaticItem => ({ id: `n${i}`, kind: 'notice', tone: 'info', text: `filler ${i}` })),
];

function setup(items: StaticItem[] = ITEMS, size = { cols: 50, rows: 12 }) {
  const term = new TestTerminal(size.cols, size.rows);
  const held = new HeldOutput({ write: (d: string) => term.write(d) });
  const listeners = new Set<() => void>();
  const state: { items: StaticItem[]; live?: LiveTurn } = { items };
  const source: TranscriptSource = {
    snapshot: () => ({ items: state.items }) as unknown as ChatSnapshot,
    subscribe: (fn) => {
      listeners.add(fn as () => void);
      return () => listeners.delete(fn as () => void);
    },
    liveTurn: () => state.live,
  };
  const resizers = new Set<() => void>();
  const viewer = new TranscriptViewer(
    source,
    {
      write: term.write,
      columns: () => term.cols,
      rows: () => term.rows,
      onResize: (fn) => {
        resizers.add(fn);
        return () => resizers.delete(fn);
      },
    },
    { enter: () => held.hold(), leave: () => held.release() },
  );
  const key = (k: Key) => viewer.handleKey(k);
  const text = (s: string) => viewer.handleKey({ name: 'text', text: s });
  const changed = () => listeners.forEach((fn) => fn());
  const resize = async (cols: number, rows: number) => {
    await term.resize(cols, rows);
    resizers.forEach((fn) => fn());
    await term.settled();
  };
  return { term, held, viewer, state, key, text, changed, resize, listeners };
}

test('Ctrl+O: the conversation with its reasoning on the alternate screen; q gives back the main screen as it was, scrollback and all', async () => {
  const { term, held, viewer, text } = setup();
  term.write(Array.from({ length: 30 }, (_, i) => `shell line ${i}`).join('\n') + '\n');
  held.write('› heart rate?\n\n▸ Thought for 1.2s · 9 tokens · Ctrl+O to read\n\n60 to 100 beats a minute at rest.\n');
  await term.settled();
  const before = term.history();
  viewer.open();
  await term.settled();
  assert.equal(term.alternate, true);
  const shown = term.screen();
  // It opens at the last reasoning, written out whole.
  assert.equal(shown[0], '▾ Thought for 1.2s · 9 tokens');
  assert.equal(shown[1], '│ Check the adult range.');
  assert.equal(shown[2], '│ Then the child range.');
  assert.ok(shown.includes('60 to 100 beats a minute at rest.'), shown.join('\n'));
  assert.match(shown.at(-1)!, /^Transcript · lines \d+–\d+ of \d+/);
  // What the chat screen draws meanwhile waits; it is not drawn on the viewer.
  held.write('printed while the viewer was open\n');
  await term.settled();
  assert.ok(!term.screen().some((l) => l.includes('printed while')));
  assert.equal(held.pending > 0, true);
  text('q');
  await term.settled();
  assert.equal(term.alternate, false);
  assert.equal(viewer.isOpen, false);
  assert.deepEqual(term.history(), [...before, 'printed while the viewer was open']);
});

test('the viewer pages and searches: g/G, PgDn, / with the match at the top, keys taken while open only', async () => {
  const { term, viewer, key, text } = setup();
  assert.equal(viewer.handleKey({ name: 'text', text: 'q' }), false, 'closed: keys are the chat screen\'s');
  viewer.open();
  text('g');
  await term.settled();
  assert.match(term.screen()[0]!, /^medchat 1\.0\.0/);
  key({ name: 'page-down' });
  await term.settled();
  assert.match(term.screen().at(-1)!, /lines 11–21 of/);
  text('G');
  await term.settled();
  assert.equal(term.screen()[10], 'filler 11');
  assert.match(term.screen().at(-1)!, /\(end\)/);
  text('g/child');
  await term.settled();
  assert.equal(term.screen().at(-1), '/child');
  key({ name: 'enter' });
  await term.settled();
  assert.equal(term.screen()[0], '│ Then the child range.');
  assert.equal(key({ name: 'escape' }), true);
  assert.equal(viewer.isOpen, false);
});

test('an answer streaming while the viewer is open shows in it as it grows; at the end, the view follows', async () => {
  const { term, viewer, state, changed, text } = setup();
  state.live = { turnId: 't', phase: 'reasoning', startedAt: Date.now(), reasoningStartedAt: Date.now(), lastDataAt: Date.now(), reasoning: 'First thought.', reasoningTokens: 3, answerTokens: 0, answerTail: '', answerCuts: 0 };
  viewer.open();
  await term.settled();
  assert.ok(term.screen().includes('│ First thought.'), 'opens at the end while reasoning streams');
  state.live = { ...state.live, reasoning: 'First thought.\nSecond thought.' };
  changed();
  await new Promise((r) => setTimeout(r, 400));
  await term.settled();
  assert.ok(term.screen().includes('│ Second thought.'), term.screen().join('\n'));
  // Scrolled up, new lines do not move the view.
  text('k');
  await term.settled();
  const top = term.screen()[0];
  state.live = { ...state.live, reasoning: 'First thought.\nSecond thought.\nThird thought.' };
  changed();
  await new Promise((r) => setTimeout(r, 400));
  await term.settled();
  assert.equal(term.screen()[0], top);
  viewer.close();
});

test('a resize while open lays the lines out again at the new size', async () => {
  const long: StaticItem[] = [{ id: 'r', kind: 'reasoning', text: 'word '.repeat(40).trim(), ms: 1000, tokens: 40 }];
  const { term, viewer, resize } = setup(long, { cols: 60, rows: 10 });
  viewer.open();
  await term.settled();
  const wide = term.screen().filter((l) => l.startsWith('│')).length;
  await resize(30, 14);
  const narrow = term.screen().filter((l) => l.startsWith('│'));
  assert.ok(narrow.length > wide, `${narrow.length} > ${wide}`);
  assert.ok(narrow.every((l) => l.length <= 30));
  assert.match(term.screen().at(-1)!, /lines/);
  viewer.close();
  await term.settled();
  assert.equal(term.alternate, false);
});

test('held output is written in order when released, with write callbacks run', async () => {
  const out: string[] = [];
  const held = new HeldOutput({ write: (d: string, cb?: () => void) => (out.push(d), cb?.()) });
  held.write('a');
  held.hold();
  let called = false;
  held.write('b', () => (called = true));
  held.write(Buffer.from('c'));
  assert.deepEqual(out, ['a']);
  await new Promise((r) => queueMicrotask(() => r(undefined)));
  assert.equal(called, true, 'Ink waits on a write callback before it exits');
  held.release();
  assert.deepEqual(out, ['a', 'bc']);
  held.write('d');
  assert.deepEqual(out, ['a', 'bc', 'd']);
});
