// The third-party notices name every package whose code is in the bundle. The list is derived here again, by esbuild
// resolving src/main.ts on its own (with the one plugin that changes what is resolved: Ink's string-width is medchat's
// own measure; the others only patch file contents), and compared with what the build wrote.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { build } from 'esbuild';
import { pathToFileURL } from 'node:url';
import { REPO } from '../support/cli.js';

const { oneWidth } = (await import(pathToFileURL(path.join(REPO, 'build', 'text-patches.mjs')).href)) as { oneWidth: import('esbuild').Plugin };

test('every bundled package appears in dist/THIRD-PARTY-NOTICES.md with its version and licence text', async () => {
  const notices = fs.readFileSync(path.join(REPO, 'dist', 'THIRD-PARTY-NOTICES.md'), 'utf8');
  const result = await build({
    absWorkingDir: REPO,
    entryPoints: ['src/main.ts'],
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    outdir: 'unused',
    write: false,
    metafile: true,
    external: ['react-devtools-core'],
    define: { 'process.env.DEV': '"false"', 'process.env.NODE_ENV': '"production"' },
    logLevel: 'silent',
    plugins: [oneWidth],
  });
  const packages = new Set<string>();
  for (const input of Object.keys(result.metafile.inputs)) {
    const at = input.lastIndexOf('node_modules/');
    if (at < 0) continue;
    const rest = input.slice(at + 'node_modules/'.length).split('/');
    const name = rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]!;
    const { version } = JSON.parse(fs.readFileSync(path.join(REPO, input.slice(0, at), 'node_modules', name, 'package.json'), 'utf8')) as { version: string };
    packages.add(`${name} ${version}`);
  }
  assert.ok(packages.size > 20, `esbuild found ${packages.size} bundled packages`);
  for (const p of packages) {
    const at = notices.indexOf(`\n## ${p}\n`);
    assert.ok(at >= 0, `${p} is bundled but missing from the notices`);
    const end = notices.indexOf('\n---\n', at + 1);
    const section = notices.slice(at, end < 0 ? undefined : end);
    assert.match(section, /Licence: \S+[\s\S]*```[\s\S]{40,}```/, `${p} has its licence text`);
  }
});
