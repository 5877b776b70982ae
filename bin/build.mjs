// Build step (not shipped): bundles src/ into dist/: one entry file plus lazily loaded chunks (the chat screen, openai, conf…),
// so `--version`, `--help` and one-shot mode never parse Ink or React.
import { build } from 'esbuild';
import { existsSync, readFileSync, renameSync, rmSync } from 'node:fs';

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
  logLevel: 'warning',
});

if (existsSync('dist')) renameSync('dist', old);
renameSync(tmp, 'dist');
rmSync(old, { recursive: true, force: true });
