// Chinese messages of the request, retexture, batch and network code (issue 23), run as the built
// binary: the words change with MEDCHAT_LANG, the commands, flags, values, exit codes and stdout do not.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startServiceDouble, type ServiceDouble } from '../../src/stand-in/index.js';
import { runCli } from '../support/cli.js';
import { tempDir } from '../support/temp.js';

const zh = { MEDCHAT_LANG: 'zh' };
// A Chinese locale, but English asked for: English, byte for byte as before.
const en = { LANG: 'zh_CN.UTF-8', MEDCHAT_LANG: 'en' };
const DEAD = 'http://127.0.0.1:9';

describe('core messages in Chinese', () => {
  let d: ServiceDouble;
  before(async () => (d = await startServiceDouble()));
  after(() => d.close());

  it('a refused connection: one Chinese line with the command inside unchanged, exit 1 as in English', async () => {
    const z = await runCli(['q'], { baseUrl: DEAD, env: { ...zh, MEDCHAT_RETRIES: '0' } });
    assert.equal(z.code, 1);
    assert.equal(z.stdout, '');
    assert.equal(z.stderr, 'medchat: 无法连接 127.0.0.1:9（连接被拒绝）；查看地址：medchat config get base-url\n');
    const e = await runCli(['q'], { baseUrl: DEAD, env: { ...en, MEDCHAT_RETRIES: '0' } });
    assert.equal(e.code, 1);
    assert.equal(e.stderr, 'medchat: cannot connect to 127.0.0.1:9 (connection refused); check the address with: medchat config get base-url\n');
  });

  it('--schema with an unknown type: Chinese, the type and the types stay as typed, exit 2', async () => {
    const z = await runCli(['--schema', 'dose float', 'q'], { baseUrl: DEAD, env: zh });
    assert.equal(z.code, 2);
    assert.equal(z.stderr, 'medchat: --schema：dose 的类型 "float" 未知；可用类型：string, number, integer, boolean\n');
    const e = await runCli(['--schema', 'dose float', 'q'], { baseUrl: DEAD, env: en });
    assert.equal(e.code, 2);
    assert.equal(e.stderr, 'medchat: --schema: unknown type "float" for dose; use one of string, number, integer, boolean\n');
  });

  it('retexture refuses a file that is not an image in Chinese, before anything is sent', async () => {
    const file = path.join(tempDir(), 'notes.png');
    fs.writeFileSync(file, 'just text');
    const z = await runCli(['retexture', '--image', file, 'x'], { baseUrl: d.url, env: zh });
    assert.equal(z.code, 2);
    assert.equal(z.stderr, `medchat: ${file} 不是 PNG、JPEG、WebP 或 GIF 图片；请先转换格式\n`);
    assert.equal(d.retexture.submits.length, 0);
  });

  it('task progress lines and a failed task read in Chinese; stdout (the image URL) is unchanged', async () => {
    d.retexture.addTask('z100', { steps: [{ status: 'SUBMITTED' }, { status: 'IN_PROGRESS', progress: '60%' }] });
    const r = await runCli(['task', 'z100', '--wait', '--poll-interval', '0.02'], { baseUrl: d.url, env: zh });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, `${d.url}/mj/image/z100.png\n`);
    assert.match(r.stderr, /^medchat: 任务 z100：排队中\nmedchat: 任务 z100：进行中 60%\n/);
    d.retexture.addTask('z101', { steps: [], end: 'FAILURE', failReason: 'upstream timeout' });
    const f = await runCli(['task', 'z101'], { baseUrl: d.url, env: zh });
    assert.equal(f.code, 6);
    assert.equal(f.stderr, 'medchat: 任务 z101 失败：upstream timeout\n');
  });

  it('a task id that is not one: Chinese, with `medchat retexture` unchanged, exit 2', async () => {
    const r = await runCli(['task', 'bad id!'], { baseUrl: d.url, env: zh });
    assert.equal(r.code, 2);
    assert.match(r.stderr, /^medchat: "bad id!" 不是任务 id（.*）；请使用 `medchat retexture` 打印的 id\n$/);
  });
});
