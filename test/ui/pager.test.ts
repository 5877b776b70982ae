import assert from 'node:assert/strict';
import { test } from 'node:test';
import { findLine, highlight, openPager, pagerKey, statusLine, syncPager, visibleLines, type PagerState } from '../../src/ui/viewer/pager.js';
import type { Key } from '../../src/ui/text/keys.js';

// The transcript viewer's paging, key by key, without a terminal.
const LINES = Array.from({ length: 100 }, (_, i) => `line ${i}`);
const k = (name: Exclude<Key['name'], 'text' | 'paste'>): Key => ({ name }) as Key;
const t = (text: string): Key => ({ name: 'text', text });

function press(s: PagerState, ...keys: Key[]): PagerState {
  for (const key of keys) s = pagerKey(s, key, LINES).state;
  return s;
}

test('it opens at the end, following, or at a given line; a page is the height less one line of overlap', () => {
  const end = openPager(10, LINES.length);
  assert.equal(end.top, 90);
  assert.equal(end.follow, true);
  assert.deepEqual(visibleLines(end, LINES), LINES.slice(90));
  const at = openPager(10, LINES.length, 42);
  assert.equal(at.top, 42);
  assert.equal(at.follow, false);
  assert.equal(press(at, k('page-down')).top, 51);
  assert.equal(press(at, t(' ')).top, 51);
  assert.equal(press(at, k('page-up')).top, 33);
  assert.equal(press(at, t('b')).top, 33);
  assert.equal(press(at, t('d')).top, 47);
  assert.equal(press(at, t('u')).top, 37);
});

test('arrows, j/k, Home/End and g/G move the view and never past either end', () => {
  const s = openPager(10, LINES.length, 0);
  assert.equal(press(s, k('up')).top, 0);
  assert.equal(press(s, t('k')).top, 0);
  assert.equal(press(s, k('down'), k('down')).top, 2);
  assert.equal(press(s, t('jjj')).top, 3, 'several keys in one read each count');
  assert.equal(press(s, k('end')).top, 90);
  assert.equal(press(s, t('G')).top, 90);
  assert.equal(press(s, t('G'), k('down'), k('page-down')).top, 90);
  assert.equal(press(s, t('G'), t('g')).top, 0);
  assert.equal(press(s, t('G'), k('home')).top, 0);
  // Fewer lines than the screen: always from the first.
  const short = openPager(10, 3);
  assert.equal(short.top, 0);
  assert.equal(pagerKey(short, k('page-down'), LINES.slice(0, 3)).state.top, 0);
});

test('q, Esc, Ctrl+O and Ctrl+C leave; Ctrl+L asks for a redraw; other keys do nothing', () => {
  const s = openPager(10, LINES.length, 5);
  for (const key of [t('q'), k('escape'), k('ctrl-o'), k('ctrl-c')]) assert.equal(pagerKey(s, key, LINES).close, true);
  assert.equal(pagerKey(s, t('jq'), LINES).close, true);
  assert.equal(pagerKey(s, k('ctrl-l'), LINES).redraw, true);
  assert.equal(pagerKey(s, t('x'), LINES).state.top, 5);
  assert.equal(pagerKey(s, k('tab'), LINES).state.top, 5);
});

test('following: lines added at the end keep the view at the end; scrolled up, it stays put', () => {
  let s = openPager(10, 50);
  assert.equal(s.follow, true);
  s = syncPager(s, 60);
  assert.equal(s.top, 50);
  s = press(s, k('up'));
  assert.equal(s.follow, false);
  s = syncPager(s, 80);
  assert.equal(s.top, 49);
  // A taller window shows more; a shorter one keeps the top line.
  assert.equal(syncPager(s, 80, 20).top, 49);
  assert.equal(syncPager(openPager(10, 80), 80, 20).top, 60, 'following, the end stays at the bottom');
});

test('/ searches forward from the top line (smart case), n and N go on either way and wrap around', () => {
  const lines = ['Fever in adults', 'dose: one gram', 'nothing', 'A fever in babies', 'more', 'fever again', 'x', 'y', 'z', 'end'];
  let s = openPager(3, lines.length, 0);
  const key = (st: PagerState, ...keys: Key[]) => keys.reduce((acc, kk) => pagerKey(acc, kk, lines).state, st);
  s = key(s, t('/'));
  assert.equal(s.typing, '');
  assert.equal(statusLine(s, lines.length, 80), '/');
  s = key(s, t('fev'), t('x'), k('backspace'), t('er'));
  assert.equal(statusLine(s, lines.length, 80), '/fever');
  s = key(s, k('enter'));
  assert.equal(s.typing, undefined);
  assert.equal(s.top, 0, 'the top line matches (any case)');
  s = key(s, t('n'));
  assert.equal(s.top, 3);
  s = key(s, t('n'));
  assert.equal(s.top, 5);
  assert.equal(s.match, 5);
  s = key(s, t('n'));
  assert.equal(s.top, 0);
  assert.match(s.note ?? '', /past the end/);
  s = key(s, t('N'));
  assert.equal(s.top, 5);
  // A capital letter: exact case.
  s = key(s, t('/Fever'), k('enter'));
  assert.equal(s.top, 0);
  s = key(s, t('n'));
  assert.equal(s.top, 0, 'the only exact match');
  // Not found: the view stays, the status line says so until the next key.
  const before = s.top;
  s = key(s, t('/nausea'), k('enter'));
  assert.equal(s.top, before);
  assert.match(statusLine(s, lines.length, 80), /not found: nausea/);
  s = key(s, k('down'));
  assert.doesNotMatch(statusLine(s, lines.length, 80), /not found/);
  // A paste into the search: its first line, no control characters (it is echoed on the status line).
  assert.equal(key(openPager(3, lines.length, 0), t('/'), { name: 'paste', text: 'fe\x1b[2Jver\nsecond' }).typing, 'fe[2Jver');
  // Esc gives up typing without leaving; n before any search says how to search.
  const typing = key(openPager(3, lines.length, 0), t('/fe'), k('escape'));
  assert.equal(typing.typing, undefined);
  assert.equal(pagerKey(typing, k('escape'), lines).close, true);
  assert.match(key(openPager(3, lines.length, 0), t('n')).note ?? '', /no search yet/);
});

test('near the end, n goes on from the match shown, not from the top line', () => {
  const lines = Array.from({ length: 20 }, (_, i) => (i === 15 || i === 17 ? `hit ${i}` : `line ${i}`));
  let s = openPager(10, lines.length, 0);
  s = pagerKey(pagerKey(s, t('/hit'), lines).state, k('enter'), lines).state;
  assert.equal(s.match, 15);
  assert.equal(s.top, 10, 'as far down as it goes');
  s = pagerKey(s, t('n'), lines).state;
  assert.equal(s.match, 17);
  s = pagerKey(s, t('n'), lines).state;
  assert.equal(s.match, 15);
});

test('findLine reads the text without its colours', () => {
  assert.deepEqual(findLine(['a', '\x1b[1mbo\x1b[22mld'], 'bold', -1, 1), { line: 1, wrapped: false });
  assert.equal(findLine(['a'], '', 0, 1), undefined);
  assert.equal(findLine([], 'a', 0, 1), undefined);
});

test('the status line says where the view is and fits the width; matches are shown in reverse video', () => {
  const s = openPager(10, LINES.length, 0);
  assert.equal(statusLine(s, 100, 100), 'Transcript · lines 1–10 of 100 (10%) · ↑↓ PgUp PgDn Home End · / search · q back');
  assert.equal(statusLine(s, 100, 60), 'Transcript · lines 1–10 of 100 (10%) · / search · q back');
  assert.equal(statusLine(s, 100, 40), 'lines 1–10 of 100 (10%) · q back');
  assert.equal(statusLine(openPager(10, 100), 100, 100).includes('lines 91–100 of 100 (end)'), true);
  assert.equal(statusLine(openPager(10, 0), 0, 100).includes('empty'), true);
  assert.equal(highlight('\x1b[1mA fever\x1b[22m and FEVER', 'fever', true), 'A \x1b[7mfever\x1b[27m and \x1b[7mFEVER\x1b[27m');
  assert.equal(highlight('A fever', 'fever', false), 'A fever', 'no styling without colour');
  assert.equal(highlight('A fever', 'cough', true), 'A fever');
});
