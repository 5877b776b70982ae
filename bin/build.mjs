// Build step (not shipped): bundles src/ into dist/: one entry file plus lazily loaded chunks (the chat screen, openai, conf…),
// so `--version`, `--help` and one-shot mode never parse Ink or React.
import { build } from 'esbuild';
import { existsSync, readFileSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

// conf, the config file's writer, imports ajv, semver, node:crypto… at its top level (tens of ms). Only writes need it
// (reads are plain JSON, src/core/config-store.ts), so it is bundled on its own as dist/chunks/conf.cjs, and in the
// bundle src/core/conf-loader.ts require()s that file, beside the chunk it lands in, on the first write: conf is
// neither parsed nor run on the way to the chat screen. (From src/, in tests, conf-loader.ts stays an ordinary import.)
const lazyConf = {
  name: 'lazy-conf',
  setup(b) {
    b.onLoad({ filter: /[\\/]src[\\/]core[\\/]conf-loader\.ts$/ }, () => ({
      contents: "import { createRequire } from 'node:module';\nexport function loadConf() { return createRequire(import.meta.url)('./conf.cjs'); }",
      loader: 'js',
    }));
  },
};

// yoga-layout (Ink's layout engine) carries its wasm as a base64 data: URL and, when `fetch` exists, loads it with
// fetch(). In Node the first read of the global `fetch` loads undici, and fetching a data: URL runs all of it: ~25 ms
// on the way to the chat screen's first paint. Without `fetch` the same loader decodes the base64 itself (atob) and
// instantiates the same bytes.
const yogaWithoutFetch = {
  name: 'yoga-without-fetch',
  setup(b) {
    b.onLoad({ filter: /[\\/]yoga-layout[\\/]dist[\\/]binaries[\\/]yoga-wasm-base64-esm\.js$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      const uses = source.split('typeof fetch').length - 1;
      if (uses !== 2) throw new Error(`yoga-without-fetch: expected 2 uses of \`typeof fetch\` in ${args.path}, found ${uses}`);
      return { contents: source.replaceAll('typeof fetch', '"undefined"'), loader: 'js' };
    });
  },
};

// string-width (Ink measures every piece of text with it) builds an Intl.Segmenter (ICU data, ~12 ms) and the
// \p{RGI_Emoji} regex (~20 ms) when its module loads, and uses them for any text that is not plain ASCII: the chat
// screen's first frame (box corners, '·', '›') paid for both. The patches below change no result:
//  - 8.3.0 (Ink's): the segmenter and regexes are made on first need; text made only of printable ASCII and of code
//    points in SIMPLE_BMP (each is always a grapheme cluster of its own, visible, not emoji, not Hangul jamo, so its
//    width is its East Asian Width, which string-width looks up the same way) is summed without them. The table was
//    checked code point by code point against string-width itself, both ambiguous-width settings, and every pair
//    with ASCII and each other against Intl.Segmenter (node 20.20).
//  - 7.2.0 (wrap-ansi's): printable ASCII is its length (7.2.0 has no such fast path; checked for all 95 characters);
//    the segmenter is made on first need.
// Another version stops the build, so an upgrade is looked at again rather than patched blind.
const SIMPLE_BMP = [
  0xa0, 0xa8, 0xaa, 0xac, 0xaf, 0x2ff, 0x370, 0x377, 0x37a, 0x37f, 0x384, 0x38a, 0x38c, 0x38c, 0x38e, 0x3a1,
  0x3a3, 0x45f, 0x2010, 0x2027, 0x2030, 0x203b, 0x203d, 0x2048, 0x204a, 0x205e, 0x2070, 0x2071, 0x2074, 0x208e,
  0x2090, 0x209c, 0x20a0, 0x20c0, 0x2190, 0x2193, 0x219a, 0x21a8, 0x21ab, 0x22ff, 0x2400, 0x2426, 0x2500, 0x25a9,
  0x25ac, 0x25b5, 0x25b7, 0x25bf, 0x25c1, 0x25fa, 0x25ff, 0x25ff, 0x2800, 0x28ff, 0xfffd, 0xfffd,
]; // [first, last] pairs, ascending
const stringWidthPatches = {
  '8.3.0': [
    [/^const (segmenter|visibleCharacterRegex|spacingMarkRegex|rgiEmojiRegex) = (.*);$/gm, 'let $1; const $1Make = () => $2;', 4],
    [
      /(\tif \(\/\^\[\\u0020-\\u007E\]\*\$\/\.test\(string\)\) \{\n\t\treturn string\.length;\n\t\}\n)/,
      `$1
	// medchat build: printable ASCII and SIMPLE_BMP code points, without the segmenter (see bin/build.mjs).
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
    [
      /^(export default function stringWidth)/m,
      `const SIMPLE_BMP = ${JSON.stringify(SIMPLE_BMP)};
function isSimpleBmp(code) {
	for (let index = 0; index < SIMPLE_BMP.length; index += 2) {
		if (code < SIMPLE_BMP[index]) {
			return false;
		}

		if (code <= SIMPLE_BMP[index + 1]) {
			return true;
		}
	}

	return false;
}

$1`,
      1,
    ],
  ],
  '7.2.0': [
    [/^const segmenter = new Intl\.Segmenter\(\);$/m, 'let segmenter;', 1],
    [
      /(\tif \(string\.length === 0\) \{\n\t\treturn 0;\n\t\}\n)(\n\tlet width = 0;)/,
      `$1
	// medchat build: printable ASCII is one column a character (see bin/build.mjs).
	if (/^[\\u0020-\\u007E]*$/.test(string)) {
		return string.length;
	}

	segmenter ??= new Intl.Segmenter();
$2`,
      1,
    ],
  ],
};
const stringWidthFast = {
  name: 'string-width-fast',
  setup(b) {
    b.onLoad({ filter: /[\\/]node_modules[\\/]string-width[\\/]index\.js$/ }, (args) => {
      const { version } = JSON.parse(readFileSync(new URL('package.json', pathToFileURL(args.path)), 'utf8'));
      const patches = stringWidthPatches[version];
      if (!patches) throw new Error(`string-width-fast: no patch for string-width ${version} (${args.path}); check the new version and update bin/build.mjs`);
      let source = readFileSync(args.path, 'utf8');
      for (const [pattern, replacement, count] of patches) {
        const found = source.match(pattern.global ? pattern : new RegExp(pattern.source, pattern.flags + 'g'))?.length ?? 0;
        if (found !== count) throw new Error(`string-width-fast: ${pattern} matched ${found} times in ${args.path}, expected ${count}`);
        source = source.replace(pattern, replacement);
      }
      return { contents: source, loader: 'js' };
    });
  },
};

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
// Build beside dist/ and swap it in, so a test run reading dist/ never sees it half-written.
const tmp = `dist.tmp-${process.pid}`;
const old = `dist.old-${process.pid}`;

await build({
  entryPoints: { medchat: 'src/main.ts' },
  outdir: tmp,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  minify: process.env.MEDCHAT_BUILD_MINIFY !== '0', // MEDCHAT_BUILD_MINIFY=0 keeps names, for profiling
  legalComments: 'linked',
  chunkNames: 'chunks/[name]-[hash]',
  // React and its reconciler pick their production builds from NODE_ENV; without it the chat screen ran React's
  // development build (extra checks on every render, several times the CPU while an answer streams).
  define: { __MEDCHAT_VERSION__: JSON.stringify(pkg.version), 'process.env.DEV': '"false"', 'process.env.NODE_ENV': '"production"' },
  external: ['react-devtools-core'], // only reached when DEV=true, which the define above rules out
  banner: {
    // Some bundled CommonJS modules call require(); give them one.
    js: "import { createRequire as __medchatCreateRequire } from 'node:module'; const require = __medchatCreateRequire(import.meta.url);",
  },
  plugins: [lazyConf, yogaWithoutFetch, stringWidthFast],
  logLevel: 'warning',
});

await build({
  stdin: { contents: "module.exports = require('conf').default;", resolveDir: process.cwd(), loader: 'js' },
  outfile: `${tmp}/chunks/conf.cjs`,
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  minify: process.env.MEDCHAT_BUILD_MINIFY !== '0',
  legalComments: 'linked',
  logLevel: 'warning',
});
// require('./conf.cjs') is relative to the file it lands in; that must be a chunk, beside conf.cjs.
for (const f of readdirSync(tmp)) {
  if (f.endsWith('.js') && readFileSync(`${tmp}/${f}`, 'utf8').includes('./conf.cjs')) throw new Error(`build: the conf loader landed in ${f}, outside chunks/`);
}

if (existsSync('dist')) renameSync('dist', old);
renameSync(tmp, 'dist');
rmSync(old, { recursive: true, force: true });
