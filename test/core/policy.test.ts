import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, test } from 'node:test';
import { ConfigStore } from '../../src/core/config/config-store.js';
import { activePolicy, loadPolicy, onPolicyNotice, policyFile, POLICY_KEYS, systemPolicyFile, usePolicyFile, type Policy } from '../../src/core/config/policy.js';
import { assertApiKeyOptionAllowed, assertSessionOptionsAllowed, policyForbids, resolveSettings, resolveValue } from '../../src/core/config/settings.js';
import { resolvePrivacy } from '../../src/core/privacy/choice.js';
import { makePlanner } from '../../src/core/request/request-plan.js';
import { retexture } from '../../src/ui/slash/retexture.js';
import { maxTokens } from '../../src/ui/slash/max-tokens.js';
import type { ChatCommandHost } from '../../src/ui/slash/types.js';
import { tempHome } from '../support/cli.js';
import { Prng, seedFromEnv } from '../support/prng.js';

/** The organisation policy in-process: the file's checks (fail closed) and how resolveValue applies each key. */

const home = tempHome();
let n = 0;
function withPolicy(content: object | string): string {
  const file = path.join(home, `policy-${++n}.json`);
  fs.writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  usePolicyFile(file);
  return file;
}
function store(values: Record<string, unknown> = {}): ConfigStore {
  const dir = path.join(home, `config-${++n}`);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify(values), { mode: 0o600 });
  return new ConfigStore({ MEDCHAT_CONFIG_DIR: dir });
}
const said: string[] = [];
onPolicyNotice((line) => said.push(line));
afterEach(() => {
  usePolicyFile(undefined);
  said.length = 0;
});

test('the policy file: /etc/medchat/policy.json on Linux and macOS, %ProgramData%\\medchat\\policy.json on Windows; from source no variable moves it', () => {
  assert.equal(systemPolicyFile('linux'), '/etc/medchat/policy.json');
  assert.equal(systemPolicyFile('darwin'), '/etc/medchat/policy.json');
  const saved = process.env.ProgramData;
  process.env.ProgramData = 'D:\\Mine';
  try {
    assert.equal(systemPolicyFile('win32'), 'C:\\ProgramData\\medchat\\policy.json', 'ProgramData, a variable the user can set, does not move it');
  } finally {
    if (saved === undefined) delete process.env.ProgramData;
    else process.env.ProgramData = saved;
  }
  const savedHook = process.env.MEDCHAT_TEST_POLICY_FILE;
  process.env.MEDCHAT_TEST_POLICY_FILE = path.join(home, 'elsewhere.json');
  try {
    assert.equal(policyFile(), systemPolicyFile(), 'the test hook is off when run from source (no build define)');
  } finally {
    if (savedHook === undefined) delete process.env.MEDCHAT_TEST_POLICY_FILE;
    else process.env.MEDCHAT_TEST_POLICY_FILE = savedHook;
  }
});

test('every key is read: lists, floor, locks, ceilings, requirements, the audit folder', () => {
  const file = withPolicy({
    'base-url': ['https://llm.hospital.example/v1/', 'http://10.0.0.5:8080'],
    privacy: 'redact',
    history: 'on',
    'retention-days': 30,
    encrypt: true,
    audit: true,
    'audit-dir': '/var/log/medchat',
    disclaimer: 'off',
    model: ['medical-large-latest'],
    'max-tokens': 8192,
    retexture: false,
    'api-key-flag': false,
  });
  const expected: Policy = {
    file,
    baseUrl: ['https://llm.hospital.example', 'http://10.0.0.5:8080'],
    model: ['medical-large-latest'],
    privacy: 'redact',
    history: true,
    retentionDays: 30,
    encrypt: true,
    audit: true,
    auditDir: '/var/log/medchat',
    disclaimer: false,
    maxTokens: 8192,
    retexture: false,
    apiKeyFlag: false,
  };
  assert.deepEqual(activePolicy(), expected);
  assert.equal(POLICY_KEYS.length, 12);
  // true/false and "on"/"off" are the same.
  withPolicy({ history: false, disclaimer: true, encrypt: 'on', retexture: 'on' });
  assert.deepEqual({ ...activePolicy(), file: undefined }, { file: undefined, history: false, disclaimer: true, encrypt: true, retexture: true });
  // No file: no policy.
  usePolicyFile(path.join(home, 'none.json'));
  assert.deepEqual(activePolicy(), {});
});

test('a malformed policy is refused with one line naming the file and the key (fail closed), over generated mutations', () => {
  const fixed: Array<[object | string, RegExp]> = [
    ['{', /is not valid JSON/],
    ['"redact"', /must hold one JSON object/],
    [{ privacy: 'off' }, /"privacy" is "off"; it is the lowest privacy mode allowed, never "off"/],
    [{ model: [] }, /"model" is .*; it must name at least one allowed value/],
    [{ model: [''] }, /"model" is .*; it must be a list of texts/],
    [{ 'base-url': ['ftp://x'] }, /"base-url" is .*; it must hold only http:\/\/ or https:\/\/ addresses/],
    [{ 'Max-Tokens': 1 }, /unknown key "Max-Tokens"/],
    [{ 'max-tokens': 1.5 }, /"max-tokens" is .*; it must be a whole number from 1 to 131072/],
    [{ 'retention-days': 36501 }, /"retention-days" is .*; it must be a whole number from 1 to 36500/],
    [{ 'api-key-flag': 'no' }, /"api-key-flag" is .*; it must be "on" or "off"/],
    [{ 'audit-dir': '' }, /"audit-dir" is .*; it must be an absolute folder path/],
  ];
  for (const [content, what] of fixed) {
    const file = withPolicy(content);
    assert.throws(activePolicy, (e: Error & { exitCode?: number }) => {
      assert.equal(e.exitCode, 2);
      assert.ok(!e.message.includes('\n'), 'one line');
      assert.ok(e.message.includes(file), `names the file: ${e.message}`);
      assert.match(e.message, what);
      return true;
    });
  }
  // Generated: a valid policy with one key given a value of the wrong kind; every one refused, naming that key.
  const seed = seedFromEnv();
  const rng = new Prng(seed);
  const wrong: unknown[] = [null, 0, -1, 1.5, '', 'yes', [], [1], {}, true, 'off', [''], 1e9];
  const valid: Record<string, unknown> = { 'base-url': ['https://a.example'], model: ['m'], privacy: 'warn', history: 'on', 'retention-days': 3, encrypt: true, audit: false, 'audit-dir': '/var/log/medchat', disclaimer: 'on', 'max-tokens': 100, retexture: true, 'api-key-flag': true };
  let refusedCount = 0;
  let accepted = 0;
  for (let i = 0; i < 300; i++) {
    const key = rng.pick(POLICY_KEYS);
    const value = rng.pick(wrong);
    const p = { ...valid, [key]: value };
    try {
      loadPolicyText(JSON.stringify(p));
      accepted++;
      // Only the values that are right for the key pass.
      assert.ok(isRight(key, value), `${key}: ${JSON.stringify(value)} was accepted`);
    } catch (err) {
      refusedCount++;
      assert.ok(!isRight(key, value), `${key}: ${JSON.stringify(value)} was refused: ${(err as Error).message}`);
      assert.ok((err as Error).message.includes(`"${key}"`), (err as Error).message);
    }
  }
  console.log(`# policy mutations: seed ${seed}, 300 cases, ${refusedCount} refused, ${accepted} accepted`);
});

function loadPolicyText(text: string): Policy {
  const file = path.join(home, `gen-${++n}.json`);
  fs.writeFileSync(file, text);
  return loadPolicy(file);
}
/** Whether a value from the generator's list is right for `key`. */
function isRight(key: string, v: unknown): boolean {
  if (['history', 'encrypt', 'audit', 'disclaimer', 'retexture', 'api-key-flag'].includes(key)) return v === true || v === false || v === 'on' || v === 'off';
  if (key === 'retention-days') return Number.isInteger(v) && (v as number) >= 1 && (v as number) <= 36500;
  if (key === 'max-tokens') return Number.isInteger(v) && (v as number) >= 1 && (v as number) <= 131072;
  return false; // no value in the list is a right list, privacy word or absolute folder
}

test('a folder is refused; an absent file (or folder) is no policy', () => {
  const dir = path.join(home, 'folder-policy.json');
  fs.mkdirSync(dir);
  usePolicyFile(dir);
  assert.throws(activePolicy, /the organisation policy .*folder-policy\.json cannot be used: it is a folder/);
  usePolicyFile(path.join(home, 'missing', 'policy.json'));
  assert.deepEqual(activePolicy(), {});
});

test('base-url and model: outside the list refused from flag, environment or config; unset gives the first allowed', () => {
  withPolicy({ 'base-url': ['https://a.example', 'https://b.example'], model: ['m1', 'm2'] });
  const s = store({ 'api-key': 'sk-x-1234567890' });
  const settings = resolveSettings({ env: {}, store: s });
  assert.equal(settings.baseUrl, 'https://a.example');
  assert.equal(settings.model, 'm1');
  assert.equal(resolveValue('base-url', { flags: { 'base-url': 'https://b.example/v1' }, env: {}, store: s }), 'https://b.example');
  assert.equal(resolveValue('model', { env: { MEDCHAT_MODEL: 'm2' }, store: s }), 'm2');
  assert.throws(() => resolveValue('base-url', { flags: { 'base-url': 'https://c.example' }, env: {}, store: s }), /--base-url: base-url https:\/\/c\.example is not allowed by your organisation's policy \(.*\); allowed: https:\/\/a\.example, https:\/\/b\.example; leave out --base-url/);
  assert.throws(() => resolveValue('model', { env: { MEDCHAT_MODEL: 'x' }, store: s }), /MEDCHAT_MODEL: model x is not allowed .*unset MEDCHAT_MODEL/);
  assert.throws(() => resolveValue('model', { env: {}, store: store({ model: 'x' }) }), /config model \(in .*config\.json\): model x is not allowed/);
  assert.deepEqual(said, [], 'a refusal is not also a notice');
});

test('privacy: a floor; a flag below it refused, config below it raised and said once, the default raised silently', () => {
  const file = withPolicy({ privacy: 'redact' });
  assert.throws(() => resolvePrivacy({ privacy: 'off' }, store()), (e: Error & { exitCode?: number }) => e.exitCode === 2 && /^--privacy: privacy off is not allowed: privacy is at least redact by your organisation's policy/.test(e.message));
  assert.deepEqual(resolvePrivacy({}, store()), { mode: 'redact', shiftDates: false });
  assert.deepEqual(said, []);
  const s = store({ privacy: 'warn' });
  assert.equal(resolvePrivacy({}, s).mode, 'redact');
  assert.equal(resolvePrivacy({}, s).mode, 'redact');
  assert.deepEqual(said, [`medchat: privacy is redact by your organisation's policy (${file})`], 'said once');
  assert.deepEqual(resolvePrivacy({ shiftDates: true }, store()), { mode: 'redact', shiftDates: true }, '--shift-dates goes with the floor');
  withPolicy({ privacy: 'warn' });
  assert.equal(resolvePrivacy({ privacy: 'redact' }, store()).mode, 'redact');
  assert.equal(resolvePrivacy({}, store({ privacy: 'redact' })).mode, 'redact', 'above the floor: kept');
  assert.throws(() => resolvePrivacy({ privacy: 'off' }, store()), /privacy off is not allowed: privacy is at least warn/);
});

test('max-tokens and retention-days: ceilings; history, disclaimer: locks; encrypt, audit: required', async () => {
  const file = withPolicy({ 'max-tokens': 1000, 'retention-days': 30, history: 'off', disclaimer: 'on', encrypt: true, audit: true });
  const env = {};
  assert.throws(() => resolveValue('max-tokens', { flags: { 'max-tokens': '1001' }, env, store: store() }), /--max-tokens: max-tokens is at most 1000 .*give --max-tokens 1000 or less/);
  assert.equal(resolveValue('max-tokens', { flags: { 'max-tokens': '999' }, env, store: store() }), 999);
  assert.equal(resolveValue('max-tokens', { env, store: store() }), 1000, 'the default 8192 lowered, silently');
  assert.deepEqual(said, []);
  const s = store({ 'max-tokens': 5000, 'retention-days': 90, history: true, disclaimer: false, encrypt: false, audit: false });
  assert.equal(resolveValue('max-tokens', { env, store: s }), 1000);
  assert.equal(resolveValue('retention-days', { env, store: s }), 30);
  assert.equal(resolveValue('retention-days', { env, store: store() }), 30, 'unset: the ceiling');
  assert.equal(resolveValue('retention-days', { env, store: store({ 'retention-days': 7 }) }), 7);
  assert.equal(resolveValue('history', { env, store: s }), false);
  assert.equal(resolveValue('disclaimer', { env, store: s }), true);
  assert.equal(resolveValue('encrypt', { env, store: s }), true);
  assert.equal(resolveValue('audit', { env, store: s }), true);
  resolveValue('history', { env, store: s });
  const by = `by your organisation's policy (${file})`;
  assert.deepEqual(said, [
    `medchat: max-tokens is 1000, the most allowed ${by}`,
    `medchat: retention-days is 30, the most allowed ${by}`,
    `medchat: history is off ${by}`,
    `medchat: disclaimer is on ${by}`,
    `medchat: encrypt is on ${by}`,
    `medchat: audit is on ${by}`,
  ]);
  // A role asking for more is lowered too.
  const settings = resolveSettings({ env, store: store(), requireService: false });
  const planner = await makePlanner({ settings, role: { name: 'long', maxTokens: 6000 } as never });
  assert.equal(planner.settings.maxTokens, 1000);
  // What `config set` asks: the reason, or nothing.
  assert.match(policyForbids('encrypt', false)!, /encrypt is required by your organisation's policy .* and cannot be turned off/);
  assert.equal(policyForbids('encrypt', true), undefined);
  assert.match(policyForbids('history', true)!, /history is off .* and cannot be turned on/);
  assert.equal(policyForbids('retention-days', 30), undefined);
  assert.match(policyForbids('retention-days', 31)!, /at most 30/);
  assert.equal(policyForbids('thinking', false), undefined, 'a key the policy does not name is free');
  // encrypt/audit false: not required, the user's choice.
  withPolicy({ encrypt: false, audit: 'off' });
  assert.equal(resolveValue('encrypt', { env, store: store() }), false);
  assert.equal(resolveValue('audit', { env, store: store({ audit: true }) }), true);
});

test('the session flags under a history lock, and --api-key under api-key-flag: false', () => {
  withPolicy({ history: 'on', 'api-key-flag': false });
  assert.throws(() => assertSessionOptionsAllowed({ incognito: true }), /--incognito is not allowed: history is on by your organisation's policy/);
  assertSessionOptionsAllowed({ resume: true });
  const key = 'sk-flag-ABCDEFGHIJKLMNOP';
  assert.throws(() => assertApiKeyOptionAllowed(true), /--api-key is turned off by your organisation's policy/);
  assert.throws(
    () => resolveSettings({ flags: { 'api-key': key }, env: { MEDCHAT_BASE_URL: 'https://a.example' }, store: store() }),
    (e: Error) => /--api-key is turned off/.test(e.message) && !e.message.includes('ABCDEFGH'),
  );
  assertApiKeyOptionAllowed(false);
  withPolicy({ history: 'off' });
  assert.throws(() => assertSessionOptionsAllowed({ resume: true }), /saved conversations are off by your organisation's policy/);
  assertSessionOptionsAllowed({ incognito: true });
});

test('the chat screen: /retexture refused under retexture: false, /max-tokens above the ceiling refused', async () => {
  const file = withPolicy({ retexture: false, 'max-tokens': 500 });
  const notices: Array<[string, string | undefined]> = [];
  let ran = 0;
  let set: number | undefined;
  const host = {
    settings: { maxTokens: 400, contextWindow: 131072 },
    notice: (text: string, tone?: string) => notices.push([text, tone]),
    retexture: async () => {
      ran++;
    },
    setMaxTokens: (v: number) => {
      set = v;
    },
  } as unknown as ChatCommandHost;
  await retexture.run(host, 'scan.png make it a watercolour');
  assert.equal(ran, 0);
  assert.deepEqual(notices.pop(), [`image jobs (retexture) are turned off by your organisation's policy (${file})`, 'error']);
  await maxTokens.run(host, '600');
  assert.equal(set, undefined);
  assert.deepEqual(notices.pop(), [`max-tokens is at most 500 by your organisation's policy (${file})`, 'warn']);
  await maxTokens.run(host, '500');
  assert.equal(set, 500);
  usePolicyFile(path.join(home, 'none.json'));
  await retexture.run(host, 'scan.png x');
  assert.equal(ran, 1, 'without a policy /retexture runs');
});
