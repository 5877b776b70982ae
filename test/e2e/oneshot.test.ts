import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { startServiceDouble, type ServiceDouble } from '../support/misbehaving-service.js';
import { TEST_KEY, cliEnv, medchatCommand, runCli, tempHome, waitFor } from '../support/cli.js';

let double: ServiceDouble;
before(async () => {
  double = await startServiceDouble();
});
after(() => double.close());

const oneLineError = (stderr: string) => {
  assert.doesNotMatch(stderr, /\n\s+at /, 'no stack trace');
  assert.doesNotMatch(stderr, /\x1b\[/, 'no ANSI codes when stderr is not a terminal');
  assert.ok(!stderr.includes(TEST_KEY), 'the key is never printed');
};

test('a question: the answer on stdout exactly, reasoning on stderr, exit 0', async () => {
  double.chat.enqueue({ reasoning: ['Weighing ', 'ranges.'], content: ['60–100 bpm', ' for adults.\n'] });
  const r = await runCli(['what is a normal heart rate?'], { baseUrl: double.url });
  assert.equal(r.code, 0);
  assert.equal(r.stdout, '60–100 bpm for adults.\n');
  assert.match(r.stderr, /Weighing ranges\./);
  oneLineError(r.stderr);
  const body = double.chat.requests.at(-1)!.body;
  assert.deepEqual(body.messages, [{ role: 'user', content: 'what is a normal heart rate?' }]);
  assert.equal(body.stream, true);
  assert.equal(body.max_tokens, 8192);
  assert.equal(body.model, 'medical-large-latest');
});

test('--reasoning hide keeps stderr quiet', async () => {
  double.chat.enqueue({ reasoning: ['secret weighing'], content: ['answer'] });
  const r = await runCli(['-p', 'q', '--reasoning', 'hide'], { baseUrl: double.url });
  assert.equal(r.code, 0);
  assert.equal(r.stdout, 'answer');
  assert.equal(r.stderr, '');
});

test('piped stdin and the prompt travel together in one user message', async () => {
  double.chat.enqueue({ content: ['summary'] });
  const r = await runCli(['summarise this'], { baseUrl: double.url, stdin: 'Patient: 54 M, chest pain since 2h.\n' });
  assert.equal(r.code, 0);
  const messages = double.chat.requests.at(-1)!.body.messages;
  assert.equal(messages.length, 1);
  assert.equal(messages[0].role, 'user');
  assert.equal(messages[0].content, 'Patient: 54 M, chest pain since 2h.\n\nsummarise this');
});

test('piped stdin alone is the question', async () => {
  const r = await runCli([], { baseUrl: double.url, stdin: 'What is INR?' });
  assert.equal(r.code, 0);
  assert.equal(double.chat.requests.at(-1)!.body.messages[0].content, 'What is INR?');
});

test('--no-stdin ignores piped stdin', async () => {
  await runCli(['only this', '--no-stdin'], { baseUrl: double.url, stdin: 'ignored text' });
  assert.equal(double.chat.requests.at(-1)!.body.messages[0].content, 'only this');
});

test('flags reach the request body: --no-think, --max-tokens, --temperature, --top-p, -s, --model', async () => {
  await runCli(['q', '--no-think', '--max-tokens', '100', '--temperature', '0.2', '--top-p', '0.5', '-s', 'Be brief.', '--model', 'm2'], { baseUrl: double.url });
  const body = double.chat.requests.at(-1)!.body;
  assert.deepEqual(body, {
    model: 'm2',
    messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'q' }],
    max_tokens: 100,
    temperature: 0.2,
    top_p: 0.5,
    stream: true,
    enable_thinking: false,
  });
});

test('--no-stream sends stream: false and prints the whole answer', async () => {
  double.chat.enqueue({ reasoning: ['r'], content: ['whole answer'] });
  const r = await runCli(['q', '--no-stream'], { baseUrl: double.url });
  assert.equal(r.code, 0);
  assert.equal(r.stdout, 'whole answer');
  assert.equal(double.chat.requests.at(-1)!.body.stream, false);
});

test('--json prints one object at the end', async () => {
  double.chat.enqueue({ reasoning: ['because'], content: ['the ', 'answer'] });
  const r = await runCli(['q', '--json'], { baseUrl: double.url });
  assert.equal(r.code, 0);
  const obj = JSON.parse(r.stdout);
  assert.equal(obj.content, 'the answer');
  assert.equal(obj.reasoning, 'because');
  assert.equal(obj.finish_reason, 'stop');
  assert.match(obj.id, /^chatcmpl-/);
  assert.equal(obj.model, 'medical-large-latest');
  assert.ok(obj.usage.prompt_tokens > 0 && obj.usage.completion_tokens > 0);
  assert.equal(r.stderr, '');
});

test('--jsonl prints one event per line as it streams', async () => {
  // Texts that cannot be the start of the key: a piece that could be is held until the next chunk (e2e/secrets).
  double.chat.enqueue({ reasoning: ['rx'], content: ['cx', 'cz'] });
  const r = await runCli(['q', '--jsonl'], { baseUrl: double.url });
  assert.equal(r.code, 0);
  const events = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
  assert.deepEqual(
    events.filter((e) => e.type === 'reasoning' || e.type === 'content'),
    [
      { type: 'reasoning', text: 'rx' },
      { type: 'content', text: 'cx' },
      { type: 'content', text: 'cz' },
    ],
  );
  assert.ok(events.some((e) => e.type === 'usage'));
  assert.ok(events.some((e) => e.type === 'finish' && e.reason === 'stop'));
});

test('every byte reaches a slow pipe', async () => {
  const chunk = 'x'.repeat(999) + '\n';
  double.chat.enqueue({ reasoning: [], content: Array.from({ length: 400 }, () => chunk) });
  const out = await new Promise<string>((resolve) => {
    const child = spawn('bash', ['-c', `${medchatCommand().map((a) => `"${a}"`).join(' ')} -p q | (sleep 2; wc -c)`], { env: cliEnv({ baseUrl: double.url }) });
    child.stdin.end();
    let text = '';
    child.stdout.on('data', (c) => (text += c));
    child.on('close', () => resolve(text.trim()));
  });
  assert.equal(Number(out), 400 * 1000);
});

test('a closed pipe (| head -1) ends quietly', async () => {
  double.chat.enqueue({ reasoning: [], content: Array.from({ length: 2000 }, (_, i) => `line ${i}\n`) });
  const r = await new Promise<{ out: string; err: string }>((resolve) => {
    const child = spawn('bash', ['-c', `${medchatCommand().map((a) => `"${a}"`).join(' ')} -p q --reasoning hide | head -1; echo "rc=\${PIPESTATUS[0]}" >&2`], { env: cliEnv({ baseUrl: double.url }) });
    child.stdin.end();
    let out = '';
    let err = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (err += c));
    child.on('close', () => resolve({ out, err }));
  });
  assert.equal(r.out, 'line 0\n');
  assert.equal(r.err.trim(), 'rc=0');
});

test('exit 2: no service address, with the command to set it', async () => {
  const r = await runCli(['q']);
  assert.equal(r.code, 2);
  assert.equal(r.stderr, 'medchat: no service address: run `medchat config set base-url https://…` or set MEDCHAT_BASE_URL (or try `medchat demo`: no account needed)\n');
});

test('exit 2: an empty prompt', async () => {
  const r = await runCli(['  '], { baseUrl: double.url });
  assert.equal(r.code, 2);
  assert.match(r.stderr, /^medchat: the prompt is empty/);
  oneLineError(r.stderr);
});

test('exit 2: unknown flags get one line and a pointer to --help', async () => {
  const r = await runCli(['--frobnicate'], { baseUrl: double.url });
  assert.equal(r.code, 2);
  assert.equal(r.stderr, "medchat: unknown option '--frobnicate' (see medchat --help)\n");
});

test('exit 2: usage errors of a subcommand are one line too, pointing at its own --help (not a raw "error:" line, not exit 1)', async () => {
  const unknown = await runCli(['retexture', '--frobnicate'], { baseUrl: double.url });
  assert.equal(unknown.code, 2);
  assert.equal(unknown.stderr, "medchat: unknown option '--frobnicate' (see medchat retexture --help)\n");
  const missing = await runCli(['config', 'set'], { baseUrl: double.url });
  assert.equal(missing.code, 2);
  assert.equal(missing.stderr, "medchat: missing required argument 'key' (see medchat config set --help)\n");
  const help = await runCli(['config'], { baseUrl: double.url });
  assert.match(help.stderr, /^Usage: medchat config /, 'help is printed as it is');
});

test('exit 3: the key is refused', async () => {
  double.chat.enqueue({ status: 401, body: JSON.stringify({ error: { message: 'Invalid API key', type: 'invalid_request_error', code: 'invalid_api_key' } }) });
  const r = await runCli(['q'], { baseUrl: double.url });
  assert.equal(r.code, 3);
  assert.equal(r.stdout, '');
  assert.match(r.stderr, /^medchat: the service refused the API key \(401\): Invalid API key; this key came from MEDCHAT_API_KEY: set it to a valid one\n$/);
  oneLineError(r.stderr);
});

test('a refused key: the advice names where the key came from (flag, config file, api-key-command), not always `config set`', async () => {
  const home = tempHome();
  fs.mkdirSync(path.join(home, 'config'), { recursive: true, mode: 0o700 });
  const cases: Array<{ source: string; args: string[]; config: Record<string, string>; advice: RegExp }> = [
    { source: '--api-key', args: ['q', '--api-key', 'sk-9f3a1c77e2b4'], config: {}, advice: /; this key came from --api-key: pass a valid one\n$/ },
    { source: 'api-key-command', args: ['q'], config: { 'api-key-command': 'echo sk-4b8d20e6aa91' }, advice: /; this key came from api-key-command: check it with: medchat config get api-key-command\n$/ },
    { source: 'the config file', args: ['q'], config: { 'api-key': 'sk-c1e5f09d3b72' }, advice: /; this key came from the config file \(.*config\.json\): set a valid one with: medchat config set api-key\n$/ },
  ];
  for (const c of cases) {
    fs.writeFileSync(path.join(home, 'config', 'config.json'), JSON.stringify(c.config), { mode: 0o600 });
    double.chat.enqueue({ status: 401, body: JSON.stringify({ error: { message: 'Invalid API key' } }) });
    const r = await runCli(c.args, { baseUrl: double.url, home, env: { MEDCHAT_API_KEY: undefined } });
    assert.equal(r.code, 3, `${c.source}: ${r.stderr}`);
    assert.match(r.stderr, /the service refused the API key \(401\): Invalid API key; this key came from/, c.source);
    assert.match(r.stderr, c.advice, c.source);
  }
});

test('exit 1: a server error, after bounded retries', async () => {
  double.chat.enqueue({ status: 503 }, { status: 503 }, { status: 503 });
  const r = await runCli(['q'], { baseUrl: double.url });
  assert.equal(r.code, 1);
  assert.match(r.stderr, /medchat: the service failed \(503\)/);
  oneLineError(r.stderr.split('\n').filter((l) => !/retrying/.test(l)).join('\n'));
});

test('exit 4: an answer cut off keeps what arrived on stdout', async () => {
  double.chat.enqueue({ reasoning: ['r'], content: ['first half, '], finishReason: null, usage: false, done: false });
  const r = await runCli(['q'], { baseUrl: double.url });
  assert.equal(r.code, 4);
  assert.equal(r.stdout, 'first half, ');
  assert.match(r.stderr, /incomplete/);
  oneLineError(r.stderr);
});

test('exit 130: Ctrl+C closes the request and keeps what was printed', async () => {
  double.chat.enqueue({ reasoning: ['r'], content: Array.from({ length: 500 }, (_, i) => `w${i} `), paceMs: 10 });
  const before = double.chat.requests.length;
  let stdout = '';
  const r = await runCli(['q'], {
    baseUrl: double.url,
    onSpawn: (child) => {
      child.stdout!.on('data', (c) => {
        stdout += c;
        if (stdout.length > 20 && !child.killed) child.kill('SIGINT');
      });
    },
  });
  assert.equal(r.code, 130);
  assert.ok(r.stdout.startsWith('w0 w1 '));
  const req = double.chat.requests[before]!;
  await req.closed;
  assert.equal(req.finished, false, 'the double saw the connection close mid-answer');
  assert.match(r.stderr, /interrupted/);
});

test('--api-key warns that other users can see it, and never echoes it', async () => {
  const r = await runCli(['q', '--api-key', 'sk-flag-key-zz99'], { env: { MEDCHAT_BASE_URL: double.url } });
  assert.equal(r.code, 0);
  assert.match(r.stderr, /--api-key is visible to other users/);
  assert.ok(!r.stderr.includes('sk-flag-key-zz99'));
  assert.equal(double.chat.requests.at(-1)!.headers.authorization, 'Bearer sk-flag-key-zz99');
});

test('text from the service is written exactly as received when stdout is not a terminal', async () => {
  const hostile = 'plain \x1b]52;c;aGk=\x07 \x1b[2J end';
  double.chat.enqueue({ reasoning: [], content: [hostile] });
  const r = await runCli(['q'], { baseUrl: double.url });
  assert.equal(r.stdout, hostile);
});

test('--version and --help answer without a service', async () => {
  const v = await runCli(['--version']);
  assert.equal(v.code, 0);
  assert.match(v.stdout, /^\d+\.\d+\.\d+\n$/);
  const h = await runCli(['--help']);
  assert.equal(h.code, 0);
  assert.match(h.stdout, /Usage: medchat/);
  assert.match(h.stdout, /Exit codes/);
});

test('config: set api-key from stdin, list masks it, the file is private', async () => {
  const { tempHome } = await import('../support/cli.js');
  const home = tempHome();
  const set = await runCli(['config', 'set', 'api-key'], { home, stdin: 'sk-live-abcdef123456wxyz\n' });
  assert.equal(set.code, 0);
  assert.ok(!set.stderr.includes('abcdef123456'));
  const list = await runCli(['config', 'list'], { home });
  assert.match(list.stdout, /api-key\s+sk-…wxyz/);
  assert.ok(!list.stdout.includes('abcdef'));
  const p = await runCli(['config', 'path'], { home });
  const fs = await import('node:fs');
  assert.equal(fs.statSync(p.stdout.trim()).mode & 0o777, 0o600);
  const bad = await runCli(['config', 'set', 'max-tokens', 'many'], { home });
  assert.equal(bad.code, 2);
  assert.equal(bad.stderr, 'medchat: max-tokens must be a whole number (got "many")\n');
  const unknown = await runCli(['config', 'get', 'colour'], { home });
  assert.equal(unknown.code, 2);
});

test('a corrupt config file: a clear message naming the file, no stack trace', async () => {
  const { tempHome } = await import('../support/cli.js');
  const fs = await import('node:fs');
  const path = await import('node:path');
  const home = tempHome();
  fs.mkdirSync(path.join(home, 'config'), { recursive: true });
  fs.writeFileSync(path.join(home, 'config', 'config.json'), '{"base-url": ');
  const r = await runCli(['q'], { home, env: { MEDCHAT_API_KEY: 'sk-x-1234', MEDCHAT_BASE_URL: double.url } });
  assert.equal(r.code, 2);
  assert.match(r.stderr, /^medchat: the config file .*config\.json is not valid JSON/);
  oneLineError(r.stderr);
  void waitFor;
});
