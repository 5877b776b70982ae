// The key: never printed whole (errors, --json, --jsonl, exports, debug output), never stored
// in a session or history file, only in the 0600 config file; --api-key warns; api-key-command
// fetches it from a password manager.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { startServiceDouble, type ServiceDouble } from '../support/misbehaving-service.js';
import { filesUnder, runCli, tempHome, TEST_KEY } from '../support/cli.js';

let double: ServiceDouble;
before(async () => {
  double = await startServiceDouble();
});
after(() => double.close());

const MASKED = `sk-…${TEST_KEY.slice(-4)}`;

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
  assert.equal(text.stderr, `medchat: the service refused the API key (401): Incorrect API key provided: ${MASKED}. You can find your key at …; this key came from MEDCHAT_API_KEY: set it to a valid one\n`);
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

// ---- Key hygiene: masking echoes, config values checked on read, a config others can read.

/** A temp home removed after the test, also when it fails. */
function ownHome(t: { after: (fn: () => void) => void }): string {
  const home = tempHome();
  t.after(() => fs.rmSync(home, { recursive: true, force: true, maxRetries: 5 }));
  return home;
}

function writeConfig(home: string, values: Record<string, unknown>, mode = 0o600): string {
  const dir = path.join(home, 'config');
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = path.join(dir, 'config.json');
  fs.writeFileSync(file, JSON.stringify(values, null, 2));
  fs.chmodSync(file, mode);
  return file;
}

test('a multi-line paste (what `pass show` prints) stores only the first line, and requests carry only the key', async (t) => {
  const home = ownHome(t);
  const set = await runCli(['config', 'set', 'api-key'], { home, stdin: `${TEST_KEY}\nlogin: alice\nurl: https://portal.example\n` });
  assert.equal(set.code, 0, set.stderr);
  assert.match(set.stderr, /^api-key set to sk-…a1b2 in /);
  const stored = JSON.parse(fs.readFileSync(path.join(home, 'config', 'config.json'), 'utf8'));
  assert.equal(stored['api-key'], TEST_KEY);
  const q = await runCli(['What is INR?'], { home, env: { MEDCHAT_BASE_URL: double.url } });
  assert.equal(q.code, 0, q.stderr);
  assert.equal(double.chat.requests.at(-1)!.headers.authorization, `Bearer ${TEST_KEY}`);
});

test('a newline in MEDCHAT_API_KEY, --api-key or api-key-command output: the first line is the key', async (t) => {
  const home = ownHome(t);
  const env = await runCli(['q'], { home, env: { MEDCHAT_BASE_URL: double.url, MEDCHAT_API_KEY: `${TEST_KEY}\nlogin: alice\n` } });
  assert.equal(env.code, 0, env.stderr);
  assert.equal(double.chat.requests.at(-1)!.headers.authorization, `Bearer ${TEST_KEY}`);
  const flag = await runCli(['q', '--api-key', `${TEST_KEY}\nlogin: alice`], { home, env: { MEDCHAT_BASE_URL: double.url } });
  assert.equal(flag.code, 0, flag.stderr);
  assert.equal(double.chat.requests.at(-1)!.headers.authorization, `Bearer ${TEST_KEY}`);
  await runCli(['config', 'set', 'api-key-command', `printf '%s\\nlogin: alice\\n' ${TEST_KEY}`], { home });
  const cmd = await runCli(['q'], { home, env: { MEDCHAT_BASE_URL: double.url } });
  assert.equal(cmd.code, 0, cmd.stderr);
  assert.equal(double.chat.requests.at(-1)!.headers.authorization, `Bearer ${TEST_KEY}`);
});

test('a key that cannot be an HTTP header value is refused: one masked line, exit 2, nothing sent', async (t) => {
  const home = ownHome(t);
  const before = double.chat.requests.length;
  const submitsBefore = double.retexture.submits.length;
  const spaced = 'sk-test SECRETKEY-a1b2';
  const cases: Array<[string[], Record<string, string>, string]> = [
    [['q', '--api-key', spaced], {}, `medchat: the API key given with --api-key (sk-…a1b2) has a space in it, so it cannot be sent; pass the key alone (better: medchat config set api-key, which reads it from stdin)`],
    [['q'], { MEDCHAT_API_KEY: 'sk-test-SECRET\tKEY-a1b2' }, `medchat: the API key in MEDCHAT_API_KEY (sk-…a1b2) has a space in it, so it cannot be sent; set MEDCHAT_API_KEY to the key alone`],
    [['q'], { MEDCHAT_API_KEY: 'sk-test-SECRET\u0007KEY-a1b2' }, `medchat: the API key in MEDCHAT_API_KEY (sk-…a1b2) has a control character in it, so it cannot be sent; set MEDCHAT_API_KEY to the key alone`],
    [['q'], { MEDCHAT_API_KEY: 'sk-test-SECRÉTKEY-a1b2' }, `medchat: the API key in MEDCHAT_API_KEY (sk-…a1b2) has a character that is not plain ASCII in it, so it cannot be sent; set MEDCHAT_API_KEY to the key alone`],
    [['retexture', '--image', 'https://example.invalid/a.png', 'x'], { MEDCHAT_API_KEY: spaced }, `medchat: the API key in MEDCHAT_API_KEY (sk-…a1b2) has a space in it, so it cannot be sent; set MEDCHAT_API_KEY to the key alone`],
  ];
  for (const [args, env, line] of cases) {
    const r = await runCli(args, { home, env: { MEDCHAT_BASE_URL: double.url, ...env } });
    assert.equal(r.code, 2, r.stderr);
    assert.equal(r.stderr.trim().split('\n').at(-1), line);
    assert.ok(!r.stderr.includes('Headers') && !r.stderr.includes('SECRET'), r.stderr);
  }
  const set = await runCli(['config', 'set', 'api-key'], { home, stdin: `${spaced}\n` });
  assert.equal(set.code, 2);
  assert.equal(set.stderr, 'medchat: the API key given to config set (sk-…a1b2) has a space in it, so it cannot be sent; set the key alone with: pass show medchat | medchat config set api-key\n');
  assert.ok(!fs.existsSync(path.join(home, 'config', 'config.json')) || !fs.readFileSync(path.join(home, 'config', 'config.json'), 'utf8').includes('SECRET'));
  assert.equal(double.chat.requests.length, before, 'no request was sent');
  assert.equal(double.retexture.submits.length, submitsBefore);
});

test('retexture --json and task --json mask a key the service echoes in properties', async (t) => {
  const home = ownHome(t);
  const png = path.join(home, 'scan.png');
  fs.writeFileSync(png, Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a5ee1b8e0000000049454e44ae426082', 'hex'));
  double.retexture.enqueue({ properties: { apiKey: TEST_KEY, header: `Bearer ${TEST_KEY.toLowerCase()}`, [TEST_KEY]: true } });
  const rt = await runCli(['retexture', '--image', png, '--json', 'watercolour'], { baseUrl: double.url, home });
  assert.equal(rt.code, 0, rt.stderr);
  const response = JSON.parse(rt.stdout);
  assert.equal(response.properties.apiKey, MASKED);
  assert.equal(response.properties.header, `Bearer ${MASKED}`);
  const id = '1712345678901239999';
  const record = { id, status: 'IN_PROGRESS', progress: '50%', properties: { echo: `key=${encodeURIComponent(TEST_KEY)}`, note: TEST_KEY.slice(0, 12) } };
  double.retexture.addTask(id, { fetchResponse: { status: 200, body: JSON.stringify(record), contentType: 'application/json' } });
  const task = await runCli(['task', id, '--json'], { baseUrl: double.url, home });
  assert.equal(task.code, 0, task.stderr);
  assert.equal(JSON.parse(task.stdout).properties.note, MASKED);
  assertKeyNowhere(TEST_KEY, home, rt.stdout, rt.stderr, task.stdout, task.stderr);
  assert.ok(!task.stdout.toLowerCase().includes('secretke'), task.stdout);
});

test('a key echoed in the answer, split across chunks, is masked in stdout, --json and the session', async (t) => {
  const home = ownHome(t);
  const content = ['Your key ', TEST_KEY.slice(0, 6), TEST_KEY.slice(6, 15), TEST_KEY.slice(15), ' was used.'];
  double.chat.enqueue({ content, reasoning: ['I see ', TEST_KEY.toLowerCase().slice(0, 9), TEST_KEY.toLowerCase().slice(9)] }, { content });
  const text = await runCli(['q'], { baseUrl: double.url, home });
  assert.equal(text.code, 0, text.stderr);
  assert.equal(text.stdout, `Your key ${MASKED} was used.`);
  const json = await runCli(['q', '--json'], { baseUrl: double.url, home });
  assert.equal(JSON.parse(json.stdout).content, `Your key ${MASKED} was used.`);
  assertKeyNowhere(TEST_KEY, home, text.stdout, text.stderr, json.stdout, json.stderr);
  const files = filesUnder(path.join(home, 'data', 'sessions'));
  const answers = files.map((f) => JSON.parse(fs.readFileSync(f, 'utf8')).turns[0].answer);
  assert.deepEqual(answers, [`Your key ${MASKED} was used.`, `Your key ${MASKED} was used.`]);
});

test('config file values are checked when read: one line naming key, value and fix, exit 2, before any request', async (t) => {
  const before = double.chat.requests.length;
  for (const [values, expected] of [
    [{ 'idle-timeout': 'abc' }, (f: string) => `medchat: config idle-timeout is "abc" in ${f}; it must be a whole number from 1 to 3600: medchat config set idle-timeout 120`],
    [{ 'max-tokens': -5 }, (f: string) => `medchat: config max-tokens is -5 in ${f}; it must be a whole number from 1 to 131072: medchat config set max-tokens 8192`],
    [{ thinking: [true] }, (f: string) => `medchat: config thinking is [true] in ${f}; it must be on or off (true or false): medchat config set thinking on`],
    [{ 'top-p': 7 }, (f: string) => `medchat: config top-p is 7 in ${f}; it must be a number from 0 to 1: medchat config unset top-p`],
  ] as const) {
    const home = ownHome(t);
    const file = writeConfig(home, values);
    const r = await runCli(['q'], { baseUrl: double.url, home });
    assert.equal(r.code, 2, r.stderr);
    assert.equal(r.stderr, expected(file) + '\n');
    const list = await runCli(['config', 'list'], { home });
    assert.equal(list.code, 0, 'config list still shows the file, the wrong value marked');
    assert.match(list.stdout, /\(not valid: must be /);
  }
  assert.equal(double.chat.requests.length, before, 'nothing was sent');
  // Values `config set` would accept are fine, and unknown keys are ignored (as before).
  const home = ownHome(t);
  writeConfig(home, { 'idle-timeout': '30', 'max-tokens': 100, 'some-future-key': { x: 1 } });
  const ok = await runCli(['q'], { baseUrl: double.url, home });
  assert.equal(ok.code, 0, ok.stderr);
  assert.equal(double.chat.requests.at(-1)!.body.max_tokens, 100);
});

test('a config file holding the key that others can read: one warning with the fix, and the request still goes', async (t) => {
  const home = ownHome(t);
  const file = writeConfig(home, { 'base-url': double.url, 'api-key': TEST_KEY }, 0o644);
  const r = await runCli(['q'], { home });
  assert.equal(r.code, 0, r.stderr);
  const said = (text: string) => text.split('\n').filter((l) => l.startsWith('medchat:'));
  assert.deepEqual(said(r.stderr), [`medchat: warning: the config file ${file} holds the API key and every user on this machine can read it; make it private with: chmod 600 ${file}`]);
  fs.chmodSync(file, 0o640);
  const group = await runCli(['config', 'list'], { home });
  assert.match(group.stderr, /its group can read it; make it private with: chmod 600 /);
  assert.ok(!group.stdout.includes(TEST_KEY));
  const envKey = await runCli(['q'], { home, env: { MEDCHAT_API_KEY: TEST_KEY } });
  assert.equal(said(envKey.stderr).length, 1, 'the file still holds a key others can read when MEDCHAT_API_KEY is used instead');
  fs.chmodSync(file, 0o600);
  const quiet = await runCli(['q'], { home });
  assert.deepEqual(said(quiet.stderr), []);
  const noKey = ownHome(t);
  writeConfig(noKey, { 'base-url': double.url }, 0o644);
  const r2 = await runCli(['q'], { home: noKey, env: { MEDCHAT_API_KEY: TEST_KEY } });
  assert.equal(r2.code, 0, r2.stderr);
  assert.deepEqual(said(r2.stderr), [], 'no key in the file: no warning');
});
