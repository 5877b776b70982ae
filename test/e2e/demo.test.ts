import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { PNG } from 'pngjs';
import { samplePng } from '../../src/demo/demo-retexture.js';
import { startDemoService } from '../../src/demo/demo-service.js';
import { runCli, tempHome } from '../support/cli.js';

function listAll(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { recursive: true }).map(String);
}

test('medchat demo -p answers in one-shot mode with no service, no key and no config, and leaves nothing behind', async () => {
  const home = tempHome();
  const tmp = path.join(home, 'tmp');
  fs.mkdirSync(tmp);
  const r = await runCli(['demo', '-p', 'show me vital signs', '--fast'], { home, env: { TMPDIR: tmp } });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /Demo reply/);
  assert.match(r.stdout, /not medical advice/);
  assert.match(r.stdout, /\| Heart rate \| 60–100 \|/);
  assert.match(r.stdout, /```bash/);
  assert.ok(r.stderr.length > 0, 'the demo reasons first, on stderr');
  assert.deepEqual(listAll(path.join(home, 'config')), [], 'no config written');
  assert.deepEqual(listAll(path.join(home, 'data')), [], 'no session written');
  assert.deepEqual(listAll(tmp), [], 'the temporary sandbox is removed');
});

test('the demo ignores the user config and key entirely', async () => {
  const home = tempHome();
  fs.mkdirSync(path.join(home, 'config'), { recursive: true });
  fs.writeFileSync(path.join(home, 'config', 'config.json'), '{"base-url": "http://127.0.0.1:1", "api-key": "sk-real-user-key-0000"}');
  const before = fs.readFileSync(path.join(home, 'config', 'config.json'), 'utf8');
  const r = await runCli(['demo', '--fast', '--json', 'long answer please'], { home, env: { MEDCHAT_API_KEY: 'sk-real-env-key-1111' } });
  assert.equal(r.code, 0, r.stderr);
  const obj = JSON.parse(r.stdout);
  assert.match(obj.content, /Demo reply/);
  assert.equal(obj.model, 'medchat-demo');
  assert.equal(fs.readFileSync(path.join(home, 'config', 'config.json'), 'utf8'), before);
});

test('piping into the demo works like piping into medchat', async () => {
  const r = await runCli(['demo', '--fast', '--reasoning', 'hide'], { stdin: 'what is a normal pulse?' });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /Demo reply/);
  assert.equal(r.stderr, '');
});

test('the demo service runs a retexture job to a real image: the sample with its colours turned', async () => {
  const service = await startDemoService({ paceMs: 0, firstContentDelayMs: 0 });
  try {
    const home = tempHome();
    const input = path.join(home, 'demo.png');
    const output = path.join(home, 'out.png');
    fs.writeFileSync(input, samplePng());
    const r = await runCli(['retexture', '--image', input, 'make it a watercolour', '--output', output, '--poll-interval', '0.05'], {
      home,
      env: { MEDCHAT_BASE_URL: service.url, MEDCHAT_API_KEY: 'demo' },
    });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.trim(), output);
    const src = PNG.sync.read(samplePng());
    const out = PNG.sync.read(fs.readFileSync(output));
    assert.equal(out.width, src.width);
    const centre = ((src.height / 2) * src.width + src.width / 2) * 4;
    // The red cross in the middle comes back green-dominant: channels turned red → green.
    assert.ok(src.data[centre]! > 200 && out.data[centre + 1]! > 200 && out.data[centre]! < 100);
  } finally {
    await service.close();
  }
});

test('with nothing to ask, the demo refuses as medchat itself does (same words, exit 2) instead of answering something', async () => {
  const demo = await runCli(['demo', '--fast']);
  const real = await runCli([], { baseUrl: 'http://127.0.0.1:9' });
  assert.equal(demo.code, 2, demo.stderr);
  assert.equal(demo.stdout, '');
  assert.equal(demo.stderr, real.stderr);
  assert.match(demo.stderr, /^medchat: nothing to ask: pass a question as an argument or on stdin/);
});
