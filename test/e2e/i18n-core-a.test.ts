import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runCli } from '../support/cli.js';

/** Through the real binary: core-a's errors in Chinese with MEDCHAT_LANG=zh, the commands inside them and the exit codes unchanged; English unchanged when MEDCHAT_LANG=en overrides a Chinese locale. */
const BOUND_MS = 30_000;

test('an unknown config key: Chinese line, the command in it unchanged, exit 2', async () => {
  const r = await runCli(['config', 'get', 'foo'], { env: { MEDCHAT_LANG: 'zh' }, timeoutMs: BOUND_MS });
  assert.equal(r.code, 2);
  assert.equal(r.stdout, '');
  assert.equal(r.stderr, 'medchat: 未知的配置项 "foo"；查看所有配置项：medchat config list\n');
});

test('no service address, in Chinese from a zh_CN locale; English when MEDCHAT_LANG=en', async () => {
  const zh = await runCli(['hello'], { env: { LANG: 'zh_CN.UTF-8' }, timeoutMs: BOUND_MS });
  assert.equal(zh.code, 2);
  assert.match(zh.stderr, /^medchat: 未设置服务地址：运行 `medchat config set base-url https:\/\/…` 或设置 MEDCHAT_BASE_URL/);
  const en = await runCli(['hello'], { env: { LANG: 'zh_CN.UTF-8', MEDCHAT_LANG: 'en' }, timeoutMs: BOUND_MS });
  assert.equal(en.code, 2);
  assert.match(en.stderr, /^medchat: no service address: run `medchat config set base-url https:\/\/…` or set MEDCHAT_BASE_URL/);
});

test('a session that does not exist, in Chinese, exit 2; the privacy counts in Chinese, exit 11', async () => {
  const s = await runCli(['sessions', 'show', '20261122-143005-a1b2'], { env: { MEDCHAT_LANG: 'zh' }, timeoutMs: BOUND_MS });
  assert.equal(s.code, 2);
  assert.match(s.stderr, /没有会话 "20261122-143005-a1b2"；查看已保存的会话：medchat sessions list/);
  const p = await runCli(['privacy', 'check'], { env: { MEDCHAT_LANG: 'zh' }, stdin: 'Patient: Margaret Ellison DOB: 14/07/1951 MRN: K4471902\n', timeoutMs: BOUND_MS });
  assert.equal(p.code, 11);
  assert.match(p.stderr, /1 个姓名、1 个日期、1 个病历号\/账号/);
  assert.match(p.stdout, /NAME {4}Margaret Ellison/);
});
