// The key: never printed whole (errors, --json, --jsonl, exports, debug output), never stored
// in a session or history file, only in the 0600 config file; --api-key warns; api-key-command
// fetches it from a password manager.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { startServiceDouble, type ServiceDouble } from '../../src/double/index.js';
import { TEST_KEY, runCli, tempHome } from '../support/cli.js';

let double: ServiceDouble;
before(async () => {
  double = await startServiceDouble();
});
after(() => double.close());

const MASKED = `sk-…${TEST_KEY.slice(-4)}`;

/** Every file under `dir`, recursively. */
function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => path.join(d.parentPath ?? (d as unknown as { path: string }).path, d.name));
}

function assertKeyNowhere(key: string, home: string, ...outputs: string[]): void {
  for (const o of outputs) assert.ok(!o.includes(key), `the key was printed:\n${o.slice(0, 500)}`);
  for (const f of filesUnder(home)) {
    if (f === path.join(home, 'config', 'config.json')) continue;
    assert.ok(!fs.readFileSync(f).includes(key), `the key was written to ${f}`);
  }
}

test('a service that echoes the key in its error: the message shows it masked, in text, --json, --jsonl and the session', async () => {
  const echo = JSON.stringify({ error: { message: `Incorrect API key provided: ${TEST_KEY}. You can find your key at …`, type: 'invalid_request_error' } });
  const home = tempHome();
  double.chat.enqueue({ status: 401, body: echo }, { status: 401, body: echo }, { status: 401, body: echo });
  const text = await runCli(['q'], { baseUrl: double.url, home });
  assert.equal(text.code, 3);
  assert.equal(text.stderr, `medchat: the service refused the API key (401): Incorrect API key provided: ${MASKED}. You can find your key at …; set a valid one with: medchat config set api-key\n`);
  const json = await runCli(['q', '--json'], { baseUrl: double.url, home });
  assert.equal(json.code, 3);
  assert.ok(JSON.parse(json.stdout).error.message.includes(MASKED));
  const jsonl = await runCli(['q', '--jsonl'], { baseUrl: double.url, home });
  assert.equal(jsonl.code, 3);
  assertKeyNowhere(TEST_KEY, home, text.stdout, text.stderr, json.stdout, json.stderr, jsonl.stdout, jsonl.stderr);
  const sessions = fs.readdirSync(path.join(home, 'data', 'sessions'));
  assert.equal(sessions.length, 3, 'the failed questions are saved, without the key');
});

test('an error object mid-stream that quotes the key is masked too', async () => {
  const home = tempHome();
  double.chat.enqueue({ raw: { parts: [`data: ${JSON.stringify({ error: { message: `quota exceeded for key ${TEST_KEY}` } })}\n\n`] } });
  const r = await runCli(['q'], { baseUrl: double.url, home });
  assert.equal(r.code, 1);
  assert.equal(r.stderr, `medchat: the service reported an error: quota exceeded for key ${MASKED}\n`);
  assertKeyNowhere(TEST_KEY, home, r.stdout, r.stderr);
});

test('debug switches of the SDK and of Node print nothing that holds the key', async () => {
  const home = tempHome();
  double.chat.enqueue({ reasoning: ['r'], content: ['answer'] }, { status: 500 }, { status: 500 });
  const env = { OPENAI_LOG: 'debug', DEBUG: '*', NODE_DEBUG: 'http,http2,net,tls,fetch,undici' };
  const ok = await runCli(['q', '--jsonl'], { baseUrl: double.url, home, env });
  assert.equal(ok.code, 0);
  const failed = await runCli(['q'], { baseUrl: double.url, home, env });
  assert.equal(failed.code, 1);
  assertKeyNowhere(TEST_KEY, home, ok.stdout, ok.stderr, failed.stdout, failed.stderr);
});

test('sessions and their exports hold no key; the config file holds it, private (0600); the session folder is 0700, its files 0600', async () => {
  const home = tempHome();
  const set = await runCli(['config', 'set', 'api-key'], { home, stdin: `${TEST_KEY}\n` });
  assert.equal(set.code, 0);
  assert.ok(!set.stdout.includes(TEST_KEY) && !set.stderr.includes(TEST_KEY));
  const q = await runCli(['What is INR?'], { home, env: { MEDCHAT_BASE_URL: double.url } });
  assert.equal(q.code, 0, q.stderr);
  assert.equal(double.chat.requests.at(-1)!.headers.authorization, `Bearer ${TEST_KEY}`);
  const outputs = [q.stdout, q.stderr];
  for (const format of ['json', 'md']) {
    const ex = await runCli(['sessions', 'export', 'latest', '--format', format], { home });
    assert.equal(ex.code, 0, ex.stderr);
    outputs.push(ex.stdout, ex.stderr);
  }
  for (const args of [['config', 'list'], ['config', 'get', 'api-key'], ['sessions', 'list'], ['sessions', 'show', 'latest']]) {
    const r = await runCli(args, { home });
    outputs.push(r.stdout, r.stderr);
  }
  assertKeyNowhere(TEST_KEY, home, ...outputs);
  const config = path.join(home, 'config', 'config.json');
  assert.ok(fs.readFileSync(config, 'utf8').includes(TEST_KEY), 'the key lives in the config file');
  assert.equal(fs.statSync(config).mode & 0o777, 0o600);
  const sessions = path.join(home, 'data', 'sessions');
  assert.equal(fs.statSync(sessions).mode & 0o777, 0o700);
  for (const f of fs.readdirSync(sessions)) assert.equal(fs.statSync(path.join(sessions, f)).mode & 0o777, 0o600, f);
});

test('--api-key warns that other users can see process arguments (chat and retexture), and never echoes the key', async () => {
  const key = 'sk-flag-0123456789-zz99';
  double.chat.enqueue({ status: 401, body: JSON.stringify({ error: { message: `bad key ${key}` } }) });
  const r = await runCli(['q', '--api-key', key], { env: { MEDCHAT_BASE_URL: double.url } });
  assert.equal(r.code, 3);
  const lines = r.stderr.trim().split('\n');
  assert.equal(lines[0], 'medchat: warning: --api-key is visible to other users in the process list; prefer MEDCHAT_API_KEY or `medchat config set api-key`');
  assert.match(lines[1]!, /bad key sk-…zz99/);
  assert.ok(!r.stderr.includes(key));
  const rt = await runCli(['retexture', '--api-key', key, '--image', 'https://example.invalid/a.png', 'watercolour'], { env: { MEDCHAT_BASE_URL: double.url } });
  assert.match(rt.stderr, /--api-key is visible to other users/);
  assert.ok(!rt.stderr.includes(key) && !rt.stdout.includes(key));
});

test('api-key-command: the key comes from a password manager, is used, and is never stored or printed', async () => {
  const home = tempHome();
  const cmdKey = 'sk-from-pass-5678-wxyz';
  const set = await runCli(['config', 'set', 'api-key-command', `printf 'sk-from-pass-%s\\n' 5678-wxyz`], { home });
  assert.equal(set.code, 0, set.stderr);
  const r = await runCli(['What is INR?'], { home, env: { MEDCHAT_BASE_URL: double.url } });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(double.chat.requests.at(-1)!.headers.authorization, `Bearer ${cmdKey}`);
  const all = filesUnder(home).map((f) => fs.readFileSync(f, 'utf8'));
  assert.ok(!all.some((t) => t.includes(cmdKey)), 'the key from the command is stored nowhere');
  assert.ok(!r.stdout.includes(cmdKey) && !r.stderr.includes(cmdKey));

  // MEDCHAT_API_KEY still wins over the command (flags, environment, config, then the command).
  await runCli(['q'], { home, env: { MEDCHAT_BASE_URL: double.url, MEDCHAT_API_KEY: TEST_KEY } });
  assert.equal(double.chat.requests.at(-1)!.headers.authorization, `Bearer ${TEST_KEY}`);
});

test('api-key-command that fails or prints nothing: one line, exit 2, nothing sent', async () => {
  const before = double.chat.requests.length;
  for (const [command, why] of [
    ['echo "pass: vault is locked" >&2; exit 1', 'failed'],
    ['true', 'printed nothing'],
  ] as const) {
    const home = tempHome();
    await runCli(['config', 'set', 'api-key-command', command], { home });
    const r = await runCli(['q'], { home, env: { MEDCHAT_BASE_URL: double.url } });
    assert.equal(r.code, 2);
    const lines = r.stderr.trim().split('\n');
    assert.equal(lines.at(-1), `medchat: api-key-command ${why}; check it with: medchat config get api-key-command`);
    if (why === 'failed') assert.equal(lines[0], 'pass: vault is locked', "the command's own message reaches the user");
  }
  assert.equal(double.chat.requests.length, before);
});
