// What the chat screen leaves in the terminal, in a real one (tmux, the built bin/medchat.js):
// no key and no resize erases anything medchat did not draw (the shell's lines before it started),
// nothing it printed is lost or printed twice, and it never clears the screen or the scrollback.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { TEST_KEY, waitFor } from '../support/cli.js';
import { builtSkip, paneFixture, TmuxPane } from '../support/tmux.js';

const skip = builtSkip;

const SHELL = ['$ ls', 'notes.txt  results.pdf', '$ medchat'];
const words = (s: string) => s.split(/(?<= )/);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const fixture = paneFixture();

/** medchat in tmux after the shell printed SHELL; what it writes is logged to check for clears. */
function pane(env: Record<string, string> = {}, size = { width: 60, height: 20 }) {
  const p = new TmuxPane([], { MEDCHAT_BASE_URL: fixture.double.url, MEDCHAT_API_KEY: TEST_KEY, MEDCHAT_NO_CLIPBOARD_TOOL: '1', ...env }, { ...size, shellLines: SHELL });
  fixture.panes.push(p);
  const log = path.join(p.home, 'terminal.log');
  p.tmux('pipe-pane', '-o', '-t', p.name, `cat >> '${log}'`);
  return { p, written: () => (fs.existsSync(log) ? fs.readFileSync(log, 'latin1') : '') };
}

/** The lines above the idle input box (the printed transcript, and the shell's before it). */
function printed(all: string[]): string[] {
  const box = all.findLastIndex((l) => l.startsWith('╭'));
  assert.ok(box > 0, all.join('\n'));
  return all.slice(0, box).join('\n').replace(/\s+$/, '').split('\n');
}

/** Nothing of the shell's or medchat's lost, nothing twice, no clear sent. */
function intact(all: string[], written: string): void {
  assert.deepEqual(all.slice(0, SHELL.length), SHELL, all.join('\n'));
  assert.equal(all.filter((l) => /^medchat \d/.test(l)).length, 1, `the header once\n${all.join('\n')}`);
  assert.equal(all.filter((l) => l.startsWith('╭')).length, 1, `one input box\n${all.join('\n')}`);
  assert.ok(!written.includes('\x1b[3J') && !written.includes('\x1b[2J'), 'no screen or scrollback clear');
}

async function idleBox(p: TmuxPane): Promise<void> {
  await waitFor(() => p.screen().split('\n').some((l) => l.startsWith('│ › ')), 10_000, () => `the input box\n${p.screen()}`);
  await sleep(300);
}

/** A finished answer with reasoning on screen, the box idle; returns what the terminal holds then. */
async function answered(p: TmuxPane): Promise<string[]> {
  await p.ready();
  fixture.double.chat.enqueue({ reasoning: words('First the usual adult range, then what changes it. '), content: ['Sixty to a hundred at rest.\n\nFaster with fever.\n\nSlower in athletes.'] });
  await p.send('heart rate?');
  await p.waitForText(/\d+ in · \d+ out/);
  await idleBox(p);
  return p.all();
}

/** What /copy says, wherever the text went. */
const COPIED = /^(copied|sent|could not copy) the last answer/;

for (const plain of [false, true]) {
  test(`/copy keeps every line above it (it took the last four with it)${plain ? ' (MEDCHAT_PLAIN_FRAMES=1)' : ''}`, { skip }, async () => {
    const { p, written } = pane(plain ? { MEDCHAT_PLAIN_FRAMES: '1' } : {});
    const base = await answered(p);
    intact(base, written());
    for (let i = 0; i < 2; i++) {
      await p.send('/copy');
      await waitFor(() => p.all().filter((l) => COPIED.test(l)).length === i + 1, 10_000, 'the notice');
      await idleBox(p);
    }
    const after = printed(p.all());
    const before = printed(base);
    assert.deepEqual(after.slice(0, before.length), before, after.join('\n'));
    const added = after.slice(before.length);
    assert.equal(added[0], '', added.join('\n'));
    assert.ok(COPIED.test(added[1]!), added.join('\n'));
    assert.equal(added.filter((l) => COPIED.test(l)).length, 2, added.join('\n'));
    intact(p.all(), written());
  });
}

test('Ctrl+O shows the reasoning full screen and q gives the terminal back exactly; Ctrl+L touches nothing printed', { skip }, async () => {
  const { p, written } = pane();
  const base = await answered(p);
  intact(base, written());
  assert.ok(base.some((l) => /▸ Thought for [\d.]+s · \d+ tokens · Ctrl\+O to read/.test(l)), base.join('\n'));
  // Ctrl+O: the viewer, on the alternate screen, with the reasoning; q: the terminal exactly as it was.
  p.press('C-o');
  await p.waitForText(/Transcript · lines/);
  assert.match(p.screen(), /│ First the usual adult range, then what changes it\./);
  p.type('gG/fever');
  p.press('Enter');
  await sleep(200);
  p.type('q');
  await idleBox(p);
  assert.deepEqual(p.all(), base);
  // Ctrl+L: the live region drawn again where it is; nothing else touched.
  p.press('C-l');
  await sleep(400);
  assert.deepEqual(p.all(), base);
  intact(p.all(), written());
});

test('Ctrl+O while an answer streams: it goes on behind the viewer and is all there, once, after q', { skip }, async () => {
  const { p, written } = pane();
  await p.ready();
  const paragraphs = ['One says rest and fluids.', 'Two says paracetamol for the fever.', 'Three says see a doctor if it lasts.'];
  fixture.double.chat.enqueue({ reasoning: words('Think about the flu and what to say. '), content: paragraphs.flatMap((x, i) => [...words(x), i < 2 ? '\n\n' : '']), paceMs: 60 });
  await p.send('flu?');
  await p.waitForText('Thinking…');
  p.press('C-o');
  await p.waitForText(/Transcript · lines/);
  // The reasoning, then the answer, grow in the viewer while it is open.
  await p.waitForText('Three says see a doctor', 15_000);
  p.type('q');
  await p.waitForText(/\d+ in · \d+ out/);
  await idleBox(p);
  const all = p.all();
  intact(all, written());
  const text = all.join(' ').replace(/\s+/g, ' ');
  let at = 0;
  for (const part of ['› flu?', '▸ Thought for', ...paragraphs]) {
    const i = text.indexOf(part, at);
    assert.ok(i >= at, `${part}\n${all.join('\n')}`);
    assert.equal(text.split(part).length, 2, `once: ${part}\n${all.join('\n')}`);
    at = i + part.length;
  }
  assert.ok(!text.includes('Thinking…'), 'no stale thinking block');
});

test('/resume prints the resumed turns below; what was on screen and in the scrollback stays', { skip }, async () => {
  const { p, written } = pane();
  await p.ready();
  fixture.double.chat.enqueue({ reasoning: [], content: ['Ibuprofen with food.'] });
  await p.send('knee pain after running');
  await p.waitForText('Ibuprofen with food.');
  await p.send('/sessions');
  await p.waitForText('Recent sessions');
  const first = /● (\d{8}-\d{6}-[0-9a-f]{4})/.exec(p.screen())![1]!;
  await p.send('/new');
  await p.waitForText('new conversation');
  fixture.double.chat.enqueue({ reasoning: [], content: ['Drink water.'] });
  await p.send('headache');
  await p.waitForText('Drink water.');
  await idleBox(p);
  const before = printed(p.all());
  await p.send(`/resume ${first}`);
  await p.waitForText(`resumed session ${first}`);
  await idleBox(p);
  const after = printed(p.all());
  assert.deepEqual(after.slice(0, before.length), before, after.join('\n'));
  const added = after.slice(before.length).join('\n');
  assert.match(added, new RegExp(`resumed session ${first}[\\s\\S]*› knee pain after running[\\s\\S]*Ibuprofen with food\\.`));
  intact(p.all(), written());
});

test('resizing while the reasoning streams, while the answer streams and while idle: no stale block, every line once', { skip }, async () => {
  const { p, written } = pane({}, { width: 72, height: 24 });
  await p.ready();
  const paragraphs = [
    'Paragraph one says that paracetamol is taken every four to six hours, at most four grams a day.',
    'Paragraph two says that ibuprofen is taken with food, and that people with ulcers should ask first.',
    'Paragraph three ends the answer.',
  ];
  const thought = words('I recall the usual doses and the warnings that matter most for adults and for children. ');
  fixture.double.chat.enqueue({ reasoning: [...thought, ...thought, ...thought], content: paragraphs.flatMap((x, i) => [...words(x), i < 2 ? '\n\n' : '']), paceMs: 50 });
  await p.send('doses?');
  await p.waitForText(/ {2}I recall/);
  p.tmux('resize-window', '-t', p.name, '-x', '46', '-y', '24');
  await p.waitForText('Paragraph one says', 15_000);
  p.tmux('resize-window', '-t', p.name, '-x', '64', '-y', '24');
  await p.waitForText(/\d+ in · \d+ out/, 15_000);
  await idleBox(p);
  p.tmux('resize-window', '-t', p.name, '-x', '50', '-y', '24');
  await sleep(600);
  const all = p.all();
  intact(all, written());
  const text = all.join(' ').replace(/\s+/g, ' ');
  assert.ok(!text.includes('Thinking…'), `no stale thinking block\n${all.join('\n')}`);
  assert.ok(!text.includes('Esc stop'), `no stale footer from while it streamed\n${all.join('\n')}`);
  let at = 0;
  for (const part of ['› doses?', '▸ Thought for', ...paragraphs]) {
    const i = text.indexOf(part, at);
    assert.ok(i >= at, `${part}\n${all.join('\n')}`);
    assert.equal(text.split(part).length, 2, `once: ${part}\n${all.join('\n')}`);
    at = i + part.length;
  }
});

test('Ctrl+G: back from the editor, the draft is in the box and nothing printed is touched', { skip }, async () => {
  const { p, written } = pane({ VISUAL: "printf 'from the editor' >" });
  await p.ready();
  fixture.double.chat.enqueue({ reasoning: [], content: ['Rest it.'] });
  await p.send('sprained ankle');
  await p.waitForText('Rest it.');
  await idleBox(p);
  const before = printed(p.all());
  p.press('C-g');
  await p.waitForText('│ › from the editor');
  await sleep(300);
  assert.deepEqual(printed(p.all()), before);
  intact(p.all(), written());
});
