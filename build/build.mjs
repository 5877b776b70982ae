// Build step (not shipped): bundles src/ into dist/: one entry file plus lazily loaded chunks (the chat screen, openai…),
// so `--version`, `--help` and one-shot mode never parse Ink or React.
import { build } from 'esbuild';
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { bundleOptions } from './bundle-options.mjs';
import { noticesText } from './notices.mjs';

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
  ...bundleOptions(pkg, { testHooks }),
  entryPoints: { medchat: 'src/main.ts', 'search-worker': 'src/core/sessions/search-worker.ts' }, // the worker `sessions search` starts on many files
  outdir: tmp,
  splitting: true,
  format: 'esm',
  chunkNames: 'chunks/[name]-[hash]',
  banner: {
    // Some bundled CommonJS modules call require(); give them one.
    js: "import { createRequire as __medchatCreateRequire } from 'node:module'; const require = __medchatCreateRequire(import.meta.url);",
  },
});
// The licences of what was bundled travel with it (see build/notices.mjs).
writeFileSync(`${tmp}/THIRD-PARTY-NOTICES.md`, noticesText(result.metafile, pkg));

if (existsSync(outdir)) renameSync(outdir, old);
renameSync(tmp, outdir);
rmSync(old, { recursive: true, force: true });
