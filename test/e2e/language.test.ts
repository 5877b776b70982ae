// A Chinese interface (issue 23): medchat's own words follow the language (MEDCHAT_LANG, then
// `medchat config set language`, then LC_ALL/LC_MESSAGES/LANG); commands, flags, exit codes and
// JSON keys stay as they are, through the real binary.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startServiceDouble, type ServiceDouble } from '../support/misbehaving-service.js';
import { runCli, tempHome } from '../support/cli.js';

let double: ServiceDouble;
before(async () => {
  double = await startServiceDouble();
});
after(() => double.close());

const CJK = /[\u4e00-\u9fff]/;

test('MEDCHAT_LANG=zh: --help is Chinese, still lists the English flags and commands', async () => {
  const r = await runCli(['--help'], { env: { MEDCHAT_LANG: 'zh' } });
  assert.equal(r.code, 0);
  assert.match(r.stdout, /^用法：/);
  for (const heading of ['选项：', '命令：', '参数：', '示例：', '退出码：']) assert.ok(r.stdout.includes(heading), heading);
  assert.match(r.stdout, /--max-tokens <n> +回答最多可用的 token 数（默认 8192）/);
  for (const flag of ['--json', '--no-think', '--privacy <mode>', '--resume <id>', 'sessions', 'retexture [options] [prompt...]']) assert.ok(r.stdout.includes(flag), flag);
  assert.doesNotMatch(r.stdout, /Options:|Usage:|display help for command|show help/);
  // At 80 columns: no line is wider than the terminal (a CJK character is 2 cells).
  const cells = (s: string) => [...s].reduce((n, c) => n + (CJK.test(c) || /[\u3000-\u303f\uff00-\uffef]/.test(c) ? 2 : 1), 0);
  const wide = r.stdout.split('\n').filter((l) => CJK.test(l) && cells(l) > 80);
  assert.deepEqual(wide, []);
});

test('a usage error is one Chinese line, the command in it unchanged, exit 2', async () => {
  const unknown = await runCli(['--thnk'], { env: { MEDCHAT_LANG: 'zh' } });
  assert.equal(unknown.code, 2);
  assert.equal(unknown.stderr, "medchat: 未知的选项 '--thnk'（是否想用 --think？）（参见 medchat --help）\n");
  const both = await runCli(['--json', '--jsonl', 'q'], { env: { MEDCHAT_LANG: 'zh' } });
  assert.equal(both.code, 2);
  assert.equal(both.stderr, 'medchat: --json 和 --jsonl 只能选一个\n');
  const purge = await runCli(['sessions', 'purge'], { env: { MEDCHAT_LANG: 'zh' } });
  assert.equal(purge.code, 2);
  assert.equal(purge.stderr.split('\n').length, 2, purge.stderr);
  assert.ok(purge.stderr.includes('medchat sessions purge --older-than 30d'), purge.stderr);
  assert.match(purge.stderr, CJK);
});

test('LANG=zh_CN.UTF-8 alone gives Chinese; MEDCHAT_LANG=en beats it', async () => {
  const zh = await runCli(['--json', '--jsonl', 'q'], { env: { LANG: 'zh_CN.UTF-8' } });
  assert.equal(zh.code, 2);
  assert.equal(zh.stderr, 'medchat: --json 和 --jsonl 只能选一个\n');
  const en = await runCli(['--json', '--jsonl', 'q'], { env: { LANG: 'zh_CN.UTF-8', MEDCHAT_LANG: 'en' } });
  assert.equal(en.code, 2);
  assert.equal(en.stderr, 'medchat: choose one of --json and --jsonl\n');
  const help = await runCli(['--help'], { env: { LC_ALL: 'zh_CN.UTF-8', MEDCHAT_LANG: 'en' } });
  assert.match(help.stdout, /^Usage: medchat/);
});

test('medchat config set language zh gives Chinese; MEDCHAT_LANG=en beats the config', async () => {
  const home = tempHome();
  const set = await runCli(['config', 'set', 'language', 'zh'], { home });
  assert.equal(set.code, 0, set.stderr);
  const zh = await runCli(['sessions', 'rm'], { home });
  assert.equal(zh.code, 2);
  assert.equal(zh.stderr, 'medchat: 请指定要删除的会话（见 medchat sessions list），或使用 --all\n');
  const en = await runCli(['sessions', 'rm'], { home, env: { MEDCHAT_LANG: 'en' } });
  assert.equal(en.stderr, 'medchat: name the sessions to delete (see medchat sessions list), or use --all\n');
});

test('--json in Chinese: the same keys, the answer as the model wrote it', async () => {
  double.chat.enqueue({ reasoning: ['thinking'], content: ['60–100 bpm'] });
  const r = await runCli(['--json', 'normal heart rate?'], { baseUrl: double.url, env: { MEDCHAT_LANG: 'zh' } });
  assert.equal(r.code, 0, r.stderr);
  const obj = JSON.parse(r.stdout) as Record<string, unknown>;
  assert.deepEqual(Object.keys(obj), ['id', 'model', 'content', 'reasoning', 'usage', 'finish_reason', 'complete']);
  assert.equal(obj.content, '60–100 bpm');
});
