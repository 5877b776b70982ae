// What users install: `npm pack`, installed into an empty folder with no network, runs
// `medchat --version`, answers a question against the double, and shows `retexture --help`.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { startServiceDouble, type ServiceDouble } from '../../src/stand-in/index.js';
import { REPO, TEST_KEY, cliEnv } from '../support/cli.js';
import { tempDir } from '../support/temp.js';

let double: ServiceDouble;
let bin = '';
let files: string[] = [];
let tarball = '';
const work = tempDir('medchat-pack-');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

before(async () => {
  double = await startServiceDouble();
  // The suite builds first (npm test); --ignore-scripts keeps pack from rebuilding dist/ under other tests.
  const out = execFileSync(npm, ['pack', '--ignore-scripts', '--json', '--pack-destination', work], { cwd: REPO, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  const info = JSON.parse(out)[0] as { filename: string; files: Array<{ path: string }> };
  files = info.files.map((f) => f.path);
  tarball = path.join(work, path.basename(info.filename));
  const prefix = path.join(work, 'app');
  fs.mkdirSync(prefix);
  execFileSync(npm, ['install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts', path.join(work, path.basename(info.filename))], {
    cwd: prefix,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  bin = path.join(prefix, 'node_modules', '.bin', 'medchat');
});
after(async () => {
  await double.close();
  fs.rmSync(work, { recursive: true, force: true });
});

/** Run the installed medchat (asynchronously: the double answers from this same process). */
function run(args: string[], env: Record<string, string> = {}): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, { env: { ...cliEnv({}), ...env }, cwd: path.dirname(bin) });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    child.stdin.end();
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

test('the tarball ships only what runs: bin, dist, package.json, README, licence', () => {
  for (const f of files) assert.match(f, /^(bin\/medchat\.js|dist\/.+|package\.json|README\.md|LICEN[CS]E(\.md)?)$/, `unexpected file in the package: ${f}`);
  assert.ok(files.includes('bin/medchat.js') && files.includes('dist/medchat.js'));
  assert.ok(!files.some((f) => f.startsWith('src/') || f.startsWith('test/')));
});

test('the tarball carries the licence and the third-party notices, installed beside the program', () => {
  assert.ok(files.includes('LICENSE'), 'LICENSE is in the tarball');
  assert.ok(files.includes('dist/THIRD-PARTY-NOTICES.md'), 'the notices are in the tarball');
  const installed = path.join(path.dirname(fs.realpathSync(bin)), '..');
  assert.match(fs.readFileSync(path.join(installed, 'LICENSE'), 'utf8'), /^MIT License/);
  assert.match(fs.readFileSync(path.join(installed, 'dist', 'THIRD-PARTY-NOTICES.md'), 'utf8'), /^## ink \d/m);
});

test('installed from the tarball into an empty folder: --version', async () => {
  const v = await run(['--version']);
  assert.equal(v.status, 0, v.stderr);
  const pkg = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8'));
  assert.equal(v.stdout, `${pkg.version}\n`);
});

test('installed from the tarball: one-shot against the double', async () => {
  double.chat.enqueue({ reasoning: [], content: ['60–100 bpm'] });
  const r = await run(['What is a normal heart rate?'], { MEDCHAT_BASE_URL: double.url, MEDCHAT_API_KEY: TEST_KEY });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, '60–100 bpm');
});

test('installed from the tarball: retexture --help', async () => {
  const r = await run(['retexture', '--help']);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /Usage: medchat retexture/);
  assert.match(r.stdout, /--image/);
});

/** npm with its cache inside this test's folder (npx unpacks there), offline: nothing may come from the network. */
function npmIn(cwd: string, args: string[], cmd = npm): string {
  return execFileSync(cmd, args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, npm_config_cache: path.join(work, 'npm-cache'), npm_config_update_notifier: 'false' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

test('the README\'s other ways in work from the tarball: npx ./medchat-<version>.tgz and npm install -g', () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { version: string };
  assert.equal(path.basename(tarball), `medchat-${pkg.version}.tgz`);
  const npx = process.platform === 'win32' ? 'npx.cmd' : 'npx';
  assert.equal(npmIn(work, ['--offline', '--yes', `./${path.basename(tarball)}`, '--version'], npx), `${pkg.version}\n`);
  const global = path.join(work, 'global');
  npmIn(work, ['install', '-g', '--prefix', global, '--offline', '--no-audit', '--no-fund', tarball]);
  assert.equal(execFileSync(path.join(global, 'bin', 'medchat'), ['--version'], { encoding: 'utf8' }), `${pkg.version}\n`);
});
