// Build step (not shipped): patches to Ink's text helpers, applied by build/build.mjs while bundling. Kept apart so
// test/build/text-patches.test.ts can build the patched modules the same way and check they change no result.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// Ink's text helpers build an Intl.Segmenter (loading ICU's break rules, ~12 ms the first time) and string-width the
// \p{RGI_Emoji} regex (~20 ms) when their modules load, and run them on every string: the chat screen's first frame
// paid for both though it is all ASCII, box lines and a few marks ('·', '›'). The patches below change no result;
// they skip that machinery for text it cannot affect:
//  - SIMPLE_BMP lists code points that are always a grapheme cluster of their own (next to printable ASCII, each
//    other, or anything else in these sets), are visible, and are not emoji or Hangul jamo; string-width gives such a
//    character its East Asian Width. Checked code point by code point against string-width 8.3.0 (both ambiguous-
//    width settings) and against Intl.Segmenter, by test/build/text-patches.test.ts (run by `npm test`, so an upgrade
//    is checked again). Ranges fully assigned, no emoji blocks.
//  - string-width 8.3.0 (Ink's): text of printable ASCII and SIMPLE_BMP is summed without the segmenter or regexes,
//    which are made on first need.
//  - @alcalzone/ansi-tokenize 0.2.5 (Ink's output): text of printable ASCII, SIMPLE_BMP and ESC/BEL/CSI (controls,
//    always a cluster of their own) is walked a UTF-16 unit at a time, which is what the segmenter yields for it.
//  - slice-ansi 8.0.0: its segmenter is made on first need.
// The same test compares patched and unpatched modules on every such code point and on seeded random mixed text
// (string-width, tokenize, slice-ansi). A file missing here, another version, or a pattern that no longer matches
// stops the build, so an upgrade is looked at again rather than patched blind.
export const SIMPLE_BMP = [
  0xa0, 0xa8, 0xaa, 0xac, 0xaf, 0x2ff, 0x370, 0x377, 0x37a, 0x37f, 0x384, 0x38a, 0x38c, 0x38c, 0x38e, 0x3a1,
  0x3a3, 0x45f, 0x2010, 0x2027, 0x2030, 0x203b, 0x203d, 0x2048, 0x204a, 0x205e, 0x2070, 0x2071, 0x2074, 0x208e,
  0x2090, 0x209c, 0x20a0, 0x20c0, 0x2190, 0x2193, 0x219a, 0x21a8, 0x21ab, 0x22ff, 0x2400, 0x2426, 0x2500, 0x25a9,
  0x25ac, 0x25b5, 0x25b7, 0x25bf, 0x25c1, 0x25fa, 0x25ff, 0x25ff, 0x2800, 0x28ff, 0xfffd, 0xfffd,
]; // [first, last] pairs, ascending
const isSimpleBmpSource = `
const SIMPLE_BMP = ${JSON.stringify(SIMPLE_BMP)};
function isSimpleBmp(code) {
	for (let index = 0; index < SIMPLE_BMP.length; index += 2) {
		if (code < SIMPLE_BMP[index]) return false;
		if (code <= SIMPLE_BMP[index + 1]) return true;
	}
	return false;
}
`;
export const TEXT_PATCHES = {
  'string-width@8.3.0/index.js': [
    [/^const (segmenter|visibleCharacterRegex|spacingMarkRegex|rgiEmojiRegex) = (.*);$/gm, 'let $1; const $1Make = () => $2;', 4],
    [
      /(\tif \(\/\^\[\\u0020-\\u007E\]\*\$\/\.test\(string\)\) \{\n\t\treturn string\.length;\n\t\}\n)/,
      `$1
	// medchat build: printable ASCII and SIMPLE_BMP code points, without the segmenter (see build/text-patches.mjs).
	{
		let simpleWidth = 0;
		for (let index = 0; index < string.length && simpleWidth >= 0; index++) {
			const code = string.charCodeAt(index);
			if (code >= 0x20 && code <= 0x7E) {
				simpleWidth++;
			} else if (isSimpleBmp(code)) {
				simpleWidth += eastAsianWidth(code, {ambiguousAsWide: !ambiguousIsNarrow});
			} else {
				simpleWidth = -1;
			}
		}

		if (simpleWidth >= 0) {
			return simpleWidth;
		}
	}

	if (segmenter === undefined) {
		segmenter = segmenterMake();
		visibleCharacterRegex = visibleCharacterRegexMake();
		spacingMarkRegex = spacingMarkRegexMake();
		rgiEmojiRegex = rgiEmojiRegexMake();
	}
`,
      1,
    ],
    [/^(export default function stringWidth)/m, `${isSimpleBmpSource}\n$1`, 1],
  ],
  '@alcalzone/ansi-tokenize@0.2.5/build/tokenize.js': [
    [
      /^const segmenter = new Intl\.Segmenter\(undefined, \{ granularity: "grapheme" \}\);$/m,
      `let segmenter;
${isSimpleBmpSource}
// medchat build: text the segmenter would split into single UTF-16 units is walked without it (see build/text-patches.mjs).
function* codeUnits(str) {
    for (let index = 0; index < str.length; index++)
        yield { segment: str[index], index };
}
function graphemes(str) {
    for (let index = 0; index < str.length; index++) {
        const code = str.charCodeAt(index);
        if ((code < 0x20 || code > 0x7e) && code !== 0x1b && code !== 0x07 && code !== 0x9b && !isSimpleBmp(code)) {
            segmenter ??= new Intl.Segmenter(undefined, { granularity: "grapheme" });
            return segmenter.segment(str);
        }
    }
    return codeUnits(str);
}`,
      1,
    ],
    [/for \(const \{ segment, index \} of segmenter\.segment\(str\)\)/, 'for (const { segment, index } of graphemes(str))', 1],
  ],
  'slice-ansi@8.0.0/tokenize-ansi.js': [
    [
      /^const GRAPHEME_SEGMENTER = new Intl\.Segmenter\(undefined, \{granularity: 'grapheme'\}\);$/m,
      "let graphemeSegmenter;\nconst GRAPHEME_SEGMENTER = {segment: string => (graphemeSegmenter ??= new Intl.Segmenter(undefined, {granularity: 'grapheme'})).segment(string)};",
      1,
    ],
  ],
  // Ink's signal-exit 3.0.7 loads node:assert (~2 ms) for one argument check; the same check, assert loaded to throw.
  'signal-exit@3.0.7/index.js': [
    [
      /^  var assert = require\('assert'\)$/m,
      "  var assert = { equal: function (actual, expected, message) { if (actual != expected) throw new (require('assert').AssertionError)({ message: message, actual: actual, expected: expected, operator: '==' }) } }",
      1,
    ],
  ],
};
/**
 * The esbuild plugin that applies TEXT_PATCHES. `expected`: the patched files the build must bundle (all of them for
 * medchat's build; test/build/text-patches.test.ts builds a few).
 */
export const textPatches = (expected = Object.keys(TEXT_PATCHES)) => ({
  name: 'text-patches',
  setup(b) {
    const seen = new Set();
    b.onLoad(
      { filter: /[\\/]node_modules[\\/](string-width[\\/]index|@alcalzone[\\/]ansi-tokenize[\\/]build[\\/]tokenize|slice-ansi[\\/]tokenize-ansi|signal-exit[\\/]index)\.js$/ },
      (args) => {
        const file = args.path.replaceAll('\\', '/');
        const root = file.slice(0, file.lastIndexOf('/node_modules/') + '/node_modules/'.length);
        const name = file.slice(root.length).split('/').slice(0, file.slice(root.length).startsWith('@') ? 2 : 1).join('/');
        const { version } = JSON.parse(readFileSync(`${root}${name}/package.json`, 'utf8'));
        const key = `${name}@${version}/${file.slice(root.length + name.length + 1)}`;
        const patches = TEXT_PATCHES[key];
        if (!patches) throw new Error(`text-patches: no patch for ${key} (${args.path}); check the new version and update build/text-patches.mjs`);
        let source = readFileSync(args.path, 'utf8');
        for (const [pattern, replacement, count] of patches) {
          const found = source.match(new RegExp(pattern.source, pattern.flags.includes('g') ? pattern.flags : pattern.flags + 'g'))?.length ?? 0;
          if (found !== count) throw new Error(`text-patches: ${pattern} matched ${found} times in ${args.path}, expected ${count}`);
          source = source.replace(pattern, replacement);
        }
        seen.add(key);
        return { contents: source, loader: 'js' };
      },
    );
    b.onEnd((result) => {
      const unused = expected.filter((k) => !seen.has(k));
      if (!result.errors.length && unused.length) throw new Error(`text-patches: not bundled any more: ${unused.join(', ')}; update build/text-patches.mjs`);
    });
  },
});

// One measure of text for the chat screen: Ink and its text helpers import string-width, and get medchat's own
// textWidth (src/ui/text/ink-width.ts), which reserves the larger width for clusters terminals draw differently. Only
// src/core/text/width.ts itself gets the real string-width, which that measure is built on.
export const oneWidth = {
  name: 'one-width',
  setup(b) {
    const inkWidth = fileURLToPath(new URL('../src/ui/text/ink-width.ts', import.meta.url));
    b.onResolve({ filter: /^string-width$/ }, (args) => {
      if (/[\\/]src[\\/]core[\\/]text[\\/]width\.ts$/.test(args.importer)) return undefined;
      if (!/[\\/]node_modules[\\/](ink|wrap-ansi|widest-line|cli-truncate)[\\/]/.test(args.importer)) {
        throw new Error(`one-width: ${args.importer} imports string-width; measure with src/core/text/width.ts instead`);
      }
      return { path: inkWidth };
    });
  },
};
