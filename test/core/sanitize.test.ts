// The terminal sanitiser and the JSON writer, as invariants over generated text: whatever the
// service sends, nothing a terminal obeys (ESC, C0 but \n and \t, DEL, C1, bidi controls) is left,
// text without such characters passes untouched, and JSON keeps the exact value.
// MEDCHAT_SEED=<n> replays a run; the seed is printed on failure.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { jsonForTerminal, needsSanitizing, sanitizeForTerminal, sanitizeLine } from '../../src/core/text/sanitize.js';
import { seededRandom } from '../support/prng.js';

const SEED = Number(process.env.MEDCHAT_SEED ?? Date.now() % 2 ** 31);
const CASES = 2000;

// Pieces a hostile answer is made of: whole escape sequences and single characters.
const PIECES = [
  '\x1b]0;PWNED\x07', '\x1b]2;title\x1b\\', '\x1b]52;c;cm0gLXJmIH4=\x07', '\x1b]8;;http://evil.example\x07link\x1b]8;;\x07',
  '\x1b[?1049h', '\x1b[2J', '\x1b[H', '\x1b[10A', '\x9b2J', '\x9d0;x\x9c', '\x90q\x9c', '\x7f', '\r', '\r\n', '\n', '\t', '\x00', '\x08',
  '\u202a', '\u202b', '\u202c', '\u202d', '\u202e', '\u2066', '\u2067', '\u2068', '\u2069', '\u200e', '\u200f', '\u061c', '\u2028', '\u2029',
  'Heart rate 60–100 bpm', ' ', 'é', '心率', '🫀', '|a|b|', '```', 'Amoxicillin 500 mg',
];
const BAD = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

function hostile(rand: () => number): string {
  let s = '';
  const n = Math.floor(rand() * 12);
  for (let i = 0; i < n; i++) s += PIECES[Math.floor(rand() * PIECES.length)];
  return s;
}

function withSeed(fn: (rand: () => number) => void): void {
  try {
    fn(seededRandom(SEED));
  } catch (err) {
    console.error(`sanitize invariants failed with MEDCHAT_SEED=${SEED}`);
    throw err;
  }
}

test(`sanitizeForTerminal: nothing a terminal obeys is left, and clean text is untouched (${CASES} cases)`, () => {
  withSeed((rand) => {
    for (let i = 0; i < CASES; i++) {
      const text = hostile(rand);
      const shown = sanitizeForTerminal(text);
      assert.doesNotMatch(shown, BAD, `case ${i}: ${JSON.stringify(text)} → ${JSON.stringify(shown)}`);
      if (!BAD.test(text)) assert.equal(shown, text, `case ${i}: clean text changed`);
      assert.equal(needsSanitizing(text), BAD.test(text));
      const line = sanitizeLine(text);
      assert.doesNotMatch(line, /[\n\t]/, `case ${i}: sanitizeLine kept a line break`);
      assert.doesNotMatch(line, BAD);
    }
  });
});

test('sanitizeForTerminal shows each kind visibly: ␛ for ESC, control pictures, � for C1, <U+202E> for bidi', () => {
  assert.equal(sanitizeForTerminal('a\x1b]0;T\x07b'), 'a␛]0;T␇b');
  assert.equal(sanitizeForTerminal('x\x9b2Jy'), 'x�2Jy');
  assert.equal(sanitizeForTerminal('dose \u202e01 gm\u202c ok'), 'dose <U+202E>01 gm<U+202C> ok');
  assert.equal(sanitizeForTerminal('\u2066a\u2069\u200f\u061c'), '<U+2066>a<U+2069><U+200F><U+061C>');
  assert.equal(sanitizeForTerminal('line\r\nnext\rover'), 'line\nnext␍over');
  assert.equal(sanitizeLine('one\n  two\tthree'), 'one two three');
});

test(`jsonForTerminal: the same JSON value, with no character a terminal obeys (${CASES} cases)`, () => {
  withSeed((rand) => {
    for (let i = 0; i < CASES; i++) {
      const value = { content: hostile(rand), nested: [hostile(rand)], n: i };
      for (const space of [undefined, 2]) {
        const text = jsonForTerminal(value, space);
        assert.deepEqual(JSON.parse(text), value, `case ${i}: the value changed`);
        assert.doesNotMatch(text, BAD, `case ${i}: ${text}`);
        assert.doesNotMatch(text, /[\u2028\u2029]/);
      }
    }
  });
});
