import assert from 'node:assert/strict';
import { test } from 'node:test';
import { waitFor } from '../support/cli.js';
import { builtSkip, paneFixture, TmuxPane } from '../support/tmux.js';

// A long answer streaming in a real terminal: what the user sees while it streams and after.
const skip = builtSkip;

const fixture = paneFixture();

const PARAGRAPHS = [
  'Paragraph one says that paracetamol is taken every four to six hours and that adults take at most four grams in a day.',
  'Paragraph two says that ibuprofen is taken with food, and that people with stomach ulcers or kidney disease should ask first.',
  'Paragraph three says that a fever in a baby under three months needs a doctor the same day, whatever the number on the thermometer.',
  'Paragraph four ends the answer.',
];
const words = (s: string) => s.split(/(?<= )/);
/** The answer's stats line (tok/s only when the answer's tokens arrived over a measurable time). */
const DONE = /first token [\d.]+s · (\d+ tok\/s · )?\d+ in · \d+ out/;

function pane(env: Record<string, string> = {}): TmuxPane {
  const p = new TmuxPane([], { MEDCHAT_BASE_URL: fixture.double.url, MEDCHAT_API_KEY: 'sk-test-stream', ...env }, { width: 60, height: 24 });
  fixture.panes.push(p);
  return p;
}

test('a long answer streams in place: the thinking preview, then the text as it grows, each paragraph printed once', { skip }, async () => {
  const reasoning = words('First I recall the usual doses. Then the warnings that matter most. Then what to say about babies. ').flatMap((w) => [w, w]);
  fixture.double.chat.enqueue({ reasoning, content: PARAGRAPHS.flatMap((p, i) => [...words(p), i < PARAGRAPHS.length - 1 ? '\n\n' : '']), paceMs: 25 });
  const p = pane();
  await p.ready();
  await p.send('doses?');
  await p.waitForText('Thinking…');
  await p.waitForText(/ {2}\S.*usual doses/);
  // Mid-answer: part of the text is on screen before the answer ends, and no placeholder ever shows.
  await waitFor(() => p.screen().includes('Paragraph two says'), 10_000, 'the second paragraph streaming');
  const mid = p.screen();
  assert.ok(!mid.includes('Paragraph four ends'), 'the answer is still streaming');
  assert.ok(!mid.includes('\u2800'), mid);
  await p.waitForText(DONE);
  const screen = p.screen();
  assert.ok(!screen.includes('\u2800'), screen);
  assert.match(screen, /▸ Thought for [\d.]+s/);
  // The question, the folded reasoning, every paragraph once and in order, then the input box, once.
  const text = screen.replace(/\s+/g, ' ');
  let at = 0;
  for (const para of ['› doses?', '▸ Thought for', ...PARAGRAPHS, '│ ›']) {
    const i = text.indexOf(para, at);
    assert.ok(i >= at, `${para}\n--- screen ---\n${screen}`);
    assert.equal(text.split(para).length, 2, `printed once: ${para}`);
    at = i + para.length;
  }
  assert.equal(screen.split('│ ›').length, 2, screen);
});

test('NO_COLOR: the chat screen writes no colour or styling, streaming or not', { skip }, async () => {
  fixture.double.chat.enqueue({ reasoning: words('Thinking about it. '), content: [...words(PARAGRAPHS[0]!), '\n\n', ...words(PARAGRAPHS[3]!)], paceMs: 20 });
  const p = pane({ NO_COLOR: '1' });
  await p.ready();
  const styled = () => p.tmux('capture-pane', '-p', '-e', '-t', p.name);
  await p.send('doses?');
  await waitFor(() => p.screen().includes('Paragraph one says'), 10_000, 'the answer streaming');
  assert.doesNotMatch(styled(), /\x1b\[/);
  await p.waitForText(DONE);
  assert.doesNotMatch(styled(), /\x1b\[/);
});

test('resizing the terminal, while an answer streams and after: reflowed once it ends, no line lost or doubled', { skip }, async () => {
  fixture.double.chat.enqueue({ reasoning: [], content: PARAGRAPHS.flatMap((p, i) => [...words(p), i < PARAGRAPHS.length - 1 ? '\n\n' : '']), paceMs: 25 });
  const p = pane();
  await p.ready();
  await p.send('doses?');
  await waitFor(() => p.screen().includes('Paragraph two says'), 10_000, 'the answer streaming');
  p.tmux('resize-window', '-t', p.name, '-x', '48', '-y', '24');
  await new Promise((r) => setTimeout(r, 300));
  p.tmux('resize-window', '-t', p.name, '-x', '70', '-y', '24');
  await p.waitForText(DONE);
  await new Promise((r) => setTimeout(r, 600)); // the reprint after the answer
  const check = (screen: string) => {
    const text = screen.replace(/\s+/g, ' ');
    let at = 0;
    for (const part of ['› doses?', ...PARAGRAPHS, '│ ›']) {
      const i = text.indexOf(part, at);
      assert.ok(i >= at, `${part}\n--- screen ---\n${screen}`);
      assert.equal(text.split(part).length, 2, `once: ${part}\n--- screen ---\n${screen}`);
      at = i + part.length;
    }
  };
  check(p.screen());
  // Idle: a narrower terminal reflows the whole transcript once.
  p.tmux('resize-window', '-t', p.name, '-x', '52', '-y', '24');
  await new Promise((r) => setTimeout(r, 800));
  check(p.screen());
});
