// Build step (not shipped): bundles src/ into dist/: one entry file plus lazily loaded chunks (the chat screen, openai, conf…),
// so `--version`, `--help` and one-shot mode never parse Ink or React.
import { build } from 'esbuild';
import { existsSync, readFileSync, readdirSync, renameSync, rmSync } from 'node:fs';

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
  plugins: [lazyConf, yogaWithoutFetch],
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
