import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runCli, waitFor } from '../support/cli.js';
import { builtSkip, hasScript, paneFixture, TmuxPane } from '../support/tmux.js';

// Screen-reader mode (issue 23): the real medchat in a pseudo-terminal, every byte it writes
// recorded (util-linux `script`), and the same conversation read back from tmux. A screen reader
// reads what is appended; anything that moves the cursor back, erases or redraws loses its place.
const skip = builtSkip || (!hasScript && 'util-linux script is not installed');
const fixture = paneFixture();

const Q1 = 'what is a normal adult resting heart rate';
const Q2 = 'compare two beta blockers';
const REASONING = ['The user asks ', 'about resting ', 'heart rate in adults.'];
const A1 = ['A normal adult resting heart rate ', 'is 60 to 100 beats per minute.'];
const A2 =
  'Both are **cardioselective** beta blockers.\n\n' +
  '| Drug | Dose | Half-life |\n|---|---|---|\n| Metoprolol | 50 mg twice daily | 3 to 7 hours |\n| Bisoprolol | 5 mg once daily | 10 to 12 hours |\n\n' +
  'Bisoprolol needs one dose a day.\n\nCheck the pulse before each dose.';
/** The second answer in pieces of a few characters, as a stream arrives. */
const pieces = (s: string) => s.match(/[\s\S]{1,7}/g)!;

function open(args: string[], env: Record<string, string> = {}, home?: string, record?: string): TmuxPane {
  const p = new TmuxPane(args, { MEDCHAT_BASE_URL: fixture.double.url, MEDCHAT_API_KEY: 'sk-test-screen-reader', ...env }, { width: 80, height: 40, ...(home ? { home } : {}), ...(record ? { record } : {}) });
  fixture.panes.push(p);
  return p;
}

/** Type a line and press Enter, as a person with the terminal's own echo would. */
function say(p: TmuxPane, line: string): void {
  p.type(line);
  p.press('Enter');
}

const MODE_ON = 'Screen-reader mode is on';
/** Every word of `text`, in order, somewhere in `haystack` (each after the one before). */
function assertWordsInOrder(haystack: string, text: string, what: string): void {
  let at = 0;
  for (const word of text.split(/\s+/).filter(Boolean)) {
    const i = haystack.indexOf(word, at);
    assert.ok(i >= 0, `${what}: "${word}" after position ${at}\n${haystack.slice(at, at + 400)}`);
    at = i + word.length;
  }
}

test('--screen-reader: a whole conversation is appended as plain lines (no escape sequence, no control but CR and LF), labelled, the reasoning one line, the table as column: value lines; tmux shows the same', { skip, timeout: 60_000 }, async () => {
  fixture.double.chat.enqueue(
    { reasoning: REASONING, content: A1, paceMs: 20 },
    { reasoning: [], content: pieces(A2), paceMs: 10 },
  );
  const record = path.join(fs.mkdtempSync('/tmp/medchat-sr-'), 'bytes');
  const p = open(['--screen-reader'], {}, undefined, record);
  await p.waitForText(MODE_ON);
  say(p, Q1);
  await p.waitForText('end of answer');
  say(p, Q2);
  await p.waitForText('Check the pulse before each dose.');
  await waitFor(() => p.screen().split('end of answer').length === 3, 10_000, () => `the second answer's end\n${p.screen()}`);
  say(p, '/reasoning');
  await p.waitForText('end of reasoning');
  say(p, '/status');
  await p.waitForText('context window:');
  say(p, '/exit');
  const { code } = await p.exited();
  assert.equal(code, 0);

  const bytes = p.recording();
  const text = bytes.toString('utf8');
  // No escape sequence at all: no cursor movement, no erase, no alternate screen, no colour, no title.
  assert.ok(!text.includes('\x1b'), `no ESC in what medchat wrote: ${JSON.stringify(text.slice(Math.max(0, text.indexOf('\x1b') - 40), text.indexOf('\x1b') + 40))}`);
  assert.ok(!text.includes('\u009b'), 'no 8-bit CSI either');
  const controls = [...text].filter((ch) => /[\x00-\x1f\x7f]/.test(ch) && ch !== '\r' && ch !== '\n');
  assert.deepEqual(controls, [], 'only carriage return and line feed as controls (no backspace, no bell)');
  assert.doesNotMatch(text, /[\u2800-\u28ff]/, 'no spinner frames');
  assert.doesNotMatch(text, /[\u2500-\u257f]/, 'no box drawing');

  const lines = text.replace(/\r/g, '').split('\n');
  assert.match(lines[0]!, /^Screen-reader mode is on.*\/exit.*--no-screen-reader/, 'the first line says the mode is on and how to leave it');
  assert.ok(lines.includes(`you: ${Q1}`), 'the question labelled you:');
  assert.ok(lines.includes(`you: ${Q2}`));
  const medchat = lines.filter((l) => l.startsWith('medchat: '));
  assert.equal(medchat.length, 2, `each answer labelled once\n${medchat.join('\n')}`);
  assert.match(text, /thought for \d+ seconds?; \/reasoning reads it/, 'the reasoning as one line');
  assert.equal(text.split(REASONING.join('')).length, 2, 'the reasoning itself is read once: on /reasoning');

  // Every word of both answers, in order (the table read row by row).
  const after1 = text.indexOf(`you: ${Q1}`);
  assertWordsInOrder(text.slice(after1), `${A1.join('')} ${Q2}`, 'the first answer');
  const after2 = text.indexOf(`you: ${Q2}`);
  assertWordsInOrder(
    text.slice(after2),
    'Both are cardioselective beta blockers. Drug: Metoprolol Dose: 50 mg twice daily Half-life: 3 to 7 hours Drug: Bisoprolol Dose: 5 mg once daily Half-life: 10 to 12 hours Bisoprolol needs one dose a day. Check the pulse before each dose.',
    'the second answer',
  );
  assert.ok(!text.includes('**'), 'no Markdown marks read aloud');
  for (const l of ['Drug: Metoprolol', 'Dose: 50 mg twice daily', 'Half-life: 10 to 12 hours']) assert.ok(lines.includes(l), `the table as column: value lines: ${l}`);
  // /reasoning reads it; /status says the model, the window used and the session.
  assertWordsInOrder(text.slice(text.lastIndexOf('/reasoning')), `${REASONING.join('')} end of reasoning`, '/reasoning');
  assert.match(text, /model \S+; reasoning on; context window: [\d.,]+k? of [\d.,]+k? tokens used, \d+%/);
  assert.match(text, /session \S+, saved/);

  // The same conversation as the terminal shows it (tmux): the lines in the same order.
  const shown = p.all();
  const order = [MODE_ON, `you: ${Q1}`, 'medchat: A normal adult resting heart rate', `you: ${Q2}`, 'medchat: Both are cardioselective', 'table, 2 rows:', 'row 1:', 'Drug: Metoprolol', 'Half-life: 3 to 7 hours', 'row 2:', 'Drug: Bisoprolol', 'end of table', 'Bisoprolol needs one dose a day.', 'Check the pulse before each dose.', 'end of reasoning', 'context window:'];
  let at = 0;
  for (const want of order) {
    const i = shown.findIndex((l, j) => j >= at && l.includes(want));
    assert.ok(i >= 0, `tmux shows "${want}" after row ${at}\n${shown.join('\n')}`);
    at = i + 1;
  }
  fs.rmSync(path.dirname(record), { recursive: true, force: true });
});

test('INK_SCREEN_READER=true turns screen-reader mode on; so does `medchat config set screen-reader true`; --no-screen-reader turns it off', { skip, timeout: 60_000 }, async () => {
  const byEnv = open([], { INK_SCREEN_READER: 'true' });
  await byEnv.waitForText(MODE_ON);
  say(byEnv, '/exit');
  assert.equal((await byEnv.exited()).code, 0);

  const home = fs.mkdtempSync('/tmp/medchat-sr-home-');
  const set = await runCli(['config', 'set', 'screen-reader', 'true'], { home });
  assert.equal(set.code, 0, set.stderr);
  const byConfig = open([], {}, home);
  await byConfig.waitForText(MODE_ON);
  byConfig.press('C-d'); // Ctrl+D on an empty line leaves, as on the chat screen
  assert.equal((await byConfig.exited()).code, 0);

  const off = open(['--no-screen-reader'], { INK_SCREEN_READER: 'true' }, home);
  await off.ready();
  assert.ok(!off.screen().includes(MODE_ON), 'the flag comes first');
});

test('screen-reader mode: the privacy guard asks with numbered options, answered by number', { skip, timeout: 60_000 }, async () => {
  fixture.double.chat.defaultScript = { reasoning: [], content: ['Received.'] };
  const p = open(['--screen-reader']);
  await p.waitForText(MODE_ON);
  const before = fixture.double.chat.requests.length;
  say(p, 'Mrs Margaret Ellison, MRN K4471902: fit for discharge?');
  await p.waitForText('1 send as typed; 2 send with the identifiers replaced; 3 do not send');
  assert.match(p.screen(), /warning: found .*name/);
  say(p, 'r');
  await p.waitForText('type 1, 2 or 3 and press Enter');
  assert.equal(fixture.double.chat.requests.length, before, 'nothing sent while it asks');
  say(p, '2');
  await p.waitForText('Received.');
  assert.equal(fixture.double.chat.requests.length, before + 1);
  const sent = JSON.stringify(fixture.double.chat.requests.at(-1)!.body);
  assert.ok(!sent.includes('Ellison') && !sent.includes('K4471902'), `sent with the identifiers replaced: ${sent}`);
  // 3: not sent, and the question is said so it can be typed again.
  say(p, 'Mrs Margaret Ellison, MRN K4471902: and her potassium?');
  await waitFor(() => p.screen().split('1 send as typed').length === 3, 10_000, () => p.screen());
  say(p, '3');
  await p.waitForText('your question, to type again: Mrs Margaret Ellison');
  assert.equal(fixture.double.chat.requests.length, before + 1);
  say(p, '/exit');
  assert.equal((await p.exited()).code, 0);
});

test('screen-reader mode: Ctrl+C stops an answer (it says so on a line of its own); at the prompt, twice within 2 s leaves', { skip, timeout: 60_000 }, async () => {
  fixture.double.chat.enqueue({ reasoning: [], content: Array.from({ length: 400 }, (_, i) => `word${i}${i % 10 === 9 ? '\n\n' : ' '}`), paceMs: 20 });
  const p = open(['--screen-reader']);
  await p.waitForText(MODE_ON);
  say(p, 'a long answer please');
  await p.waitForText('medchat: word0');
  p.press('C-c');
  await p.waitForText('answer stopped; /retry asks again');
  assert.ok(!p.screen().includes('word399'), 'the answer stopped');
  assert.ok(p.all().some((l) => l.startsWith('medchat: word0')), `the label starts its line\n${p.all().join('\n')}`);
  p.press('C-c');
  await p.waitForText('press Ctrl+C again within 2 seconds');
  p.press('C-c');
  assert.equal((await p.exited()).code, 0);
});

test('screen-reader mode: a paste of several lines is one question, and a question typed while an answer streams is said to wait', { skip, timeout: 60_000 }, async () => {
  fixture.double.chat.enqueue({ reasoning: [], content: ['Noted.'], paceMs: 10 }, { reasoning: [], content: Array.from({ length: 60 }, (_, i) => `w${i}${i % 10 === 9 ? '\n\n' : ' '}`), paceMs: 150 }, { reasoning: [], content: ['Second.'] });
  const p = open(['--screen-reader']);
  await p.waitForText(MODE_ON);
  const before = fixture.double.chat.requests.length;
  p.tmux('set-buffer', '-b', 'note', 'BP 150/95\nHR 88\nsummarise these\n');
  p.tmux('paste-buffer', '-b', 'note', '-t', p.name);
  await p.waitForText('Noted.');
  assert.equal(fixture.double.chat.requests.length, before + 1, 'one question, not three');
  const sent = JSON.stringify(fixture.double.chat.requests.at(-1)!.body);
  assert.match(sent, /BP 150\/95\\nHR 88\\nsummarise these/);
  say(p, 'a long one');
  await waitFor(() => fixture.double.chat.requests.length === before + 2, 10_000, 'the second question to be sent');
  say(p, 'and then this');
  await p.waitForText('waiting: and then this; it goes when the answer ends');
  await p.waitForText('medchat: Second.', 15_000);
  say(p, '/exit');
  assert.equal((await p.exited()).code, 0);
});

test('screen-reader mode: each paragraph is printed as soon as it is finished, before the answer ends (medchat demo, whose stand-in streams a long answer)', { skip, timeout: 60_000 }, async () => {
  const p = new TmuxPane(['demo', '--screen-reader', '--no-think'], {}, { width: 80, height: 60 });
  fixture.panes.push(p);
  await p.waitForText(MODE_ON);
  say(p, 'long answer');
  await p.waitForText('medchat: Demo reply.', 15_000);
  const early = p.screen();
  assert.ok(!early.includes('end of answer'), `the first paragraph is said while the answer is still being written\n${early}`);
  await p.waitForText('end of answer', 30_000);
  const rows = p.all();
  assert.ok(rows.filter((r) => r.trim()).length > early.split('\n').filter((r) => r.trim()).length, 'more paragraphs followed it');
  say(p, '/exit');
  assert.equal((await p.exited()).code, 0);
});
