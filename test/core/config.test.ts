import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { maskSecret, normaliseBaseUrl, parseConfigValue } from '../../src/core/config/config-keys.js';
import { ConfigStore } from '../../src/core/config/config-store.js';
import { resolveSettings } from '../../src/core/config/settings.js';
import { tempHome } from '../support/cli.js';

function storeIn(home = tempHome()) {
  const env = { MEDCHAT_CONFIG_DIR: path.join(home, 'config') };
  return { env, store: new ConfigStore(env) };
}

test('flags beat the environment, which beats the config file, which beats defaults', () => {
  const { store } = storeIn();
  store.set('model', 'from-file');
  store.set('base-url', 'https://file.example');
  store.set('api-key', 'sk-file-0000');
  const env = { MEDCHAT_MODEL: 'from-env', MEDCHAT_BASE_URL: 'https://env.example' };
  const s = resolveSettings({ flags: { model: 'from-flag' }, env, store });
  assert.equal(s.model, 'from-flag');
  assert.equal(s.baseUrl, 'https://env.example');
  assert.equal(s.apiKey, 'sk-file-0000');
  assert.equal(resolveSettings({ env, store }).model, 'from-env');
  assert.equal(resolveSettings({ env: {}, store }).model, 'from-file');
  store.unset('model');
  assert.equal(resolveSettings({ env: {}, store }).model, 'medical-large-latest');
});

test('defaults: max-tokens 8192, thinking on, temperature and top-p unset', () => {
  const { store } = storeIn();
  const s = resolveSettings({ env: {}, store, requireService: false });
  assert.equal(s.maxTokens, 8192);
  assert.equal(s.thinking, true);
  assert.equal(s.temperature, undefined);
  assert.equal(s.topP, undefined);
  assert.equal(s.idleTimeoutMs, 120_000);
});

test('the config file is written 0600 in a 0700 folder', () => {
  const { store } = storeIn();
  store.set('api-key', 'sk-abcdefgh1234');
  assert.equal(fs.statSync(store.path).mode & 0o777, 0o600);
  assert.equal(fs.statSync(path.dirname(store.path)).mode & 0o777, 0o700);
});

test('keys are masked to a prefix and the last four characters', () => {
  assert.equal(maskSecret('sk-proj-abcdefghijklmnopa1b2'), 'sk-…a1b2');
  assert.equal(maskSecret('abcdefghijklmnop9z8y'), '…9z8y');
  assert.ok(!maskSecret('short').includes('short'));
  assert.equal(maskSecret(undefined), '(not set)');
});

test('missing base URL or key names the command or variable to set', () => {
  const { store } = storeIn();
  assert.throws(() => resolveSettings({ env: {}, store }), (e: any) => e.exitCode === 2 && /medchat config set base-url/.test(e.message) && /MEDCHAT_BASE_URL/.test(e.message));
  assert.throws(
    () => resolveSettings({ env: { MEDCHAT_BASE_URL: 'https://x.example' }, store }),
    (e: any) => e.exitCode === 2 && /medchat config set api-key/.test(e.message) && /MEDCHAT_API_KEY/.test(e.message),
  );
});

test('a corrupt config file gives a clear message naming the file', () => {
  const home = tempHome();
  fs.mkdirSync(path.join(home, 'config'), { recursive: true });
  const file = path.join(home, 'config', 'config.json');
  fs.writeFileSync(file, '{ not json');
  assert.throws(() => new ConfigStore({ MEDCHAT_CONFIG_DIR: path.join(home, 'config') }), (e: any) => e.exitCode === 2 && e.message.includes(file));
});

test('base URLs: trailing slash and /v1 are dropped; a missing scheme is refused', () => {
  assert.equal(normaliseBaseUrl('https://api.example.com/'), 'https://api.example.com');
  assert.equal(normaliseBaseUrl('https://api.example.com/v1/'), 'https://api.example.com');
  assert.equal(normaliseBaseUrl('http://gw.example/med/v1'), 'http://gw.example/med');
  assert.throws(() => normaliseBaseUrl('api.example.com'), /needs a scheme/);
});

test('values are checked when set', () => {
  assert.equal(parseConfigValue('thinking', 'off'), false);
  assert.equal(parseConfigValue('max-tokens', '4096'), 4096);
  assert.throws(() => parseConfigValue('max-tokens', 'lots'), /whole number/);
  assert.throws(() => parseConfigValue('top-p', '3'), /at most 1/);
});

test('api-key-command supplies the key when none is set', () => {
  const { store } = storeIn();
  store.set('base-url', 'https://x.example');
  store.set('api-key-command', 'echo sk-from-command-9999');
  assert.equal(resolveSettings({ env: {}, store }).apiKey, 'sk-from-command-9999');
});

test('a wrong value in the file is refused when it is read, naming key, value and fix; config list still reads the file', () => {
  const { store } = storeIn();
  fs.writeFileSync(store.path, JSON.stringify({ 'idle-timeout': 'abc', 'max-tokens': -5, model: 'm', 'not-a-key': [1] }));
  assert.throws(
    () => store.get('idle-timeout'),
    (e: any) => e.exitCode === 2 && e.message === `config idle-timeout is "abc" in ${store.path}; it must be a whole number from 1 to 3600: medchat config set idle-timeout 120`,
  );
  assert.throws(() => resolveSettings({ env: {}, store, requireService: false }), /config max-tokens is -5 in /);
  assert.equal(store.get('model'), 'm');
  assert.deepEqual(store.all(), { 'idle-timeout': 'abc', 'max-tokens': -5, model: 'm' }, 'unknown keys are ignored');
});

test('a stored key with more lines is read as its first line', () => {
  const { store } = storeIn();
  fs.writeFileSync(store.path, JSON.stringify({ 'api-key': 'sk-file-0000-abcd\nlogin: alice' }), { mode: 0o600 });
  assert.equal(store.get('api-key'), 'sk-file-0000-abcd');
});

test('context-window has a maximum (1048576) in config set and in the config file (no flag or variable sets it)', () => {
  assert.equal(parseConfigValue('context-window', '1048576'), 1048576);
  for (const raw of ['1048577', '1e12', '9007199254740993']) {
    assert.throws(() => parseConfigValue('context-window', raw), (e: Error) => /^context-window must be at most 1048576 \(got /.test(e.message), raw);
  }
  const home = tempHome();
  const dir = path.join(home, 'config');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify({ 'context-window': 1e12 }));
  const store = new ConfigStore({ MEDCHAT_CONFIG_DIR: dir });
  assert.throws(() => resolveSettings({ env: {}, store, requireService: false }), /config context-window is 1000000000000 in .*config\.json; it must be .*1048576/);
});
