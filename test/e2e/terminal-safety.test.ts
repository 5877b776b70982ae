// Service text on a real terminal (tmux): a saved answer full of escape sequences and bidi
// overrides is shown as visible symbols by `sessions export`, `sessions show`, `sessions list`
// and one-shot mode — no title change, no clipboard write, no alternate screen — while a pipe or
// a file gets the text exactly as received.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { startServiceDouble, type ServiceDouble } from '../../src/stand-in/index.js';
import { TEST_KEY, runCli, tempHome } from '../support/cli.js';
import { TmuxPane, tmuxSkip } from '../support/tmux.js';

let double: ServiceDouble;
const homes: string[] = [];
before(async () => {
  double = await startServiceDouble();
});
after(async () => {
  await double.close();
  for (const h of homes) fs.rmSync(h, { recursive: true, force: true, maxRetries: 5 });
});

/** An answer that would take over a terminal if obeyed, and reorder what is read (Trojan Source). */
const HOSTILE = [
  'Dose: 5 mg',
  '\x1b]0;PWNED-TITLE\x07',
  '\x1b]2;PWNED-TITLE2\x1b\\',
  ' clip\x1b]52;c;cm0gLXJmIH4=\x07',
  ' link\x1b]8;;http://evil.example\x07here\x1b]8;;\x07',
  ' alt\x1b[?1049h',
  ' move\x1b[5A\x1b[2K',
  ' c1\x9b2J',
  ' bidi \u202e50 mg\u202c and \u2066iso\u2069 end',
];
const ANSWER = HOSTILE.join('');
const BAD = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

/** A saved session whose answer is HOSTILE; returns its home and id. */
async function savedHostileSession(question = 'what dose?'): Promise<{ home: string; id: string }> {
  const home = tempHome();
  homes.push(home);
  double.chat.enqueue({ reasoning: ['thinking \x1b]0;PWNED-R\x07 \u202eok'], content: HOSTILE });
  const r = await runCli([question], { baseUrl: double.url, home });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, ANSWER, 'piped one-shot output is exactly what the service sent');
  const list = await runCli(['sessions', 'list'], { home });
  return { home, id: list.stdout.split(' ')[0]! };
}

/** Run medchat in a tmux pane that would accept OSC 52, wait for it to end, and check nothing was obeyed. */
async function onTerminal(args: string[], home: string, extraEnv: Record<string, string> = {}): Promise<{ code: number; screen: string }> {
  const pane = new TmuxPane(args, { ...extraEnv }, { home, width: 220, height: 50 });
  try {
    pane.tmux('set-option', '-g', 'set-clipboard', 'on');
    const end = await pane.exited();
    const screen = pane.screen();
    const title = pane.tmux('display-message', '-p', '-t', pane.name, '#{pane_title}').trim();
    assert.ok(!title.startsWith('PWNED'), `the pane title was changed to ${title}`);
    assert.equal(pane.tmux('display-message', '-p', '-t', pane.name, '#{alternate_on}').trim(), '0', 'no alternate screen');
    assert.equal(pane.tmux('list-buffers').trim(), '', 'nothing was written to the clipboard');
    assert.doesNotMatch(screen, /\n\s+at |node:internal/, 'no stack trace');
    return { code: end.code, screen };
  } finally {
    pane.kill();
  }
}

/** What HOSTILE looks like when shown safely. */
const SHOWN = /Dose: 5 mg␛\]0;PWNED-TITLE␇␛\]2;PWNED-TITLE2␛\\ clip␛\]52;c;cm0gLXJmIH4=␇ link␛\]8;;http:\/\/evil\.example␇here␛\]8;;␇ alt␛\[\?1049h move␛\[5A␛\[2K c1� ?2J bidi <U\+202E>50 mg<U\+202C> and <U\+2066>iso<U\+2069> end/;

// One at a time: the tests share one double, and a script enqueued by one must reach its own request.
describe('saved answers on a terminal', () => {
  test('sessions export <id> on a terminal: escape sequences and bidi overrides are shown, never obeyed', { skip: tmuxSkip }, async () => {
    const { home, id } = await savedHostileSession();
    const { code, screen } = await onTerminal(['sessions', 'export', id, '--reasoning'], home);
    assert.equal(code, 0, screen);
    assert.match(screen, SHOWN, screen);
    assert.match(screen, /thinking ␛\]0;PWNED-R␇ <U\+202E>ok/, 'the reasoning too');
  });

  test('sessions export -f json on a terminal: the same value, the controls as \\u escapes', { skip: tmuxSkip }, async () => {
    const { home, id } = await savedHostileSession();
    const { code, screen } = await onTerminal(['sessions', 'export', id, '-f', 'json'], home);
    assert.equal(code, 0, screen);
    assert.ok(screen.includes('\\u001b]0;PWNED-TITLE\\u0007') && screen.includes('\\u202e50 mg\\u202c') && screen.includes('\\u009b2J'), screen);
  });

  test('sessions show and sessions list on a terminal: the answer and a hostile title are shown safely', { skip: tmuxSkip }, async () => {
    const { home, id } = await savedHostileSession('dose of \u202egnp\u202c?');
    const show = await onTerminal(['sessions', 'show', id], home);
    assert.equal(show.code, 0, show.screen);
    assert.match(show.screen, SHOWN, show.screen);
    const list = await onTerminal(['sessions', 'list'], home);
    assert.equal(list.code, 0, list.screen);
    assert.ok(list.screen.includes(`${id}`) && list.screen.includes('dose of <U+202E>gnp<U+202C>?'), list.screen);
  });

  test('one-shot on a terminal: answer and reasoning with bidi overrides and escapes are shown safely', { skip: tmuxSkip }, async () => {
    const home = tempHome();
    homes.push(home);
    double.chat.enqueue({ reasoning: ['weighing \u202eevil\u202c \x1b]0;PWNED-R\x07'], content: HOSTILE });
    const { code, screen } = await onTerminal(['what dose?'], home, { MEDCHAT_BASE_URL: double.url, MEDCHAT_API_KEY: TEST_KEY });
    assert.equal(code, 0, screen);
    assert.match(screen, SHOWN, screen);
    assert.match(screen, /weighing <U\+202E>evil<U\+202C> ␛\]0;PWNED-R␇/, screen);
  });

  test('an error message from the service with escapes and bidi: one line on the terminal, shown safely', { skip: tmuxSkip }, async () => {
    const home = tempHome();
    homes.push(home);
    const body = JSON.stringify({ error: { message: 'Invalid key \x1b]0;PWNED-TITLE\x07 \u202eyek\u202c', type: 'invalid_request_error' } });
    double.chat.enqueue({ status: 401, body });
    const { code, screen } = await onTerminal(['what dose?'], home, { MEDCHAT_BASE_URL: double.url, MEDCHAT_API_KEY: TEST_KEY });
    assert.equal(code, 3, screen);
    const line = screen.split('\n').find((l) => l.startsWith('medchat:'));
    assert.ok(line && !BAD.test(line), screen);
    assert.ok(line.includes('<U+202E>yek<U+202C>'), line);
  });
});

describe('the chat screen', () => {
  const checkPane = (pane: TmuxPane) => {
    const screen = pane.screen();
    const title = pane.tmux('display-message', '-p', '-t', pane.name, '#{pane_title}').trim();
    assert.ok(!title.startsWith('PWNED'), `the pane title was changed to ${title}`);
    assert.equal(pane.tmux('display-message', '-p', '-t', pane.name, '#{alternate_on}').trim(), '0', 'no alternate screen');
    assert.equal(pane.tmux('list-buffers').trim(), '', 'nothing was written to the clipboard');
    return screen;
  };

  test('a streamed answer with bidi overrides and escapes is shown with visible symbols', { skip: tmuxSkip }, async () => {
    const h = tempHome();
    homes.push(h);
    const pane = new TmuxPane([], { MEDCHAT_BASE_URL: double.url, MEDCHAT_API_KEY: TEST_KEY }, { home: h, width: 120, height: 40 });
    try {
      pane.tmux('set-option', '-g', 'set-clipboard', 'on');
      await pane.ready();
      double.chat.enqueue({ reasoning: [], content: ['Take \u202e01 gm\u202c and \u2066iso\u2069 \x1b]0;PWNED-TITLE\x07 \x1b]52;c;cm0=\x07 \x1b[?1049h done'] });
      await pane.send('what dose?');
      await pane.waitForText('done');
      const screen = checkPane(pane);
      assert.ok(screen.includes('Take <U+202E>01 gm<U+202C> and <U+2066>iso<U+2069> ␛]0;PWNED-TITLE␇'), screen);
      pane.press('C-d');
      assert.equal((await pane.exited()).code, 0);
    } finally {
      pane.kill();
    }
  });

  test('--resume of a saved hostile session reprints it with visible symbols', { skip: tmuxSkip }, async () => {
    const { home: h, id } = await savedHostileSession();
    const pane = new TmuxPane(['--resume', id], { MEDCHAT_BASE_URL: double.url, MEDCHAT_API_KEY: TEST_KEY }, { home: h, width: 300, height: 40 });
    try {
      pane.tmux('set-option', '-g', 'set-clipboard', 'on');
      await pane.ready();
      await pane.waitForText('<U+202E>50 mg<U+202C>');
      const screen = checkPane(pane);
      assert.ok(screen.includes('␛]0;PWNED-TITLE␇'), screen);
      pane.press('C-d');
      assert.equal((await pane.exited()).code, 0);
    } finally {
      pane.kill();
    }
  });
});

describe('saved answers to a pipe or a file', () => {
  test('sessions export to a pipe or with -o keeps the transcript exact; -f json parses back to the exact answer', async () => {
    const { home, id } = await savedHostileSession();
    const md = await runCli(['sessions', 'export', id], { home });
    assert.equal(md.code, 0, md.stderr);
    assert.ok(md.stdout.includes(`\n${ANSWER}\n`), 'the Markdown export holds the answer byte for byte');
    const json = await runCli(['sessions', 'export', id, '-f', 'json'], { home });
    assert.equal(json.code, 0, json.stderr);
    assert.doesNotMatch(json.stdout, BAD, 'the JSON text itself carries no raw control');
    assert.equal(JSON.parse(json.stdout).turns[0].answer, ANSWER);
    const file = `${home}/export.md`;
    const toFile = await runCli(['sessions', 'export', id, '-o', file], { home });
    assert.equal(toFile.code, 0, toFile.stderr);
    assert.ok(fs.readFileSync(file, 'utf8').includes(`\n${ANSWER}\n`), 'the file export holds the answer byte for byte');
  });

  test('--json and --jsonl on a pipe: the exact answer, with no raw control or bidi character in the JSON text', async () => {
    const home = tempHome();
    homes.push(home);
    double.chat.enqueue({ reasoning: [], content: HOSTILE });
    const one = await runCli(['--json', 'what dose?'], { baseUrl: double.url, home });
    assert.equal(one.code, 0, one.stderr);
    assert.doesNotMatch(one.stdout, BAD);
    assert.equal(JSON.parse(one.stdout).content, ANSWER);
    double.chat.enqueue({ reasoning: [], content: HOSTILE });
    const lines = await runCli(['--jsonl', 'what dose?'], { baseUrl: double.url, home });
    assert.equal(lines.code, 0, lines.stderr);
    assert.doesNotMatch(lines.stdout, BAD);
    const events = lines.stdout.trim().split('\n').map((l) => JSON.parse(l));
    assert.equal(events.filter((e) => e.type === 'content').map((e) => e.text).join(''), ANSWER);
  });
});
