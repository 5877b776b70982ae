// Bundles src/ into dist/: one entry file plus lazily loaded chunks (the chat screen, openai, conf…),
// so `--version`, `--help` and one-shot mode never parse Ink or React.
import { build } from 'esbuild';
import { readFileSync, rmSync } from 'node:fs';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });

await build({
  entryPoints: { medchat: 'src/main.ts' },
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  minify: true,
  legalComments: 'linked',
  chunkNames: 'chunks/[name]-[hash]',
  define: { __MEDCHAT_VERSION__: JSON.stringify(pkg.version), 'process.env.DEV': '"false"' },
  alias: { 'react-devtools-core': './scripts/empty-module.mjs' },
  banner: {
    // Some bundled CommonJS modules call require(); give them one.
    js: "import { createRequire as __medchatCreateRequire } from 'node:module'; const require = __medchatCreateRequire(import.meta.url);",
  },
  logLevel: 'warning',
});
