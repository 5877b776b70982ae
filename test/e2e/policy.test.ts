import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { startServiceDouble, type ServiceDouble } from '../../src/stand-in/index.js';
import { BIN, filesUnder, REPO, runCli, TEST_KEY, tempHome, type CliOptions, type CliResult } from '../support/cli.js';
import { tempDir } from '../support/temp.js';
import { openToOthers, testBuild } from '../support/test-build.js';

/**
 * The organisation policy through a real bundle against the double. medchat is built once for
 * this file with its test hooks (test/support/test-build.ts), so MEDCHAT_TEST_POLICY_FILE points
 * it at a policy in a temporary folder; the release bundle (dist/) is checked to have no such hook.
 */
let double: ServiceDouble;
let bin: string;
before(async () => {
  bin = testBuild();
  double = await startServiceDouble();
});
after(() => double.close());

const BOUND_MS = 60_000;
const NOTE = 'Patient: Margaret Ellison   DOB: 14/07/1951   MRN: K4471902. Summarise.';

/** A policy file (an object is written as JSON, a string as it is) in a folder of its own. */
function policyFile(content: object | string): string {
  const dir = openToOthers(tempDir('medchat-policy-'));
  const file = path.join(dir, 'policy.json');
  fs.writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  fs.chmodSync(file, 0o644);
  return file;
}

interface PolicyRun extends CliOptions {
  policy?: object | string;
  /** The policy's path as it is (a folder, a FIFO, a missing file). */
  policyPath?: string;
  /** config.json's content, written before the run (values set before the policy came). */
  config?: object;
}

function run(args: string[], o: PolicyRun = {}): Promise<CliResult> {
  const home = o.home ?? tempHome();
  if (o.config) {
    fs.mkdirSync(path.join(home, 'config'), { recursive: true });
    fs.writeFileSync(path.join(home, 'config', 'config.json'), JSON.stringify(o.config));
  }
  const file = o.policyPath ?? (o.policy !== undefined ? policyFile(o.policy) : path.join(home, 'no-policy.json'));
  return runCli(args, { timeoutMs: BOUND_MS, bin, ...o, home, env: { MEDCHAT_TEST_POLICY_FILE: file, ...o.env } });
}

/**
 * One `medchat: …` line on stderr, naming the policy file, and exit 2. With `notices`, lines saying
 * what the policy changed (`privacy is redact by …`) may come before it.
 */
function refused(r: CliResult, file: string | RegExp, what: RegExp, notices = false): void {
  assert.equal(r.code, 2, r.stderr);
  let lines = r.stderr.split('\n').filter(Boolean);
  if (notices) lines = lines.filter((l) => !/^medchat: [a-z-]+ is [^:]* by your organisation's policy \([^)]*\)$/.test(l));
  assert.equal(lines.length, 1, `one line, got:\n${r.stderr}`);
  assert.match(lines[0]!, /^medchat: /);
  if (typeof file === 'string') assert.ok(lines[0]!.includes(file), `names ${file}: ${lines[0]}`);
  else assert.match(lines[0]!, file);
  assert.match(lines[0]!, what);
  assert.equal(r.stdout, '');
}

const requestsNow = () => double.chat.requests.length;
const lastBody = () => double.chat.requests.at(-1)!.body as { model: string; max_tokens: number; messages: Array<{ content: string }> };

test('medchat policy: no policy file says so and where it would be; one-shot runs as without it', async () => {
  const r = await run(['policy']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^no organisation policy \(.*no-policy\.json does not exist\)/);
  const j = JSON.parse((await run(['policy', '--json'])).stdout);
  assert.equal(j.present, false);
  assert.deepEqual(j.locked, []);
  const ask = await run(['--privacy', 'off', '--max-tokens', '99999', 'hello'], { baseUrl: double.url });
  assert.equal(ask.code, 0, ask.stderr);
  assert.doesNotMatch(ask.stderr, /policy/);
});

test('medchat policy shows every key, its value and what it means; --json the same', async () => {
  const policy = {
    'base-url': [double.url],
    privacy: 'redact',
    history: 'on',
    'retention-days': 30,
    encrypt: true,
    audit: true,
    'audit-dir': '/var/log/medchat',
    disclaimer: 'on',
    model: ['medical-large-latest'],
    'max-tokens': 8192,
    retexture: false,
    'api-key-flag': false,
  };
  const file = policyFile(policy);
  const r = await run(['policy'], { policyPath: file });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout.split('\n')[0], `organisation policy: ${file}`);
  for (const key of Object.keys(policy)) assert.match(r.stdout, new RegExp(`^  ${key} +\\S`, 'm'), key);
  assert.match(r.stdout, /privacy +redact +patient identifiers are always replaced/);
  assert.match(r.stdout, /retexture +off +image jobs are off/);
  const j = JSON.parse((await run(['policy', '--json'], { policyPath: file })).stdout);
  assert.equal(j.file, file);
  assert.equal(j.present, true);
  assert.deepEqual(
    j.locked.map((l: { key: string }) => l.key),
    Object.keys(policy).sort((a, b) => ORDER.indexOf(a) - ORDER.indexOf(b)),
  );
  assert.deepEqual(j.locked.find((l: { key: string }) => l.key === 'base-url').value, [double.url]);
});
const ORDER = ['base-url', 'model', 'privacy', 'history', 'retention-days', 'encrypt', 'audit', 'audit-dir', 'disclaimer', 'max-tokens', 'retexture', 'api-key-flag'];

test('a malformed policy stops every command with one line naming the file (fail closed), sending nothing', async () => {
  const cases: Array<[string, object | string, RegExp]> = [
    ['bad JSON', '{"privacy": "redact",}', /not valid JSON/],
    ['unknown key', { privacy: 'redact', 'max-token': 100 }, /unknown key "max-token"/],
    ['privacy off', { privacy: 'off' }, /"privacy" is "off"; it is the lowest privacy mode allowed, never "off"/],
    ['privacy wrong word', { privacy: 'strict' }, /"privacy" is .*; it must be "warn" or "redact"/],
    ['empty model list', { model: [] }, /"model" is .*; it must name at least one/],
    ['empty base-url list', { 'base-url': [] }, /"base-url" is .*; it must name at least one/],
    ['base-url not a list', { 'base-url': 'https://llm.hospital.example' }, /"base-url" is .*; it must be a list/],
    ['base-url without scheme', { 'base-url': ['llm.hospital.example'] }, /"base-url" is .*; it must hold only http/],
    ['max-tokens as text', { 'max-tokens': '8192' }, /"max-tokens" is .*; it must be a whole number/],
    ['retention-days 0', { 'retention-days': 0 }, /"retention-days" is .*; it must be a whole number from 1/],
    ['history maybe', { history: 'maybe' }, /"history" is .*; it must be "on" or "off"/],
    ['encrypt as 1', { encrypt: 1 }, /"encrypt" is .*; it must be "on" or "off"/],
    ['audit-dir relative', { 'audit-dir': 'logs' }, /"audit-dir" is .*; it must be an absolute folder/],
    ['an array', '[]', /must hold one JSON object/],
    ['null', 'null', /must hold one JSON object/],
    ['empty file', '', /not valid JSON/],
  ];
  let n = 0;
  for (const [name, content, what] of cases) {
    const file = policyFile(content);
    const before = requestsNow();
    for (const args of [['hello'], ['policy'], ['config', 'list'], ['sessions', 'list']]) {
      const r = await run(args, { policyPath: file, baseUrl: double.url });
      refused(r, file, what);
      assert.match(r.stderr, /organisation policy/, name);
      n++;
    }
    assert.equal(requestsNow(), before, `${name}: nothing sent`);
  }
  // Not a regular file: a folder, a FIFO (no writer: must not hang), /dev/zero behind a link.
  const dir = tempDir('medchat-policy-kinds-');
  const folder = path.join(dir, 'folder.json');
  fs.mkdirSync(folder);
  refused(await run(['hello'], { policyPath: folder, baseUrl: double.url }), folder, /folder/);
  const fifo = path.join(dir, 'fifo.json');
  execFileSync('mkfifo', [fifo]);
  refused(await run(['hello'], { policyPath: fifo, baseUrl: double.url }), fifo, /not a regular file/);
  const zero = path.join(dir, 'zero.json');
  fs.symlinkSync('/dev/zero', zero);
  refused(await run(['hello'], { policyPath: zero, baseUrl: double.url }), zero, /not a regular file/);
  console.log(`# policy: ${cases.length} malformed files x 4 commands (${n} runs) and 3 kinds of non-file refused`);
});

const NOBODY = 65534;
const AS_NOBODY = ['setpriv', `--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups'];
const otherUserSkip: string | false = (() => {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return 'needs root on Linux, to make a policy another user cannot read';
  const probe = spawnSync(AS_NOBODY[0]!, [...AS_NOBODY.slice(1), process.execPath, '-e', '0'], { stdio: 'ignore' });
  return probe.status === 0 ? false : 'needs setpriv (util-linux) and a node binary the user nobody can run';
})();

test('a policy the user cannot read (EACCES) stops medchat, naming the file: fail closed', { skip: otherUserSkip }, async () => {
  const file = policyFile({ privacy: 'redact' });
  fs.chmodSync(file, 0o600);
  const home = openToOthers(tempHome());
  fs.chownSync(home, NOBODY, NOBODY);
  const r = await run(['--privacy', 'off', 'hello'], { policyPath: file, home, baseUrl: double.url, wrap: AS_NOBODY });
  refused(r, file, /cannot be read \(permission denied\).*chmod 644/);
});

test('base-url and model: a flag, variable or config value outside the list is refused; unset, the first allowed is used', async () => {
  const policy = { 'base-url': [double.url, 'https://llm.hospital.example'], model: ['clinical-small', 'medical-large-latest'] };
  const file = policyFile(policy);
  const home = tempHome();
  const env = { MEDCHAT_API_KEY: TEST_KEY };
  // Nothing set: the first service and the first model.
  let n = requestsNow();
  const ok = await run(['hello'], { policyPath: file, home, env });
  assert.equal(ok.code, 0, ok.stderr);
  assert.equal(requestsNow(), n + 1);
  assert.equal(lastBody().model, 'clinical-small');
  assert.doesNotMatch(ok.stderr, /policy/, 'nothing overridden: nothing said');
  // An allowed choice is kept.
  const chosen = await run(['-m', 'medical-large-latest', 'hello'], { policyPath: file, home, env: { ...env, MEDCHAT_BASE_URL: double.url + '/v1/' } });
  assert.equal(chosen.code, 0, chosen.stderr);
  assert.equal(lastBody().model, 'medical-large-latest');
  n = requestsNow();
  refused(await run(['--base-url', 'https://elsewhere.example', 'hello'], { policyPath: file, home, env }), file, /^medchat: --base-url: base-url https:\/\/elsewhere\.example is not allowed by your organisation's policy .*allowed: /);
  refused(await run(['hello'], { policyPath: file, home, env: { ...env, MEDCHAT_BASE_URL: 'https://elsewhere.example' } }), file, /MEDCHAT_BASE_URL: .*not allowed/);
  refused(await run(['hello'], { policyPath: file, env, config: { 'base-url': 'https://elsewhere.example' } }), file, /config base-url .*not allowed.*medchat config unset base-url/);
  refused(await run(['-m', 'gpt-unvetted', 'hello'], { policyPath: file, home, env }), file, /--model: model gpt-unvetted is not allowed .*allowed: clinical-small, medical-large-latest/);
  refused(await run(['hello'], { policyPath: file, home, env: { ...env, MEDCHAT_MODEL: 'gpt-unvetted' } }), file, /MEDCHAT_MODEL: .*not allowed/);
  refused(await run(['config', 'set', 'model', 'gpt-unvetted'], { policyPath: file, home }), file, /model gpt-unvetted is not allowed.*nothing was changed/);
  refused(await run(['batch', '-', '-o', path.join(home, 'a.jsonl')], { policyPath: file, home, env: { ...env, MEDCHAT_MODEL: 'gpt-unvetted' }, stdin: 'hello\n' }), file, /not allowed/);
  assert.equal(requestsNow(), n, 'nothing sent');
  // config list shows the value in force, marked.
  const list = await run(['config', 'list'], { policyPath: file, home });
  assert.match(list.stdout, /^model +clinical-small \(locked by policy: one of clinical-small, medical-large-latest\)$/m);
  // A service set before the policy came: shown as it is, refused, with the fix.
  const before = { 'base-url': 'https://elsewhere.example' };
  const refusedList = await run(['config', 'list'], { policyPath: file, config: before });
  assert.match(refusedList.stdout, /^base-url +https:\/\/elsewhere\.example \(refused by policy: one of http:\/\/127\.0\.0\.1:\d+, https:\/\/llm\.hospital\.example; run: medchat config unset base-url\)$/m);
  const refusedGet = await run(['config', 'get', 'base-url'], { policyPath: file, config: before });
  assert.equal(refusedGet.stdout, 'https://elsewhere.example\n');
  assert.match(refusedGet.stderr, /^medchat: base-url https:\/\/elsewhere\.example is refused by your organisation's policy \(.*\): one of .*; run: medchat config unset base-url\n$/);
});

test('privacy is a floor: --privacy off refused (exit 2); a lower config value raised and said once; the default raised silently', async () => {
  const file = policyFile({ privacy: 'redact' });
  const n = requestsNow();
  refused(await run(['--privacy', 'off', 'hello'], { policyPath: file, baseUrl: double.url }), file, /^medchat: --privacy: privacy off is not allowed: privacy is at least redact by your organisation's policy/);
  refused(await run(['--privacy', 'warn', 'hello'], { policyPath: file, baseUrl: double.url }), file, /privacy warn is not allowed/);
  refused(await run(['batch', '-', '--privacy', 'off', '-o', path.join(tempHome(), 'a.jsonl')], { policyPath: file, baseUrl: double.url, stdin: 'hello\n' }), file, /privacy off is not allowed/);
  assert.equal(requestsNow(), n, 'nothing sent');
  // A config value below the floor: the floor, said once, naming the file; nothing of the note sent.
  const r = await run(['summarise'], { policyPath: file, baseUrl: double.url, config: { privacy: 'warn' }, stdin: NOTE });
  assert.equal(r.code, 0, r.stderr);
  const said = r.stderr.split('\n').filter((l) => l.includes("organisation's policy"));
  assert.deepEqual(said, [`medchat: privacy is redact by your organisation's policy (${file})`]);
  const sent = JSON.stringify(lastBody().messages);
  for (const v of ['Margaret Ellison', '14/07/1951', 'K4471902']) assert.ok(!sent.includes(v), `${v} not sent`);
  // Nothing chosen: redact all the same, and nothing said (the user's choice was not overridden).
  const quiet = await run(['summarise'], { policyPath: file, baseUrl: double.url, stdin: NOTE });
  assert.equal(quiet.code, 0, quiet.stderr);
  assert.doesNotMatch(quiet.stderr, /organisation's policy/);
  assert.ok(!JSON.stringify(lastBody().messages).includes('K4471902'));
  // A floor of warn allows redact and refuses off.
  const warnFloor = policyFile({ privacy: 'warn' });
  assert.equal((await run(['--privacy', 'redact', 'hello'], { policyPath: warnFloor, baseUrl: double.url })).code, 0);
  refused(await run(['--privacy', 'off', 'hello'], { policyPath: warnFloor, baseUrl: double.url }), warnFloor, /privacy off is not allowed: privacy is at least warn/);
  refused(await run(['config', 'set', 'privacy', 'off'], { policyPath: warnFloor }), warnFloor, /privacy off is not allowed/);
});

test('max-tokens is a ceiling: a larger flag refused, a larger config value or role lowered (said once), the request holds the ceiling', async () => {
  const file = policyFile({ 'max-tokens': 2000 });
  const n = requestsNow();
  refused(await run(['--max-tokens', '4000', 'hello'], { policyPath: file, baseUrl: double.url }), file, /--max-tokens: max-tokens is at most 2000 .*give --max-tokens 2000 or less/);
  assert.equal(requestsNow(), n);
  const low = await run(['--max-tokens', '1500', 'hello'], { policyPath: file, baseUrl: double.url });
  assert.equal(low.code, 0, low.stderr);
  assert.equal(lastBody().max_tokens, 1500);
  const fromConfig = await run(['hello'], { policyPath: file, baseUrl: double.url, config: { 'max-tokens': 20000 } });
  assert.equal(fromConfig.code, 0, fromConfig.stderr);
  assert.equal(lastBody().max_tokens, 2000);
  assert.deepEqual(fromConfig.stderr.split('\n').filter((l) => l.includes('policy')), [`medchat: max-tokens is 2000, the most allowed by your organisation's policy (${file})`]);
  const byDefault = await run(['hello'], { policyPath: file, baseUrl: double.url });
  assert.equal(lastBody().max_tokens, 2000, 'the default 8192 is over the ceiling');
  assert.doesNotMatch(byDefault.stderr, /policy/);
  // The built-in soap role asks for 4096.
  const role = await run(['-r', 'soap', 'hello'], { policyPath: file, baseUrl: double.url });
  assert.equal(role.code, 0, role.stderr);
  assert.equal(lastBody().max_tokens, 2000);
  refused(await run(['config', 'set', 'max-tokens', '2001'], { policyPath: file }), file, /max-tokens is at most 2000/);
  assert.equal((await run(['config', 'set', 'max-tokens', '1000'], { policyPath: file })).code, 0);
});

test('history off saves nothing and refuses -c; history on refuses --incognito and `config set history off`', async () => {
  const off = policyFile({ history: 'off' });
  const home = tempHome();
  const r = await run(['hello'], { policyPath: off, home, baseUrl: double.url, config: { history: true } });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(filesUnder(path.join(home, 'data')).filter((f) => /sessions/.test(f)), [], 'no session saved');
  assert.deepEqual(r.stderr.split('\n').filter((l) => l.includes('policy')), [`medchat: history is off by your organisation's policy (${off})`]);
  refused(await run(['-c', 'more'], { policyPath: off, home, baseUrl: double.url }), off, /saved conversations are off by your organisation's policy/);
  refused(await run(['config', 'set', 'history', 'on'], { policyPath: off, home }), off, /history is off .*cannot be turned on/);
  const on = policyFile({ history: 'on' });
  const home2 = tempHome();
  const n = requestsNow();
  refused(await run(['--incognito', 'hello'], { policyPath: on, home: home2, baseUrl: double.url }), on, /--incognito is not allowed: history is on by your organisation's policy/);
  assert.equal(requestsNow(), n);
  refused(await run(['config', 'set', 'history', 'off'], { policyPath: on, home: home2 }), on, /history is on .*cannot be turned off/);
  const saved = await run(['hello'], { policyPath: on, home: home2, baseUrl: double.url, config: { history: false } });
  assert.equal(saved.code, 0, saved.stderr);
  assert.equal(filesUnder(path.join(home2, 'data', 'sessions')).filter((f) => f.endsWith('.json')).length, 1, 'the conversation is saved');
});

test('encrypt, audit, disclaimer, retention-days: config cannot go past them; config get and list show the value in force, marked', async () => {
  const file = policyFile({ encrypt: true, audit: 'on', disclaimer: 'on', 'retention-days': 30 });
  const home = tempHome();
  refused(await run(['config', 'set', 'encrypt', 'off'], { policyPath: file, home }), file, /encrypt is required by your organisation's policy .*cannot be turned off/);
  refused(await run(['config', 'set', 'audit', 'off'], { policyPath: file, home }), file, /audit is required/);
  refused(await run(['config', 'set', 'disclaimer', 'off'], { policyPath: file, home }), file, /disclaimer is on .*cannot be turned off/);
  refused(await run(['config', 'set', 'retention-days', '90'], { policyPath: file, home }), file, /retention-days is at most 30/);
  assert.equal((await run(['config', 'set', 'retention-days', '7'], { policyPath: file, home })).code, 0);
  // Turning encryption on needs a key source (no terminal here to ask for a passphrase).
  assert.equal((await run(['config', 'set', 'encrypt', 'on'], { policyPath: file, home, config: { 'history-key-command': 'echo policy-test-key' } })).code, 0);
  // Values set before the policy came.
  const config = { encrypt: false, audit: false, 'retention-days': 365, disclaimer: false };
  const get = await run(['config', 'get', 'retention-days'], { policyPath: file, home, config });
  assert.equal(get.stdout, '30\n');
  assert.equal(get.stderr, `medchat: retention-days is locked by your organisation's policy (${file}): at most 30\n`);
  assert.equal((await run(['config', 'get', 'encrypt'], { policyPath: file, home })).stdout, 'on\n');
  const list = await run(['config', 'list'], { policyPath: file, home });
  assert.match(list.stdout, /^encrypt +on \(locked by policy: on; your off is not used\)$/m);
  assert.match(list.stdout, /^audit +on \(locked by policy: on; your off is not used\)$/m);
  assert.match(list.stdout, /^retention-days +30 \(locked by policy: at most 30; your 365 is not used\)$/m);
  assert.match(list.stdout, /^thinking +on \(default\)$/m, 'keys the policy does not lock are shown as before');
});

test('retexture: false refuses `medchat retexture` and `medchat task` (exit 2), sending nothing', async () => {
  const file = policyFile({ retexture: false });
  const img = path.join(tempHome(), 'scan.png');
  fs.writeFileSync(img, Buffer.from('89504e470d0a1a0a', 'hex'));
  const before = double.server.requests.length;
  refused(await run(['retexture', '--image', img, 'watercolour'], { policyPath: file, baseUrl: double.url }), file, /image jobs \(retexture\) are turned off by your organisation's policy/);
  refused(await run(['task', '1712345678901234567', '--wait'], { policyPath: file, baseUrl: double.url }), file, /image jobs \(retexture\) are turned off/);
  assert.equal(double.server.requests.length, before);
});

test('api-key-flag: false refuses --api-key (exit 2) in every command, never echoing the key', async () => {
  const file = policyFile({ 'api-key-flag': false });
  const key = 'sk-live-VERYSECRETKEY-zz99';
  const img = path.join(tempHome(), 'scan.png');
  fs.writeFileSync(img, Buffer.from('89504e470d0a1a0a', 'hex'));
  const before = double.server.requests.length;
  for (const args of [['--api-key', key, 'hello'], ['batch', '-', '--api-key', key, '-o', path.join(tempHome(), 'a.jsonl')], ['task', '1712345678901234567', '--api-key', key], ['retexture', '--image', img, '--api-key', key, 'x']]) {
    const r = await run(args, { policyPath: file, env: { MEDCHAT_BASE_URL: double.url }, stdin: 'hello\n' });
    refused(r, file, /--api-key is turned off by your organisation's policy/);
    for (let i = 0; i + 8 <= key.length; i++) assert.ok(!r.stderr.includes(key.slice(i, i + 8)), `no 8 characters of the key: ${r.stderr}`);
    assert.doesNotMatch(r.stderr, /visible to other users/, 'refused, not warned');
  }
  assert.equal(double.server.requests.length, before);
  // The same key from the environment works.
  assert.equal((await run(['hello'], { policyPath: file, baseUrl: double.url })).code, 0);
});

test('no user-controlled variable moves or turns off the policy: config and data folders, XDG, HOME, every MEDCHAT_* variable', async () => {
  const file = policyFile({ model: ['clinical-small'], privacy: 'redact' });
  // Every MEDCHAT_* name in the source, set to something, but the test build's own hook.
  const names = new Set<string>();
  for (const f of filesUnder(path.join(REPO, 'src'))) for (const m of fs.readFileSync(f, 'utf8').matchAll(/\bMEDCHAT_[A-Z_]+[A-Z]\b/g)) names.add(m[0]);
  names.delete('MEDCHAT_TEST_POLICY_FILE');
  for (const n of [...names]) if (/^MEDCHAT_(TEST_HOOKS|VERSION|BUILD_)/.test(n)) names.delete(n);
  const other = tempHome();
  const env: Record<string, string> = { XDG_CONFIG_HOME: other, XDG_DATA_HOME: other, MEDCHAT_CONFIG_DIR: path.join(other, 'c'), MEDCHAT_DATA_DIR: path.join(other, 'd'), APPDATA: other, ProgramData: other };
  for (const n of names) env[n] ??= n === 'MEDCHAT_BASE_URL' ? double.url : n === 'MEDCHAT_API_KEY' ? TEST_KEY : n === 'MEDCHAT_RETRIES' ? '1' : n === 'MEDCHAT_MODEL' ? 'clinical-small' : '1';
  fs.mkdirSync(path.join(other, 'c'), { recursive: true });
  fs.writeFileSync(path.join(other, 'c', 'config.json'), JSON.stringify({ privacy: 'off' }));
  const r = await run(['policy', '--json'], { policyPath: file, env });
  assert.equal(JSON.parse(r.stdout).present, true);
  refused(await run(['-m', 'other', 'hello'], { policyPath: file, env }), file, /not allowed/, true);
  refused(await run(['--privacy', 'off', 'hello'], { policyPath: file, env }), file, /privacy off is not allowed/, true);
  const ok = await run(['summarise'], { policyPath: file, env, stdin: NOTE });
  assert.equal(ok.code, 0, ok.stderr);
  assert.ok(!JSON.stringify(lastBody().messages).includes('K4471902'), 'redacted although the config says off');
  console.log(`# policy: ${names.size} MEDCHAT_* variables set (${[...names].sort().join(', ')})`);
});

test('the release bundle (dist/) has no test hook: MEDCHAT_TEST_POLICY_FILE is not in it and changes nothing', async (t) => {
  const dist = path.join(REPO, 'dist');
  const hits = filesUnder(dist).filter((f) => f.endsWith('.js') && fs.readFileSync(f, 'utf8').includes('MEDCHAT_TEST_POLICY_FILE'));
  assert.deepEqual(hits, [], 'the variable name is not in the release bundle');
  const test = filesUnder(path.dirname(bin)).filter((f) => f.endsWith('.js') && fs.readFileSync(f, 'utf8').includes('MEDCHAT_TEST_POLICY_FILE'));
  assert.equal(test.length, 1, 'the test build has it (so the check above means something)');
  const intoDist = spawnSync(process.execPath, [path.join(REPO, 'build', 'build.mjs')], { cwd: REPO, env: { ...process.env, MEDCHAT_BUILD_TEST_HOOKS: '1' }, encoding: 'utf8', timeout: BOUND_MS });
  assert.notEqual(intoDist.status, 0, 'a test build is never written into dist/');
  assert.match(intoDist.stderr, /never dist\//);
  if (fs.existsSync('/etc/medchat/policy.json')) return t.skip('this machine has a real /etc/medchat/policy.json');
  const file = policyFile({ model: ['clinical-small'] });
  const r = await runCli(['policy'], { bin: BIN, env: { MEDCHAT_TEST_POLICY_FILE: file }, timeoutMs: BOUND_MS });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, 'no organisation policy (/etc/medchat/policy.json does not exist): every setting is yours (medchat config list)\n');
  const ask = await runCli(['-m', 'gpt-unvetted', 'hello'], { bin: BIN, baseUrl: double.url, env: { MEDCHAT_TEST_POLICY_FILE: file }, timeoutMs: BOUND_MS });
  assert.equal(ask.code, 0, ask.stderr);
  assert.equal(lastBody().model, 'gpt-unvetted');
});

test('retention-days from the policy alone: at start, conversations past it are deleted with one line naming the policy; newer ones stay', async () => {
  const file = policyFile({ 'retention-days': 30 });
  const home = tempHome();
  const sessions = path.join(home, 'data', 'sessions');
  fs.mkdirSync(sessions, { recursive: true, mode: 0o700 });
  const now = Date.now();
  for (const [id, days] of [['20250101-000000-aaaa', 40], ['20250102-000000-bbbb', 5]] as const) {
    const at = new Date(now - days * 86_400_000);
    const f = path.join(sessions, `${id}.json`);
    fs.writeFileSync(f, JSON.stringify({ format: 'medchat-session', version: 1, id, title: `asked ${days} days ago`, createdAt: at.toISOString(), updatedAt: at.toISOString(), model: 'm', turns: [], context: { startTurn: 0, ratio: 1, samples: 0, compactions: [] } }), { mode: 0o600 });
    fs.utimesSync(f, at, at);
  }
  const r = await run(['sessions', 'list'], { policyPath: file, home });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stderr, `medchat: deleted 1 conversation older than 30 days (retention-days, your organisation's policy (${file}))\n`);
  assert.deepEqual(fs.readdirSync(sessions).sort(), ['20250102-000000-bbbb.json']);
  assert.match(r.stdout, /asked 5 days ago/);
  assert.doesNotMatch(r.stdout, /asked 40 days ago/);
});
