import assert from 'node:assert/strict';
import { afterEach, test } from 'node:test';
import { setLanguage } from '../../src/core/i18n/language.js';
import { CONFIG_KEYS, parseConfigValue } from '../../src/core/config/config-keys.js';
import { describeCounts } from '../../src/core/privacy/kinds.js';
import { describeCompaction } from '../../src/core/context/compaction.js';
import { historyTouched } from '../../src/core/text/format.js';
import { MedchatError } from '../../src/core/errors.js';

/** core-a's messages in Chinese, read in the language of the moment (never frozen when a module loads). */
afterEach(() => setLanguage('en'));

test('config list and config set --help read each key\'s help in the current language; the key names stay English', () => {
  assert.equal(CONFIG_KEYS.model.help, 'Model name');
  setLanguage('zh');
  assert.equal(CONFIG_KEYS.model.help, '模型名称');
  assert.match(CONFIG_KEYS.compress.help, /summarise.*trim/);
  assert.ok(Object.keys(CONFIG_KEYS).includes('max-tokens'));
  setLanguage('en');
  assert.equal(CONFIG_KEYS['max-tokens'].help, 'Most tokens an answer may use');
});

test('a bad value is refused in Chinese with the key and the value unchanged', () => {
  setLanguage('zh');
  assert.throws(() => parseConfigValue('idle-timeout', '0'), (e: MedchatError) => e.exitCode === 2 && e.message === 'idle-timeout 必须是不小于 1 的值（收到的是 "0"）');
  setLanguage('en');
  assert.throws(() => parseConfigValue('idle-timeout', '0'), { message: 'idle-timeout must be at least 1 (got "0")' });
});

test('the privacy counts a clinician reads are Chinese, with Chinese list punctuation', () => {
  setLanguage('zh');
  assert.equal(describeCounts({ NAME: 2, DATE: 1, MRN: 1 }), '2 个姓名、1 个日期、1 个病历号/账号');
  setLanguage('en');
  assert.equal(describeCounts({ NAME: 2, DATE: 1, MRN: 1 }), '2 names, 1 date, 1 record/account number');
});

test('a compaction note and a history conversion read in Chinese', () => {
  const c = { at: 0, method: 'trim' as const, messages: 4, beforeTokens: 61_200, afterTokens: 0, throughTurn: 2, quotedFacts: ['penicillin allergy'] };
  setLanguage('zh');
  assert.equal(describeCompaction(c), '已删去 4 条较早的消息（61.2k token），以容纳在上下文窗口内；陈述 penicillin allergy 的内容仍按原文发送');
  assert.equal(historyTouched({ sessions: 3, prompts: true }), '3 个已保存的对话和输入历史');
  setLanguage('en');
  assert.equal(describeCompaction(c), 'Dropped 4 earlier messages (61.2k tokens) to fit the context window; the lines stating penicillin allergy are still sent word for word');
});
