// Build step (not shipped): bundles src/ into dist/: one entry file plus lazily loaded chunks (the chat screen, openai…),
// so `--version`, `--help` and one-shot mode never parse Ink or React.
import { build } from 'esbuild';
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { noticesText } from './notices.mjs';
import { oneWidth, textPatches } from './text-patches.mjs';

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

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
// `--outdir <dir>` builds somewhere else than dist/ (the tests' own builds).
const outAt = process.argv.indexOf('--outdir');
const outdir = outAt >= 0 ? process.argv[outAt + 1] : 'dist';
if (!outdir) throw new Error('--outdir needs a folder');
// Test hooks (a policy file named by MEDCHAT_TEST_POLICY_FILE, src/core/config/policy.ts) exist only in a test build:
// MEDCHAT_BUILD_TEST_HOOKS=1 with --outdir. The release bundle defines them false, so their code and names are not in it.
const testHooks = process.env.MEDCHAT_BUILD_TEST_HOOKS === '1';
if (testHooks && outdir === 'dist') throw new Error('MEDCHAT_BUILD_TEST_HOOKS=1 builds a test bundle: give it --outdir <a folder of its own>, never dist/');
// Build beside the output folder and swap it in, so a test run reading dist/ never sees it half-written.
const tmp = `${outdir}.tmp-${process.pid}`;
const old = `${outdir}.old-${process.pid}`;

const result = await build({
  entryPoints: { medchat: 'src/main.ts', 'search-worker': 'src/core/sessions/search-worker.ts' }, // the worker `sessions search` starts on many files
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
  define: {
    __MEDCHAT_VERSION__: JSON.stringify(pkg.version),
    __MEDCHAT_TEST_HOOKS__: testHooks ? 'true' : 'false',
    'process.env.DEV': '"false"',
    'process.env.NODE_ENV': '"production"',
  },
  external: ['react-devtools-core'], // only reached when DEV=true, which the define above rules out
  banner: {
    // Some bundled CommonJS modules call require(); give them one.
    js: "import { createRequire as __medchatCreateRequire } from 'node:module'; const require = __medchatCreateRequire(import.meta.url);",
  },
  plugins: [yogaWithoutFetch, oneWidth, textPatches()],
  logLevel: 'warning',
  metafile: true,
});
// The licences of what was bundled travel with it (see build/notices.mjs).
writeFileSync(`${tmp}/THIRD-PARTY-NOTICES.md`, noticesText(result.metafile, pkg));

if (existsSync(outdir)) renameSync(outdir, old);
renameSync(tmp, outdir);
rmSync(old, { recursive: true, force: true });
