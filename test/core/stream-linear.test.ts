// Hostile answers through the per-piece scanners of the answer path (the key redactor, the
// placeholder restorer): generated answers made of back-to-back key echoes, cut keys and split
// placeholders, up to the 2 MB an answer may hold, in pieces of 1..N characters. What comes out
// equals the reference (every key masked, every placeholder put back), and each ends within a
// generous bound per MB: one that quadratic work (re-reading what is held for every piece) passes
// by far, not a speed target.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { StreamRedactor, clearSecrets, maskKey, redact, registerSecret } from '../../src/core/config/secret-redactor.js';
import { PrivacyGuard } from '../../src/core/privacy/guard.js';
import { restoreText } from '../../src/core/privacy/restore.js';
import { SessionPrivacy } from '../../src/core/privacy/session-privacy.js';
import { keyRunIn } from '../support/key-runs.js';
import { Prng, seedFromEnv } from '../support/prng.js';

const KEY = 'sk-test-SECRETKEY-a1b2';
const PROJ_KEY = 'sk-proj-Zq4Lm8Np2Rt6Vx0Bc3Df7Gh1Jk5Mn9Pq2St6Wy0Za4Ce';
const MB = 1024 * 1024;
/** An "ends at all" bound: linear work takes well under a second a MB here; quadratic work takes minutes. */
const MS_PER_MB = 15_000;
const seed = seedFromEnv();

/** `text` in pieces of 1..max characters (random), as a stream brings it. */
function pieces(text: string, rnd: Prng, max: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; ) {
    const n = rnd.int(1, max);
    out.push(text.slice(i, i + n));
    i += n;
  }
  return out;
}

function streamed(parts: readonly string[]): string {
  const r = new StreamRedactor();
  const out: string[] = [];
  for (const p of parts) out.push(r.push(p));
  out.push(r.end());
  return out.join('');
}

/** Repeats `unit` to at least `size` characters. */
const upTo = (unit: string, size: number) => unit.repeat(Math.ceil(size / unit.length));

function within(t: { diagnostic: (m: string) => void }, what: string, chars: number, ms: number): void {
  const bound = Math.max(2000, (chars / MB) * MS_PER_MB);
  t.diagnostic(`${what}: ${(chars / MB).toFixed(2)} MB in ${ms} ms (bound ${Math.round(bound)} ms)`);
  assert.ok(ms < bound, `${what}: ${ms} ms for ${(chars / MB).toFixed(2)} MB (bound ${Math.round(bound)} ms): quadratic?`);
}

test('key redactor: back-to-back key echoes up to 2 MB, in pieces of 1..N characters, become one mask, within a bound per MB', { timeout: 180_000 }, (t) => {
  t.diagnostic(`seed ${seed} (replay with MEDCHAT_SEED=${seed})`);
  const rnd = new Prng(seed);
  let cases = 0;
  for (const key of [KEY, PROJ_KEY]) {
    clearSecrets();
    registerSecret(key);
    for (const [size, max, echo] of [[2 * MB, 1, key], [2 * MB, 16, key.toLowerCase()], [MB, 4096, key.toUpperCase()]] as const) {
      {
        const text = `Your key: ${upTo(echo, size)} (end)`;
        const started = Date.now();
        const out = streamed(pieces(text, rnd, max));
        within(t, `${key.slice(0, 8)} echoed back to back, pieces of 1..${max}`, text.length, Date.now() - started);
        assert.equal(out, `Your key: ${maskKey(key)} (end)`, `seed ${seed}: pieces of 1..${max}: ${JSON.stringify(out.slice(0, 200))}`);
        cases++;
      }
    }
  }
  t.diagnostic(`${cases} cases`);
});

test('key redactor: every prefix of the key followed by something else, and generated mixes up to 2 MB, equal the whole text redacted', { timeout: 180_000 }, (t) => {
  t.diagnostic(`seed ${seed} (replay with MEDCHAT_SEED=${seed})`);
  const rnd = new Prng(seed ^ 0x5eed);
  let cases = 0;
  let bytes = 0;
  for (const key of [KEY, PROJ_KEY]) {
    clearSecrets();
    registerSecret(key);
    // Every prefix, then a character no key holds: 8 or more characters are masked, fewer left as they are.
    const prefixes = Array.from({ length: key.length }, (_, p) => key.slice(0, p + 1));
    const seps = [' ', '\n', '. ', ', ', '|', '!'];
    const unit = prefixes.map((p, i) => p + seps[i % seps.length]).join('');
    const expectedUnit = prefixes.map((p, i) => (p.length >= 8 ? maskKey(key) : p) + seps[i % seps.length]).join('');
    for (const max of [1, 7, 4096]) {
      const reps = Math.ceil((max === 1 ? 256 * 1024 : max === 7 ? MB : 2 * MB) / unit.length);
      const text = unit.repeat(reps);
      const started = Date.now();
      const out = streamed(pieces(text, rnd, max));
      within(t, `${key.slice(0, 8)} every prefix, pieces of 1..${max}`, text.length, Date.now() - started);
      assert.ok(out === expectedUnit.repeat(reps), `seed ${seed}: every prefix, pieces of 1..${max}: first difference near ${firstDiff(out, expectedUnit.repeat(reps))}`);
      cases++;
      bytes += text.length;
    }
    // Generated mixes: whole and cut keys, re-cased, back to back or with text between, ordinary words.
    const words = ['the ', 'patient ', 'sk-', 'test', '-', 'a1b2', '\n', 'SECRET', '  ', 'key: ', 'é', '😀'];
    for (let c = 0; c < 53; c++) {
      const r = rnd.fork(c);
      const parts: string[] = [];
      const size = c < 50 ? r.int(1, 4000) : c === 50 ? 2 * MB : r.int(64 * 1024, MB);
      let len = 0;
      while (len < size) {
        const kind = r.int(0, 4);
        const piece =
          kind === 0 ? key : kind === 1 ? key.toUpperCase() : kind === 2 ? key.slice(r.int(0, key.length - 1), r.int(1, key.length)) : kind === 3 ? upTo(key, r.int(1, 300)) : r.pick(words);
        parts.push(piece);
        len += piece.length;
      }
      const text = parts.join('');
      const max = c === 50 ? 1 : r.pick([1, 3, 8, 50, 1000, 65536]);
      const started = Date.now();
      const out = streamed(pieces(text, r, max));
      if (size >= 64 * 1024) within(t, `mix ${c}, pieces of 1..${max}`, text.length, Date.now() - started);
      const whole = redact(text);
      assert.ok(out === whole, `seed ${seed}, case ${c}, pieces of 1..${max}: differs from the whole text redacted near ${firstDiff(out, whole)}`);
      assert.equal(keyRunIn(key, out), undefined, `seed ${seed}, case ${c}: a run of the key survived`);
      cases++;
      bytes += text.length;
    }
  }
  t.diagnostic(`${cases} cases, ${(bytes / MB).toFixed(1)} MB`);
});

test('key redactor: the mask starts as the echo starts, and no more than a window is held back at any time', () => {
  clearSecrets();
  registerSecret(KEY);
  const r = new StreamRedactor();
  let given = '';
  for (let i = 0; i < 100_000; i++) {
    given += r.push(KEY[i % KEY.length]!);
    // The start of the mask is out once a window of the key has arrived; then the echo is dropped as it comes.
    if (i >= 8) assert.equal(given, 'sk-…', `after ${i + 1} characters of the echo`);
  }
  // Text after the echo comes out as it arrives, but for the last RUN_LENGTH - 1 characters (they may still be a key).
  const after = ' is the key you gave; it is not shown here.';
  for (let i = 0; i < after.length; i++) {
    given += r.push(after[i]!);
    const pushed = i + 1;
    assert.ok(given.length >= 'sk-…a1b2'.length + pushed - 7, `held back ${'sk-…a1b2'.length + pushed - given.length} characters after ${pushed}`);
  }
  assert.equal(given + r.end(), 'sk-…a1b2' + after);
});

function firstDiff(a: string, b: string): string {
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  return `${i}: ${JSON.stringify(a.slice(Math.max(0, i - 20), i + 40))} vs ${JSON.stringify(b.slice(Math.max(0, i - 20), i + 40))}`;
}

/** A conversation that replaced a name and an MRN ([NAME-1], [MRN-1]), with date shifting on or off. */
function redacting(shiftDates: boolean): { privacy: SessionPrivacy; guard: PrivacyGuard } {
  const privacy = SessionPrivacy.open([], { mode: 'redact', shiftDates }, () => 0.5);
  const out = privacy.outgoing('Patient: John Smith, MRN 12345678, admitted 03/04/2025. Summarise.');
  assert.match(out.text, /\[NAME-1\].*\[MRN-1\]/);
  assert.ok(!out.text.includes('03/04/2025'), 'the date was sent as typed');
  return { privacy, guard: privacy.guard };
}

test('answer restorer: a placeholder split at every position, and back-to-back placeholders up to 2 MB, are put back as in the whole text', { timeout: 180_000 }, (t) => {
  t.diagnostic(`seed ${seed} (replay with MEDCHAT_SEED=${seed})`);
  const rnd = new Prng(seed ^ 0xface);
  const { privacy, guard } = redacting(false);
  const forms = ['[NAME-1]', '[name-1]', '[NAME 1]', '[ NAME_01 ]', 'NAME-1', '[MRN-1]', 'MRN-1', '[NAME-9]', '[NAM', 'NAME-', '[', 'NAME'];
  let cases = 0;
  // Split at every position: two pieces.
  for (const f of forms) {
    const text = `Dear ${f}, see ${f}.`;
    const want = restoreText(text, guard.placeholders).text;
    for (let k = 0; k <= text.length; k++) {
      const a = privacy.answer();
      const got = [a.push(text.slice(0, k)).plain, a.push(text.slice(k)).plain, a.end().plain].join('');
      assert.equal(got, want, `${JSON.stringify(f)} cut at ${k}`);
      assert.equal(a.plain, want);
      cases++;
    }
  }
  // Back to back, then mixed with prose, up to 2 MB, in pieces of 1..N.
  for (const [unit, max, size] of [['[NAME-1]', 1, 2 * MB], ['NAME-1 [MRN-1]', 7, MB], ['[NAME 1] and [NAM', 64, MB]] as const) {
    const text = upTo(unit, size);
    const want = restoreText(text, guard.placeholders).text;
    const started = Date.now();
    const a = privacy.answer();
    const out: string[] = [];
    for (const p of pieces(text, rnd, max)) out.push(a.push(p).plain);
    out.push(a.end().plain);
    within(t, `${JSON.stringify(unit)} back to back, pieces of 1..${max}`, text.length, Date.now() - started);
    assert.ok(out.join('') === want && a.plain === want, `${JSON.stringify(unit)}, pieces of 1..${max}: differs near ${firstDiff(out.join(''), want)}`);
    assert.ok(want.includes('John Smith') || !unit.includes('NAME'), 'nothing was put back');
    cases++;
  }
  t.diagnostic(`${cases} cases`);
});

test('answer restorer with dates shifted: a 2 MB answer with no line end, in small pieces, ends within a bound and is put back whole', { timeout: 180_000 }, (t) => {
  t.diagnostic(`seed ${seed} (replay with MEDCHAT_SEED=${seed})`);
  const rnd = new Prng(seed ^ 0xda7e);
  const { privacy, guard } = redacting(true);
  const text = upTo('[NAME-1] is stable since 05/04/2025; ', 2 * MB) + '\nseen [NAME-1].';
  const want = guard.restore(text).text;
  const started = Date.now();
  const a = privacy.answer();
  const out: string[] = [];
  const parts = pieces(text, rnd, 16);
  for (const p of parts) out.push(a.push(p).plain);
  out.push(a.end().plain);
  within(t, 'one 2 MB line, dates shifted, pieces of 1..16', text.length, Date.now() - started);
  t.diagnostic(`${parts.length} pieces`);
  assert.ok(out.join('') === want && a.plain === want, `differs near ${firstDiff(out.join(''), want)}`);
  assert.match(want.slice(0, 100), /^John Smith is stable since (?!05\/04\/2025)\d\d\/\d\d\/\d{4}; /, 'the date was not moved back');
});
