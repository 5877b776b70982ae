import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hyperlinksSupported, LINK_CLOSE, linkOpen, MAX_LINK_LENGTH, safeLinkTarget } from '../../src/core/text/hyperlinks.js';

test('links are clickable only on terminals known to handle OSC 8, never in tmux, off a terminal or with NO_COLOR', () => {
  const on = (env: NodeJS.ProcessEnv, tty = true) => hyperlinksSupported(env, tty);
  assert.equal(on({ TERM_PROGRAM: 'iTerm.app', TERM_PROGRAM_VERSION: '3.5.0' }), true);
  assert.equal(on({ TERM_PROGRAM: 'iTerm.app', TERM_PROGRAM_VERSION: '3.0.15' }), false);
  assert.equal(on({ TERM_PROGRAM: 'WezTerm', TERM_PROGRAM_VERSION: '20240203-110809-5046fc22' }), true);
  assert.equal(on({ TERM_PROGRAM: 'vscode', TERM_PROGRAM_VERSION: '1.95.0' }), true);
  assert.equal(on({ VTE_VERSION: '7600', TERM: 'xterm-256color' }), true);
  assert.equal(on({ VTE_VERSION: '4601' }), false);
  assert.equal(on({ KITTY_WINDOW_ID: '1', TERM: 'xterm-kitty' }), true);
  assert.equal(on({ WT_SESSION: 'abc' }), true);
  // Unknown terminals, plain xterm, the Linux console, SSH without a terminal name: no.
  assert.equal(on({ TERM: 'xterm-256color' }), false);
  assert.equal(on({ TERM: 'linux' }), false);
  // Known terminals lose it inside tmux or screen, off a terminal, with NO_COLOR, with TERM=dumb.
  const vte = { VTE_VERSION: '7600', TERM: 'xterm-256color' };
  assert.equal(on({ ...vte, TMUX: '/tmp/tmux-1/default,1,0' }), false);
  assert.equal(on({ ...vte, TERM: 'tmux-256color' }), false);
  assert.equal(on({ ...vte, STY: '1.pts-0.host' }), false);
  assert.equal(on(vte, false), false);
  assert.equal(on({ ...vte, NO_COLOR: '1' }), false);
  assert.equal(on({ ...vte, TERM: 'dumb' }), false);
  // FORCE_HYPERLINK decides when set.
  assert.equal(on({ TERM: 'xterm', TMUX: 'x', FORCE_HYPERLINK: '1' }), true);
  assert.equal(on({ ...vte, FORCE_HYPERLINK: '0' }), false);
});

test('only http, https and mailto targets, with nothing a terminal could obey, and not too long', () => {
  assert.equal(safeLinkTarget('https://www.nhs.uk/conditions/fever/'), 'https://www.nhs.uk/conditions/fever/');
  assert.equal(safeLinkTarget('mailto:clinic@example.org'), 'mailto:clinic@example.org');
  // Non-ASCII is percent-encoded or punycoded: the target sent is printable ASCII.
  assert.equal(safeLinkTarget('https://bücher.example/straße?q=über'), 'https://xn--bcher-kva.example/stra%C3%9Fe?q=%C3%BCber');
  for (const bad of [
    'javascript:alert(1)',
    'file:///etc/passwd',
    'ftp://example.org/',
    'data:text/html,hi',
    'https://example.org/\x1b]8;;evil\x07',
    'https://example.org/\x07',
    'https://example.org/\x9c',
    'https://example.org/\u202e',
    'https://user:pw@example.org/',
    'https://nhs.uk@evil.example/',
    'not a url',
    `https://example.org/${'a'.repeat(MAX_LINK_LENGTH)}`,
  ]) {
    assert.equal(safeLinkTarget(bad), undefined, JSON.stringify(bad));
  }
});

test('a link is opened with an id (so its pieces on several rows go together) and BEL-terminated, as Ink reads it', () => {
  const open = linkOpen('https://example.org/');
  assert.match(open, /^\x1b\]8;id=mc[0-9a-z]+;https:\/\/example\.org\/\x07$/);
  assert.equal(open, linkOpen('https://example.org/'));
  assert.notEqual(open, linkOpen('https://example.org/other'));
  assert.equal(LINK_CLOSE, '\x1b]8;;\x07');
});
