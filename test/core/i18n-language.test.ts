import assert from 'node:assert/strict';
import { test } from 'node:test';
import { chooseLanguage, languageOf } from '../../src/core/i18n/language.js';

const none = () => undefined;

test('MEDCHAT_LANG first, then the language config key, then LC_ALL, LC_MESSAGES, LANG, then the OS locale', () => {
  const env = { MEDCHAT_LANG: 'zh', LC_ALL: 'en_GB.UTF-8', LANG: 'en_US.UTF-8' };
  assert.deepEqual(chooseLanguage({ env, configured: 'en', osLocale: none }), { language: 'zh', source: 'MEDCHAT_LANG' });
  assert.deepEqual(chooseLanguage({ env: { LANG: 'zh_CN.UTF-8' }, configured: 'en', osLocale: none }), { language: 'en', source: 'config' });
  assert.deepEqual(chooseLanguage({ env: { LC_ALL: 'zh_CN.UTF-8', LC_MESSAGES: 'en_US', LANG: 'en_US' }, osLocale: none }), { language: 'zh', source: 'LC_ALL' });
  assert.deepEqual(chooseLanguage({ env: { LC_MESSAGES: 'zh_TW.UTF-8', LANG: 'en_US' }, osLocale: none }), { language: 'zh', source: 'LC_MESSAGES' });
  assert.deepEqual(chooseLanguage({ env: { LANG: 'zh_CN.GB18030' }, osLocale: none }), { language: 'zh', source: 'LANG' });
  assert.deepEqual(chooseLanguage({ env: {}, osLocale: () => 'zh-Hans-CN' }), { language: 'zh', source: 'os' });
  assert.deepEqual(chooseLanguage({ env: {}, osLocale: () => 'en-US' }), { language: 'en', source: 'os' });
  assert.deepEqual(chooseLanguage({ env: {}, osLocale: none }), { language: 'en', source: 'default' });
});

test('a C or POSIX locale means English, and stops the search like any set locale; an empty one does not', () => {
  assert.deepEqual(chooseLanguage({ env: { LC_ALL: 'C.UTF-8', LANG: 'zh_CN.UTF-8' }, osLocale: () => 'zh-CN' }), { language: 'en', source: 'LC_ALL' });
  assert.deepEqual(chooseLanguage({ env: { LC_ALL: '', LANG: 'POSIX' }, osLocale: () => 'zh-CN' }), { language: 'en', source: 'LANG' });
  assert.deepEqual(chooseLanguage({ env: { MEDCHAT_LANG: '', LC_ALL: '', LANG: 'zh_SG.UTF-8' }, osLocale: none }), { language: 'zh', source: 'LANG' });
});

test('locale names: every zh form is Chinese, everything else named is English', () => {
  for (const tag of ['zh', 'ZH', 'zh_CN', 'zh_CN.UTF-8', 'zh-Hans', 'zh_TW.Big5', 'zh_HK@stroke', 'chinese', '中文']) assert.equal(languageOf(tag), 'zh', tag);
  for (const tag of ['en', 'en_GB.UTF-8', 'de_DE', 'fr', 'zhx', 'ja_JP']) assert.equal(languageOf(tag), 'en', tag);
  for (const tag of ['', ' ', 'C', 'POSIX', 'C.UTF-8', undefined]) assert.equal(languageOf(tag), undefined, String(tag));
});
