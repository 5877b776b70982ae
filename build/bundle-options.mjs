// Build step (not shipped): what every bundle of medchat shares, the npm package's dist/ (build/build.mjs) and the
// single executables' one-file bundle (build/package.mjs): the same defines, patches and minification.
import { readFileSync } from 'node:fs';
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

/** esbuild options both builds share; each adds its entries, format and output. `sea` marks the single-executable bundle. */
export function bundleOptions(pkg, { testHooks = false, sea = false } = {}) {
  return {
    bundle: true,
    platform: 'node',
    target: 'node20',
    minify: process.env.MEDCHAT_BUILD_MINIFY !== '0', // MEDCHAT_BUILD_MINIFY=0 keeps names, for profiling
    legalComments: 'linked',
    // React and its reconciler pick their production builds from NODE_ENV; without it the chat screen ran React's
    // development build (extra checks on every render, several times the CPU while an answer streams).
    define: {
      __MEDCHAT_VERSION__: JSON.stringify(pkg.version),
      __MEDCHAT_TEST_HOOKS__: testHooks ? 'true' : 'false',
      __MEDCHAT_SEA__: sea ? 'true' : 'false',
      'process.env.DEV': '"false"',
      'process.env.NODE_ENV': '"production"',
    },
    external: ['react-devtools-core'], // only reached when DEV=true, which the define above rules out
    plugins: [yogaWithoutFetch, oneWidth, textPatches()],
    logLevel: 'warning',
    metafile: true,
  };
}
