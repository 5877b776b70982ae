// The build patches Ink's text helpers for speed (build/text-patches.mjs) and says they change no result. Checked here,
// so an upgrade of any of them is validated again by `npm test`: the patched and the unpatched modules are bundled by
// esbuild as the build does (with and without the plugin), then compared on every code point the patches treat as
// simple and on seeded random text with everything else mixed in.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, test } from 'node:test';
import { build, type Plugin } from 'esbuild';
import { REPO } from '../support/cli.js';
import { countFromEnv, Prng, seedFromEnv } from '../support/prng.js';

interface TextModules {
  stringWidth8: (s: string, o?: { ambiguousIsNarrow?: boolean }) => number;
  tokenize: (s: string, endChar?: number) => unknown[];
  sliceAnsi: (s: string, start: number, end?: number) => string;
}

const { SIMPLE_BMP, textPatches } = (await import(pathToFileURL(path.join(REPO, 'build', 'text-patches.mjs')).href)) as {
  SIMPLE_BMP: number[];
  textPatches: (expected?: string[]) => Plugin;
};

// The modules patched for their text results (signal-exit's patch is not about text).
const ENTRY = `
export { default as stringWidth8 } from 'string-width';
export { tokenize } from '@alcalzone/ansi-tokenize';
export { default as sliceAnsi } from 'slice-ansi';
`;
const PATCHED = ['string-width@8.3.0/index.js', '@alcalzone/ansi-tokenize@0.2.5/build/tokenize.js', 'slice-ansi@8.0.0/tokenize-ansi.js'];

let dir: string;
let patched: TextModules;
let plain: TextModules;

async function bundle(withPatches: boolean): Promise<TextModules> {
  const result = await build({
    stdin: { contents: ENTRY, resolveDir: REPO, loader: 'js', sourcefile: 'text-modules.js' },
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    write: false,
    plugins: withPatches ? [textPatches(PATCHED)] : [],
    logLevel: 'silent',
  });
  const file = path.join(dir, withPatches ? 'patched.mjs' : 'plain.mjs');
  fs.writeFileSync(file, result.outputFiles[0]!.text);
  return (await import(pathToFileURL(file).href)) as TextModules;
}

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'medchat-text-patches-'));
  [patched, plain] = await Promise.all([bundle(true), bundle(false)]);
});
after(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

const ASCII = Array.from({ length: 95 }, (_, i) => String.fromCharCode(0x20 + i));
const SIMPLE: string[] = [];
for (let i = 0; i < SIMPLE_BMP.length; i += 2) for (let c = SIMPLE_BMP[i]!; c <= SIMPLE_BMP[i + 1]!; c++) SIMPLE.push(String.fromCharCode(c));

test('the patches are applied (a bundle without them differs)', () => {
  assert.notEqual(patched.stringWidth8.toString(), plain.stringWidth8.toString());
  assert.ok(SIMPLE.length > 1000, `${SIMPLE.length} simple code points`);
});

test('every printable ASCII and SIMPLE_BMP code point: the same width, tokens and slices patched as not, and a grapheme cluster of its own', () => {
  const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  for (const ch of [...ASCII, ...SIMPLE]) {
    const what = `U+${ch.charCodeAt(0).toString(16).padStart(4, '0')}`;
    for (const ambiguousIsNarrow of [true, false]) {
      assert.equal(patched.stringWidth8(ch, { ambiguousIsNarrow }), plain.stringWidth8(ch, { ambiguousIsNarrow }), `${what} ambiguousIsNarrow=${ambiguousIsNarrow}`);
      assert.equal(patched.stringWidth8(`a${ch}${ch}~`, { ambiguousIsNarrow }), plain.stringWidth8(`a${ch}${ch}~`, { ambiguousIsNarrow }), what);
    }
    // Never joined to what is before or after it: ASCII, itself, or the code points next to it in the set.
    const s = `a${ch}a${ch}${ch}\u2500${ch}\u00a0`;
    assert.equal(Array.from(segmenter.segment(s)).length, s.length, `${what} forms a cluster with a neighbour`);
    assert.deepEqual(patched.tokenize(s), plain.tokenize(s), what);
  }
  // All of the set in one string, in order and reversed: one cluster per code unit.
  const all = SIMPLE.join('') + ASCII.join('') + [...SIMPLE].reverse().join('');
  assert.equal(Array.from(segmenter.segment(all)).length, all.length);
  assert.equal(patched.stringWidth8(all), plain.stringWidth8(all));
  assert.deepEqual(patched.tokenize(all), plain.tokenize(all));
});

/** Text as Ink meets it: ASCII, the simple set, colour codes, links, lone controls, and everything the patches must leave to the segmenter. */
function mixed(rnd: Prng): string {
  const pieces: Array<readonly [number, () => string]> = [
    [30, () => rnd.pick(ASCII).repeat(rnd.int(1, 5))],
    [20, () => rnd.pick(SIMPLE)],
    [8, () => `\x1b[${rnd.pick(['0', '1', '22', '31', '39', '38;5;208', '48;2;1;2;3', ''])}m`],
    [3, () => `\x1b]8;;https://example.org/${rnd.int(0, 99)}${rnd.pick(['\x07', '\x1b\\'])}`],
    [3, () => rnd.pick(['\x1b', '\x07', '\x9b', '\x9b31m', '\t', '\n', '\r', '\x00', '\x7f'])],
    [3, () => rnd.pick(['\u0301', '\u0e31', '\u094d', '\u200d', '\ufe0f', '\u200b', '\u00ad'])], // marks, joiners, format
    [4, () => rnd.pick(['👨‍👩‍👧', '👩‍⚕️', '✅', '⚠️', '⚠', '🇫🇷', '🇫', '1️⃣', '👍🏽', '🫁'])],
    [3, () => rnd.pick(['中文', '退烧药', 'ｱ', 'ﾞ', '한', '\u1100\u1161', '\u1100', 'ครั้ง', 'दवा', 'नमस्ते'])],
    [2, () => String.fromCodePoint(rnd.int(0xa0, 0x2fff))], // anything near the set
    [1, () => String.fromCharCode(rnd.int(0xd800, 0xdfff))], // a lone surrogate
  ];
  let s = '';
  for (let n = rnd.int(0, 24); n > 0; n--) s += rnd.weighted(pieces)();
  return s;
}

test('seeded random mixed text: string-width, tokenize and slice-ansi give the same results patched as not', () => {
  const seed = seedFromEnv();
  console.log(`text-patches: MEDCHAT_SEED=${seed}`);
  const rnd = new Prng(seed);
  const cases = countFromEnv('MEDCHAT_TEXT_FUZZ', 1000); // more for a long run: MEDCHAT_TEXT_FUZZ=100000
  for (let i = 0; i < cases; i++) {
    const s = mixed(rnd);
    const what = `MEDCHAT_SEED=${seed} case ${i}: ${JSON.stringify(s)}`;
    for (const ambiguousIsNarrow of [true, false]) {
      assert.equal(patched.stringWidth8(s, { ambiguousIsNarrow }), plain.stringWidth8(s, { ambiguousIsNarrow }), `${what} (8.3.0, ambiguousIsNarrow=${ambiguousIsNarrow})`);
    }
    assert.deepEqual(patched.tokenize(s), plain.tokenize(s), `${what} (tokenize)`);
    const end = rnd.int(0, 40);
    assert.deepEqual(patched.tokenize(s, end), plain.tokenize(s, end), `${what} (tokenize to ${end})`);
    const start = rnd.int(0, 20);
    const stop = rnd.chance(0.2) ? undefined : start + rnd.int(0, 30);
    assert.equal(patched.sliceAnsi(s, start, stop), plain.sliceAnsi(s, start, stop), `${what} (slice ${start}..${stop})`);
  }
});
