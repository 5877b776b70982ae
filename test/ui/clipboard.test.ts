import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type ClipboardHost, copyText, describeCopy, osc52Sequence, passthrough } from '../../src/ui/slash/clipboard.js';

/**
 * A pretend machine: `programs` say which commands work (and what a query prints); every run and
 * every terminal write is recorded.
 */
function host(env: NodeJS.ProcessEnv, programs: Record<string, boolean | string> = {}, platform: NodeJS.Platform = 'linux', terminal = true) {
  const runs: string[] = [];
  const inputs: string[] = [];
  const writes: string[] = [];
  const h: ClipboardHost = {
    env,
    platform,
    run(cmd, args, input) {
      const line = [cmd, ...args].join(' ');
      runs.push(line);
      inputs.push(input);
      return programs[line] === true || programs[cmd] === true;
    },
    query(cmd, args) {
      const line = [cmd, ...args].join(' ');
      runs.push(line);
      const out = programs[line];
      return typeof out === 'string' ? out : undefined;
    },
    write: terminal ? (d) => writes.push(d) : undefined,
  };
  return { h, runs, inputs, writes };
}

const TMUX = { TMUX: '/tmp/tmux-1000/default,123,0', TMUX_PANE: '%3' };
const QUERY = 'tmux display-message -p -t %3 #{set-clipboard}|#{client_termfeatures}|#{allow-passthrough}';
const text = 'Paracetamol 15 mg/kg.\n'.repeat(60);

test('in tmux with default settings: tmux load-buffer -w, no OSC 52 (tmux would drop it), and the message says where it went', () => {
  const m = host(TMUX, { 'tmux load-buffer -w -': true, [QUERY]: 'external|256,RGB,clipboard,title|0\n' });
  const o = copyText(text, m.h);
  assert.deepEqual(m.runs, ['tmux load-buffer -w -', QUERY]);
  assert.equal(m.inputs[0], text);
  assert.deepEqual(m.writes, []);
  assert.equal(
    describeCopy('the last answer', text, o).text,
    "copied the last answer (1,320 characters) to tmux's paste buffer (prefix + ]) and, through tmux, to the terminal's clipboard",
  );
});

test("in tmux when the outer terminal takes no clipboard writes, or set-clipboard is off: only tmux's buffer is claimed", () => {
  for (const info of ['external|256,RGB|0', 'off|clipboard|0', '']) {
    const m = host(TMUX, { 'tmux load-buffer -w -': true, [QUERY]: info });
    const r = describeCopy('the last answer', 'abc', copyText('abc', m.h));
    assert.equal(r.text, "copied the last answer (3 characters) to tmux's paste buffer (prefix + ])", info);
    assert.deepEqual(m.writes, []);
  }
});

test('in tmux with allow-passthrough on and no clipboard through tmux, OSC 52 goes out wrapped for passthrough', () => {
  const m = host(TMUX, { 'tmux load-buffer -w -': true, [QUERY]: 'off||1' });
  const o = copyText('abc', m.h);
  assert.deepEqual(m.writes, [passthrough(osc52Sequence('abc'), 'tmux')]);
  assert.match(m.writes[0]!, /^\x1bPtmux;\x1b\x1b\]52;c;YWJj\x07\x1b\\$/);
  assert.equal(
    describeCopy('the last answer', 'abc', o).text,
    "copied the last answer (3 characters) to tmux's paste buffer (prefix + ]); also sent to the terminal by OSC 52 (tmux passthrough): your terminal may ignore it",
  );
});

test('tmux before 3.2 (no -w): the paste buffer alone', () => {
  const m = host(TMUX, { 'tmux load-buffer -': true, [QUERY]: 'external|clipboard|' });
  const o = copyText('abc', m.h);
  assert.deepEqual(m.runs.slice(0, 2), ['tmux load-buffer -w -', 'tmux load-buffer -']);
  assert.equal(o.tmuxBuffer, true);
  assert.equal(o.tmuxClipboard, false, 'without -w tmux did not send it on');
});

test('in tmux, a desktop clipboard program is used as well and named', () => {
  const m = host({ ...TMUX, DISPLAY: ':0' }, { 'tmux load-buffer -w -': true, [QUERY]: 'external|clipboard|0', xclip: true });
  const r = describeCopy('code block 1 of 2 (bash)', 'ls', copyText('ls', m.h));
  assert.equal(r.text, "copied code block 1 of 2 (bash) (2 characters) to tmux's paste buffer (prefix + ]) and, through tmux, to the terminal's clipboard, and with xclip");
});

test('on a desktop the first clipboard program that works is used, and no OSC 52 is sent', () => {
  const m = host({ WAYLAND_DISPLAY: 'wayland-0', DISPLAY: ':0' }, { xsel: true });
  const o = copyText('abc', m.h);
  assert.deepEqual(m.runs, ['wl-copy', 'xclip -selection clipboard', 'xsel --clipboard --input']);
  assert.deepEqual(m.writes, []);
  assert.equal(describeCopy('the last answer', 'abc', o).text, 'copied the last answer (3 characters) with xsel');
  const mac = host({}, { pbcopy: true }, 'darwin');
  assert.equal(describeCopy('the last answer', 'abc', copyText('abc', mac.h)).text, 'copied the last answer (3 characters) with pbcopy');
});

test('with no program: OSC 52, and the message does not claim a copy', () => {
  const m = host({ TERM: 'xterm-256color' });
  const o = copyText('abc', m.h);
  assert.deepEqual(m.runs, []);
  assert.deepEqual(m.writes, ['\x1b]52;c;YWJj\x07']);
  const r = describeCopy('the last answer', 'abc', o);
  assert.equal(r.text, 'sent the last answer (3 characters) to the terminal by OSC 52: your terminal may ignore it');
  assert.doesNotMatch(r.text, /copied/);
});

test('over SSH a clipboard program fills the remote clipboard: it says so, and OSC 52 is sent too', () => {
  const m = host({ SSH_CONNECTION: '10.0.0.2 5000 10.0.0.1 22', DISPLAY: 'localhost:10.0' }, { xclip: true });
  const r = describeCopy('the last answer', 'abc', copyText('abc', m.h));
  assert.deepEqual(m.writes, ['\x1b]52;c;YWJj\x07']);
  assert.equal(r.text, 'copied the last answer (3 characters) with xclip (the clipboard of the machine medchat runs on); also sent to the terminal by OSC 52: your terminal may ignore it');
});

test('inside GNU screen OSC 52 is wrapped for screen', () => {
  const m = host({ STY: '1234.pts-0.host', TERM: 'screen' });
  copyText('abc', m.h);
  assert.deepEqual(m.writes, ['\x1bP\x1b]52;c;YWJj\x07\x1b\\']);
});

test('MEDCHAT_NO_CLIPBOARD_TOOL runs nothing; when nothing can take the text it says so as a warning', () => {
  const inTmux = host({ ...TMUX, MEDCHAT_NO_CLIPBOARD_TOOL: '1', DISPLAY: ':0' }, { xclip: true, tmux: true });
  const r = describeCopy('the last answer', 'abc', copyText('abc', inTmux.h));
  assert.deepEqual(inTmux.runs, []);
  assert.deepEqual(inTmux.writes, []);
  assert.equal(r.tone, 'warn');
  assert.match(r.text, /^could not copy the last answer: MEDCHAT_NO_CLIPBOARD_TOOL is set, and tmux drops OSC 52 unless allow-passthrough is on/);
  const broken = host(TMUX, {});
  assert.match(describeCopy('the last answer', 'abc', copyText('abc', broken.h)).text, /^could not copy the last answer: tmux did not take it/);
  const noTerminal = host({}, {}, 'linux', false);
  assert.match(describeCopy('the last answer', 'abc', copyText('abc', noTerminal.h)).text, /no clipboard program works here, and this is not a terminal/);
});
