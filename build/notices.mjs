// Build step (not shipped): the third-party notices for what esbuild bundled into dist/. Every package whose code is
// in the bundle is listed with its name, version, licence and the full text of its licence file(s), read from its own
// folder in node_modules, so the tarball carries the notices its licences ask for. A bundled package without a licence
// file stops the build (look at it before shipping it).
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';

/** `node_modules/<name>` (or `@scope/name`) folders of the packages in an esbuild metafile's inputs, deepest copy kept apart. */
export function bundledPackageDirs(metafile, cwd = process.cwd()) {
  const dirs = new Set();
  for (const input of Object.keys(metafile.inputs)) {
    const file = input.replaceAll('\\', '/');
    const at = file.lastIndexOf('node_modules/');
    if (at < 0) continue;
    const rest = file.slice(at + 'node_modules/'.length).split('/');
    const name = rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
    dirs.add(path.resolve(cwd, file.slice(0, at), 'node_modules', name));
  }
  return [...dirs].sort();
}

const MIT_TEXT = `Permission is hereby granted, free of charge, to any person obtaining a copy of this software and associated
documentation files (the "Software"), to deal in the Software without restriction, including without limitation the
rights to use, copy, modify, merge, publish, distribute, sublicense, and/or sell copies of the Software, and to permit
persons to whom the Software is furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all copies or substantial portions of the
Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR IMPLIED, INCLUDING BUT NOT LIMITED TO THE
WARRANTIES OF MERCHANTABILITY, FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE AUTHORS OR
COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR
OTHERWISE, ARISING FROM, OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE SOFTWARE.`;

/**
 * Packages that ship no licence file, with the notice their sources carry. Each was read by hand: the licence in its
 * package.json must still say the same, or the build stops.
 */
const WITHOUT_FILE = {
  // Every source file: "Copyright (c) Meta Platforms, Inc. and affiliates. This source code is licensed under the MIT
  // license found in the LICENSE file in the root directory of this source tree." (the file is not in the package).
  'yoga-layout': { licence: 'MIT', text: `MIT License\n\nCopyright (c) Meta Platforms, Inc. and affiliates.\n\n${MIT_TEXT}` },
};

const LICENCE_FILE = /^(licen[cs]e|copying|notice)(\b|[.-]|$)/i;

/** One package's entry: name, version, licence id, and the texts of its licence files. */
export function packageNotice(dir) {
  const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'));
  const files = readdirSync(dir).filter((f) => LICENCE_FILE.test(f)).sort();
  const known = WITHOUT_FILE[pkg.name];
  if (files.length === 0 && known && pkg.license === known.licence) return { name: pkg.name, version: pkg.version, licence: known.licence, texts: [known.text] };
  if (files.length === 0) throw new Error(`notices: ${pkg.name}@${pkg.version} (${dir}) is bundled but has no licence file; check its terms`);
  const licence = typeof pkg.license === 'string' ? pkg.license : (pkg.license?.type ?? 'see text');
  return { name: pkg.name, version: pkg.version, licence, texts: files.map((f) => readFileSync(path.join(dir, f), 'utf8').trim()) };
}

/** The notices of bundled source files generated from a package's data: `X.ts` with a `X.notice.json` beside it. */
export function embeddedNotices(metafile, cwd = process.cwd()) {
  const out = [];
  for (const input of Object.keys(metafile.inputs)) {
    if (input.includes('node_modules/') || !/\.[cm]?[jt]s$/.test(input)) continue;
    const notice = path.resolve(cwd, input.replace(/\.[cm]?[jt]s$/, '.notice.json'));
    if (existsSync(notice)) out.push(JSON.parse(readFileSync(notice, 'utf8')));
  }
  return out;
}

/** A code fence longer than any run of backticks in `text`. */
const fence = (text) => '`'.repeat(Math.max(3, ...(text.match(/`+/g) ?? []).map((r) => r.length + 1)));

/** The notices file's text for the packages in `metafile`. */
export function noticesText(metafile, own, cwd) {
  const seen = new Map();
  for (const dir of bundledPackageDirs(metafile, cwd)) {
    const n = packageNotice(dir);
    seen.set(`${n.name}@${n.version}`, n);
  }
  // Data generated from a package into src/ (e.g. the guard's name list) carries its notice beside it: X.notice.json.
  for (const n of embeddedNotices(metafile, cwd)) seen.set(`${n.name}@${n.version}`, n);
  const list = [...seen.values()].sort((a, b) => a.name.localeCompare(b.name) || a.version.localeCompare(b.version));
  const head = [
    `# Third-party notices for ${own.name} ${own.version}`,
    '',
    `${own.name} is MIT-licensed (see LICENSE). Its bundle in dist/ includes code from the ${list.length} packages below,`,
    'each under its own licence, reproduced here in full.',
    '',
    ...list.map((n) => `- ${n.name} ${n.version} (${n.licence})`),
  ];
  const body = list.flatMap((n) => ['', '---', '', `## ${n.name} ${n.version}`, '', `Licence: ${n.licence}`, '', ...n.texts.flatMap((t) => [fence(t), t, fence(t)])]);
  return [...head, ...body, ''].join('\n');
}
