// The fault matrix: the built binary against the service double (and a closed port, an
// unresolvable host, a self-signed TLS server) for every failure the network, the service or
// the user's input can produce. Each row checks what a user notices: the exit code, one line
// on stderr with no stack trace, stdout holding exactly what arrived, a saved session that is
// still valid JSON and agrees with stdout, and the key nowhere but the config.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startServiceDouble, type MisbehavingScript, type ServiceDouble } from '../support/misbehaving-service.js';
import { filesUnder, runCli, tempHome, TEST_KEY } from '../support/cli.js';
import { makeTestCerts, opensslAvailable, startTlsFront } from '../support/tls.js';
import { startServiceDoubleThread } from '../support/double-thread.js';
import { TmuxPane, tmuxSkip } from '../support/tmux.js';

interface Env {
  double: ServiceDouble;
  home: string;
}

interface Case {
  name: string;
  /** The question as an argument (default QUESTION); null: none. */
  prompt?: string | null;
  /** More arguments (reasoning is always hidden, so stderr holds only the outcome). */
  args?: string[];
  script?: MisbehavingScript[];
  /** Another base URL instead of the double's (closed port, bad host, TLS front). */
  baseUrl?: (e: Env) => Promise<string> | string;
  env?: (e: Env) => Record<string, string | undefined>;
  stdin?: string | Buffer;
  prepare?: (e: Env) => void;
  code: number;
  /** The last line on stderr (the outcome); undefined: stderr must be empty. */
  message?: RegExp;
  /** Lines allowed before it on stderr (retry notices, warnings). */
  allow?: RegExp;
  /** stdout exactly (default ''). */
  stdout?: string | Buffer | ((out: Buffer) => void);
  /** How many requests reached the double. */
  requests?: number;
  /** The saved turn's status, or 'none' when nothing may be saved. */
  session?: 'complete' | 'incomplete' | 'failed' | 'none';
  check?: (e: Env, r: Awaited<ReturnType<typeof runCli>>) => void | Promise<void>;
  skip?: string | false;
}

const QUESTION = 'What is the normal adult resting heart rate?';
const json401 = JSON.stringify({ error: { message: 'Invalid API key', type: 'invalid_request_error', code: 'invalid_api_key' } });
const html502 = '<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>';
const frame = (delta: Record<string, string>, finish: string | null = null) =>
  `data: ${JSON.stringify({ id: 'chatcmpl-raw', object: 'chat.completion.chunk', created: 1, model: 'medical-large-latest', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
const finishFrame = frame({}, 'stop');
const HOSTILE = 'Rate: 60\x1b[2J\x1b[H–100 \x1b]52;c;cm0gLXJmIH4=\x07bpm\x1b]0;pwned\x07 \x1b]8;;http://evil.example\x07link\x1b]8;;\x07\r\n\x9b31m\x00done';
const TEN_MB = 'x'.repeat(10 * 1024 * 1024);

async function closedPort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

const tls = opensslAvailable();
const fronts: Array<{ close: () => Promise<void> }> = [];
after(async () => {
  for (const f of fronts) await f.close();
});

const cases: Case[] = [
  // ---- the network ----
  {
    name: 'connection refused',
    baseUrl: async () => `http://127.0.0.1:${await closedPort()}`,
    code: 1,
    message: /^medchat: cannot connect to 127\.0\.0\.1:\d+ \(connection refused\); check the address with: medchat config get base-url$/,
    session: 'failed',
  },
  {
    name: 'DNS failure',
    baseUrl: () => 'http://medchat-test.invalid',
    code: 1,
    message: /^medchat: cannot find the host medchat-test\.invalid \(DNS lookup failed\); check the address and your network$/,
    session: 'failed',
  },
  {
    name: 'TLS failure: a self-signed server',
    skip: !tls && 'openssl is not installed (apt-get install openssl)',
    baseUrl: async (e) => {
      const front = await startTlsFront(e.double.server.port, makeTestCerts().selfSigned);
      fronts.push(front);
      return front.url;
    },
    code: 1,
    message: /^medchat: the TLS certificate of 127\.0\.0\.1:\d+ is not trusted \(DEPTH_ZERO_SELF_SIGNED_CERT\); for a private CA set NODE_EXTRA_CA_CERTS=\/path\/to\/ca\.pem$/,
    requests: 0,
    session: 'failed',
  },
  {
    name: 'timeout before headers',
    args: ['--idle-timeout', '1'],
    script: [{ headerDelayMs: 4000 }],
    code: 1,
    message: /^medchat: no response from the service within 1s; try again, or raise --idle-timeout$/,
    requests: 1,
    session: 'failed',
  },
  {
    name: 'stall after some text (--idle-timeout)',
    args: ['--idle-timeout', '1'],
    script: [{ reasoning: [], content: ['Sixty to ', 'one hundred', ' beats'], stallAfter: 2 }],
    code: 4,
    stdout: 'Sixty to one hundred',
    message: /^medchat: no data from the service for 1s; the answer is incomplete \(raise --idle-timeout to wait longer\)$/,
    session: 'incomplete',
  },
  {
    name: 'reset mid-answer',
    script: [{ reasoning: [], content: ['Sixty to ', 'one hundred', ' beats'], dropAfter: 2 }],
    code: 4,
    stdout: 'Sixty to one hundred',
    message: /^medchat: the connection to 127\.0\.0\.1:\d+ was lost mid-answer; the answer is incomplete$/,
    requests: 1,
    session: 'incomplete',
  },
  {
    name: 'reset after the headers, before any text',
    script: [{ reasoning: [], content: ['never sent'], dropAfter: 0 }],
    code: 1,
    message: /^medchat: the connection to 127\.0\.0\.1:\d+ was lost before an answer arrived; try again$/,
    requests: 1,
    session: 'failed',
  },
  {
    name: 'clean close with no [DONE]',
    script: [{ reasoning: [], content: ['Sixty to ', 'one hundred'], finishReason: null, usage: false, done: false }],
    code: 4,
    stdout: 'Sixty to one hundred',
    message: /^medchat: the service closed the connection before the answer was finished; the answer is incomplete$/,
    session: 'incomplete',
  },
  {
    name: 'a malformed line',
    script: [{ reasoning: [], content: ['Sixty to ', 'one hundred'], malformedAfter: 2 }],
    code: 1,
    stdout: 'Sixty to one hundred',
    message: /^medchat: the service sent a malformed line in the answer stream; the answer is incomplete$/,
    session: 'failed',
  },
  {
    name: 'an {"error": …} object mid-stream',
    script: [{ reasoning: [], content: ['Sixty to ', 'one hundred'], errorObjectAfter: 2 }],
    code: 1,
    stdout: 'Sixty to one hundred',
    message: /^medchat: the service reported an error mid-answer: The model overloaded mid-answer; the answer is incomplete$/,
    session: 'failed',
  },
  {
    name: 'an event: error frame',
    script: [{ reasoning: [], content: ['Sixty to ', 'one hundred'], errorEventAfter: 2 }],
    code: 1,
    stdout: 'Sixty to one hundred',
    message: /^medchat: the service reported an error mid-answer: Upstream failed mid-answer; the answer is incomplete$/,
    session: 'failed',
  },
  {
    name: 'an {"error": …} object before any text',
    script: [{ raw: { parts: [`data: ${JSON.stringify({ error: { message: 'model is loading', type: 'server_error' } })}\n\n`] } }],
    code: 1,
    message: /^medchat: the service reported an error: model is loading$/,
    session: 'failed',
  },

  // ---- HTTP statuses ----
  ...[
    { status: 400, body: JSON.stringify({ error: { message: 'temperature must be <= 2', type: 'invalid_request_error' } }), code: 1, message: /^medchat: the service rejected the request \(400\): temperature must be <= 2$/ },
    { status: 401, body: json401, code: 3, message: /^medchat: the service refused the API key \(401\): Invalid API key; this key came from MEDCHAT_API_KEY: set it to a valid one$/ },
    { status: 401, body: 'Unauthorized', code: 3, message: /^medchat: the service refused the API key \(401\): Unauthorized; this key came from MEDCHAT_API_KEY: set it to a valid one$/, headers: { 'content-type': 'text/plain' }, label: ' (plain text)' },
    { status: 403, body: '', code: 3, message: /^medchat: the service refused the API key \(403\); this key came from MEDCHAT_API_KEY: set it to a valid one$/ },
    { status: 404, code: 1, message: /^medchat: the service has no chat endpoint at http:\/\/127\.0\.0\.1:\d+\/v1 \(404\): error 404; check the address with: medchat config get base-url$/ },
    { status: 413, body: JSON.stringify({ error: { message: 'Request Entity Too Large' } }), code: 1, message: /^medchat: the request is too large for the service \(413\): Request Entity Too Large; send less text$/ },
  ].map(
    (s): Case => ({
      name: `HTTP ${s.status}${s.label ?? ''}`,
      script: [{ status: s.status, body: s.body, headers: s.headers }],
      code: s.code,
      message: s.message,
      requests: 1,
      session: 'failed',
    }),
  ),
  ...[
    { status: 408, message: /^medchat: the service timed out \(408\): error 408; try again$/ },
    { status: 429, message: /^medchat: rate limited by the service \(429\): error 429; wait a moment and try again$/, label: ' without retry-after' },
    { status: 500, message: /^medchat: the service failed \(500\): error 500; try again later$/ },
    { status: 502, body: html502, headers: { 'content-type': 'text/html' }, message: /^medchat: the service failed \(502\): 502 Bad Gateway; try again later$/, label: ' with an HTML page' },
    { status: 503, message: /^medchat: the service failed \(503\): error 503; try again later$/ },
  ].map(
    (s): Case => ({
      name: `HTTP ${s.status}${s.label ?? ''}: retried once (MEDCHAT_RETRIES=1), then one line`,
      script: [{ status: s.status, body: s.body, headers: s.headers }, { status: s.status, body: s.body, headers: s.headers }],
      code: 1,
      message: s.message,
      allow: /^medchat: HTTP \d{3}, retrying in \d+(?:\.\d\d?)?s…$/,
      requests: 2,
      session: 'failed',
    }),
  ),
  {
    name: 'HTTP 429 with retry-after: 1 is waited for, then answered',
    script: [{ status: 429, headers: { 'retry-after': '1' } }, { reasoning: [], content: ['60–100 bpm'] }],
    code: 0,
    stdout: '60–100 bpm',
    allow: /^medchat: HTTP 429, retrying in 1s…$/,
    requests: 2,
    session: 'complete',
  },
  {
    name: 'HTTP 429 with a huge retry-after is not obeyed blindly',
    script: [{ status: 429, headers: { 'retry-after': '86400' } }],
    code: 1,
    message: /^medchat: rate limited by the service \(429\): error 429; the service asks to wait 24h, try again later$/,
    requests: 1,
    session: 'failed',
  },
  {
    name: 'HTTP 503 with retry-after as a date a day away is not obeyed blindly',
    script: [{ status: 503, headers: { 'retry-after': new Date(Date.now() + 86_400_000).toUTCString() } }],
    code: 1,
    message: /^medchat: the service failed \(503\): error 503; the service asks to wait [\d.hms]+, try again later$/,
    requests: 1,
    session: 'failed',
  },

  // ---- bodies ----
  {
    name: 'a 200 whose body is not JSON (streamed)',
    script: [{ raw: { headers: { 'content-type': 'text/plain' }, parts: ['Service temporarily unavailable, please retry'] } }],
    code: 1,
    message: /^medchat: the service replied with something that is not an answer stream$/,
    session: 'failed',
  },
  {
    name: 'a 200 whose body is not JSON (--no-stream)',
    args: ['--no-stream'],
    script: [{ raw: { headers: { 'content-type': 'text/html' }, parts: ['<html><body>Login required</body></html>'] } }],
    code: 1,
    message: /^medchat: the service replied with something that is not a chat completion$/,
    session: 'failed',
  },
  {
    name: 'truncated JSON in the stream',
    script: [{ raw: { parts: [frame({ content: 'Sixty to ' }), 'data: {"id":"chatcmpl-raw","choices":[{"delta":{"content":"one hun'] } }],
    code: 4,
    stdout: 'Sixty to ',
    message: /^medchat: the service (sent a malformed line in the answer stream|closed the connection before the answer was finished); the answer is incomplete$/,
    session: 'incomplete',
  },
  {
    name: 'truncated JSON (--no-stream)',
    args: ['--no-stream'],
    script: [{ raw: { headers: { 'content-type': 'application/json' }, parts: ['{"id":"chatcmpl-1","choices":[{"message":{"role":"assistant","content":"Sixty'] } }],
    code: 1,
    message: /^medchat: the service sent a malformed response; try again$/,
    session: 'failed',
  },
  {
    name: 'a 200 with an empty body (streamed)',
    script: [{ raw: { parts: [] } }],
    code: 1,
    message: /^medchat: the service closed the connection without answering; try again$/,
    session: 'failed',
  },
  {
    name: 'a 200 with an empty body (--no-stream)',
    args: ['--no-stream'],
    script: [{ raw: { headers: { 'content-type': 'application/json' }, parts: [] } }],
    code: 1,
    message: /^medchat: the service sent an empty response; try again$/,
    session: 'failed',
  },
  {
    // More than a model writes (2 MB for a 128k window): the chunk that passes it is kept whole, then the answer ends there.
    name: 'a huge chunk: 10 MB in one line arrives whole, and ends the answer (it passed 2 MB), exit 4',
    script: [{ reasoning: [], content: ['<', TEN_MB, '>'] }],
    code: 4,
    stdout: (out) => {
      assert.equal(out.length, TEN_MB.length + 1);
      assert.ok(out.subarray(0, 1).toString() === '<' && out.subarray(-1).toString() === TEN_MB.slice(-1));
    },
    message: /^medchat: the answer passed 2\.0 MB, more than a model with a 128k-token context window can write; stopped reading, the answer is incomplete$/,
    session: 'incomplete',
  },
  // ---- answers the service ends early (exit 8), or ends but leaves open ----
  {
    name: 'finish_reason length: the text is kept, the cut is said, exit 8',
    args: ['--max-tokens', '512'],
    script: [{ reasoning: [], content: ['Allergies: penicillin (anaph'], finishReason: 'length' }],
    code: 8,
    stdout: 'Allergies: penicillin (anaph',
    message: /^medchat: the answer was cut off at --max-tokens 512 \(finish_reason length\); raise --max-tokens or ask for less$/,
    session: 'incomplete',
  },
  {
    name: 'finish_reason length with --no-stream: exit 8 too',
    args: ['--no-stream'],
    script: [{ reasoning: [], content: ['Allergies: penicillin (anaph'], finishReason: 'length' }],
    code: 8,
    stdout: 'Allergies: penicillin (anaph',
    message: /^medchat: the answer was cut off at --max-tokens \d+ \(finish_reason length\)/,
    session: 'incomplete',
  },
  {
    name: 'finish_reason content_filter: exit 8',
    script: [{ reasoning: [], content: ['Partial'], finishReason: 'content_filter' }],
    code: 8,
    stdout: 'Partial',
    message: /^medchat: the service stopped the answer with its content filter \(finish_reason content_filter\); rephrase the question$/,
    session: 'incomplete',
  },
  {
    name: 'reasoning and no answer text: exit 8',
    script: [{ reasoning: ['Thinking it over'], content: [] }],
    code: 8,
    message: /^medchat: the service ended with reasoning but no answer text \(finish_reason stop\); ask again, or raise --max-tokens$/,
    session: 'incomplete',
  },
  {
    name: 'whole answer, usage and [DONE], then the response left open: exit 0 at once',
    args: ['--idle-timeout', '30'],
    script: [{ raw: { parts: [frame({ content: '60–100 bpm' }), finishFrame, `data: ${JSON.stringify({ id: 'chatcmpl-raw', choices: [], usage: { prompt_tokens: 3, completion_tokens: 4 } })}\n\n`, 'data: [DONE]\n\n'], end: 'stall' } }],
    code: 0,
    stdout: '60–100 bpm',
    session: 'complete',
  },
  {
    name: 'a JSON completion answering a stream request is shown',
    script: [{ raw: { headers: { 'content-type': 'application/json' }, parts: [JSON.stringify({ id: 'x', choices: [{ index: 0, message: { role: 'assistant', content: '60–100 bpm' }, finish_reason: 'stop' }] })] } }],
    code: 0,
    stdout: '60–100 bpm',
    session: 'complete',
  },
  {
    name: 'server-sent events answering --no-stream are shown',
    args: ['--no-stream'],
    script: [{ raw: { parts: [frame({ content: '60–100 ' }), frame({ content: 'bpm' }, 'stop'), 'data: [DONE]\n\n'] } }],
    code: 0,
    stdout: '60–100 bpm',
    session: 'complete',
  },
  {
    name: 'invalid UTF-8 becomes U+FFFD; a character split across packets arrives whole',
    script: [
      {
        raw: {
          gapMs: 20,
          parts: [
            Buffer.concat([Buffer.from('data: {"choices":[{"index":0,"delta":{"content":"bad '), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from(' ok ')]),
            Buffer.from('心脏', 'utf8').subarray(0, 2),
            Buffer.concat([Buffer.from('心脏', 'utf8').subarray(2), Buffer.from('"},"finish_reason":null}]}\n\n')]),
            finishFrame,
            'data: [DONE]\n\n',
          ],
        },
      },
    ],
    code: 0,
    stdout: 'bad \ufffd\ufffd\ufffd ok 心脏',
    session: 'complete',
  },
  {
    name: 'text full of escape sequences is written exactly as received on a pipe',
    script: [{ reasoning: [], content: [HOSTILE.slice(0, 20), HOSTILE.slice(20)] }],
    code: 0,
    stdout: HOSTILE,
    session: 'complete',
  },
  {
    name: 'escape sequences in an error message never reach the terminal',
    script: [{ status: 400, body: JSON.stringify({ error: { message: 'bad\x1b]52;c;cm0gLXJm\x07 request\x1b[2J\x9b' } }) }],
    code: 1,
    message: /^medchat: the service rejected the request \(400\): bad\]52;c;cm0gLXJm request\[2J$/,
    session: 'failed',
  },

  // ---- the user's input ----
  { name: 'an empty prompt', prompt: '  \n ', code: 2, message: /^medchat: the prompt is empty; pass a question/, requests: 0, session: 'none' },
  {
    name: 'binary data on stdin',
    prompt: null,
    stdin: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0xff, 0xd8]),
    code: 2,
    message: /^medchat: stdin: looks binary \(a NUL byte at byte 8 of 14\); medchat reads text only \(convert it to text first\)$/,
    requests: 0,
    session: 'none',
  },
  {
    name: 'stdin that is not UTF-8 (Latin-1)',
    prompt: 'summarise',
    stdin: Buffer.from('Patient: Müller, 54 J.', 'latin1'),
    code: 2,
    message: /^medchat: stdin: is not UTF-8 text; medchat reads text only \(convert it first/,
    requests: 0,
    session: 'none',
  },
  {
    // Over 2 MB, stdin is refused while it is read (test/e2e/output-paths.test.ts); under it, by the token count.
    name: 'a 1 MB stdin is refused before sending, with the numbers',
    prompt: 'summarise this',
    stdin: Buffer.alloc(1024 * 1024, 'Blood pressure 120/80 mmHg, pulse 72.\n'),
    code: 2,
    message: /^medchat: this message is too long for the model: about [\d.]+k tokens, but the 128k window leaves 123k for the prompt after 8.2k for the answer; shorten it or lower --max-tokens$/,
    requests: 0,
    session: 'failed', // the question is kept (saved), never sent
  },
  { name: 'an unknown flag', args: ['--frobnicate'], code: 2, message: /^medchat: unknown option '--frobnicate' \(see medchat --help\)$/, requests: 0, session: 'none' },
  {
    name: 'a corrupt config file',
    prepare: (e) => {
      fs.mkdirSync(path.join(e.home, 'config'), { recursive: true });
      fs.writeFileSync(path.join(e.home, 'config', 'config.json'), '{"base-url": "http://x", "api-key": ');
    },
    code: 2,
    message: /^medchat: the config file .*config\.json is not valid JSON/,
    requests: 0,
    session: 'none',
  },
  {
    name: 'an unwritable data directory: the answer still arrives, with one warning',
    env: (e) => {
      fs.writeFileSync(path.join(e.home, 'not-a-dir'), '');
      return { MEDCHAT_DATA_DIR: path.join(e.home, 'not-a-dir', 'data') };
    },
    script: [{ reasoning: [], content: ['60–100 bpm'] }],
    code: 0,
    stdout: '60–100 bpm',
    allow: /^medchat: warning: .*this conversation is not being saved$/,
    session: 'none',
    check: (_e, r) => assert.match(r.stderr, /warning: .*not being saved/),
  },
  {
    name: 'a base URL without a scheme',
    env: (e) => ({ MEDCHAT_BASE_URL: e.double.url.replace('http://', '') }),
    code: 2,
    message: /^medchat: MEDCHAT_BASE_URL: base URL "127\.0\.0\.1:\d+" needs a scheme, e\.g\. https:\/\/127\.0\.0\.1:\d+$/,
    requests: 0,
    session: 'none',
  },
  {
    name: 'a base URL with a trailing /v1 works',
    env: (e) => ({ MEDCHAT_BASE_URL: `${e.double.url}/v1/` }),
    script: [{ reasoning: [], content: ['60–100 bpm'] }],
    code: 0,
    stdout: '60–100 bpm',
    requests: 1,
    session: 'complete',
    check: (e) => assert.equal(e.double.chat.requests[0]!.path, '/v1/chat/completions'),
  },
];

describe('one-shot fault matrix', { concurrency: 4 }, () => {
  for (const c of cases) {
    test(c.name, { skip: c.skip || false }, async () => {
      const double = await startServiceDouble();
      try {
        const home = tempHome();
        const e: Env = { double, home };
        c.prepare?.(e);
        if (c.script) double.chat.enqueue(...c.script);
        const baseUrl = c.baseUrl ? await c.baseUrl(e) : double.url;
        const prompt = c.prompt === null ? [] : [c.prompt ?? QUESTION];
        const r = await runCli([...prompt, '--reasoning', 'hide', ...(c.args ?? [])], {
          baseUrl,
          home,
          stdin: c.stdin,
          env: c.env?.(e),
          timeoutMs: 30_000,
        });

        // The exit code, and the outcome as one line (after any retry notices or warnings).
        assert.equal(r.code, c.code, `exit code; stderr: ${r.stderr}`);
        assert.doesNotMatch(r.stderr, /\n\s+at |Error:|TypeError|node:internal/, 'no stack trace or raw error');
        assert.doesNotMatch(r.stderr, /[\x1b\x07\x9b]/, 'no escape sequences on stderr');
        const lines = r.stderr.split('\n').filter(Boolean);
        if (c.message) {
          assert.ok(lines.length >= 1, 'an error line');
          assert.match(lines.at(-1)!, c.message);
          for (const l of lines.slice(0, -1)) assert.match(l, c.allow ?? /^$/, `unexpected stderr line: ${l}`);
        } else {
          for (const l of lines) assert.match(l, c.allow ?? /^$/, `unexpected stderr line: ${l}`);
        }

        // stdout holds exactly what arrived.
        if (typeof c.stdout === 'function') c.stdout(r.stdoutBytes);
        else assert.ok(r.stdoutBytes.equals(Buffer.from(c.stdout ?? '')), `stdout: ${JSON.stringify(r.stdout.slice(0, 300))}`);

        if (c.requests !== undefined) assert.equal(double.chat.requests.length, c.requests, 'requests that reached the service');

        // The saved session: valid JSON, no temp files left, and it agrees with stdout.
        const sessionsDir = path.join(home, 'data', 'sessions');
        const files = fs.existsSync(sessionsDir) ? fs.readdirSync(sessionsDir) : [];
        assert.deepEqual(files.filter((n) => !n.endsWith('.json')), [], 'no temp files left behind');
        if (c.session === 'none') assert.deepEqual(files, []);
        else if (c.session) {
          assert.equal(files.length, 1, 'one session file');
          const saved = JSON.parse(fs.readFileSync(path.join(sessionsDir, files[0]!), 'utf8'));
          const turn = saved.turns.at(-1);
          if (c.prompt === undefined) assert.equal(turn.user, QUESTION);
          assert.equal(turn.status, c.session);
          if (typeof c.stdout === 'string') assert.equal(turn.answer, c.stdout, 'the session holds what was printed');
        }

        // The key: nowhere on screen, nowhere on disk except the config file.
        assert.ok(!r.stdout.includes(TEST_KEY) && !r.stderr.includes(TEST_KEY), 'key in output');
        for (const f of filesUnder(home)) {
          if (f === path.join(home, 'config', 'config.json')) continue;
          assert.ok(!fs.readFileSync(f).includes(TEST_KEY), `key written to ${f}`);
        }
        await c.check?.(e, r);
      } finally {
        await double.close();
      }
    });
  }
});

void before;

// ---- the same faults on a terminal: one-shot with stdout on a pty, and the chat screen (tmux) ----

/** Text that would take over a terminal if obeyed: clear, home, clipboard write, title, hyperlink, CSI. */
const TAKEOVER = 'Heart rate\x1b[2J\x1b[H 60\x1b]52;c;cm0gLXJmIH4=\x07 to\x1b]0;PWNED-TITLE\x07 100\x1b]8;;http://evil.example\x07 bpm\x1b]8;;\x07\x9b2J end';

describe('on a terminal', { concurrency: 3 }, () => {
  test('one-shot on a terminal: escape sequences from the service are shown, not obeyed', { skip: tmuxSkip }, async () => {
    const double = await startServiceDouble();
    const pane = new TmuxPane(['what is a normal heart rate?', '--reasoning', 'hide'], { MEDCHAT_BASE_URL: double.url, MEDCHAT_API_KEY: TEST_KEY });
    try {
      pane.tmux('set-option', '-g', 'set-clipboard', 'on');
      double.chat.enqueue({ reasoning: [], content: [TAKEOVER] });
      const end = await pane.exited();
      assert.equal(end.code, 0);
      const screen = pane.screen();
      assert.match(screen, /Heart rate␛\[2J␛\[H 60␛\]52;c;cm0gLXJmIH4=␇ to␛\]0;PWNED-TITLE␇ 100␛\]8;;http:\/\/evil\.example␇ bpm␛\]8;;␇� ?2J end/, screen);
      assert.notEqual(pane.tmux('display-message', '-p', '-t', pane.name, '#{pane_title}').trim(), 'PWNED-TITLE', 'the title was not changed');
      assert.equal(pane.tmux('list-buffers').trim(), '', 'nothing was written to the clipboard');
    } finally {
      pane.kill();
      await double.close();
    }
  });

  /**
   * Wait for text on the screen without ever yielding this thread, as a run of synchronous tmux
   * calls on a loaded machine does (one took 0.9 s): nothing else on this thread runs meanwhile.
   * Enter is pressed again while the line is still in the box (see TmuxPane.send).
   */
  function sendAndWaitBlocking(pane: TmuxPane, line: string, text: RegExp, ms = 10_000): void {
    const nap = new Int32Array(new SharedArrayBuffer(4));
    const end = Date.now() + ms;
    let pressed = 0;
    for (let screen = pane.screen(); !text.test(screen); screen = pane.screen()) {
      if (Date.now() > end) throw new Error(`timed out waiting for ${text} on screen\n--- screen ---\n${screen}`);
      if (pressed++ % 50 === 0 && screen.split('\n').some((l) => l.includes(`│ › ${line}`))) pane.press('Enter');
      Atomics.wait(nap, 0, 0, 20);
    }
  }

  // The double runs on a thread of its own (see double-thread.ts): this thread's synchronous tmux
  // calls must not delay its answers past medchat's 1 s idle timeout. `blocking`: this thread does
  // not yield at all from Enter until the outcome shows, so a double sharing it could not answer.
  const chatRows: Array<{ name: string; script: MisbehavingScript; args?: string[]; screen: RegExp; partial?: string; blocking?: boolean }> = [
    { name: 'reset mid-answer', script: { reasoning: [], content: ['Sixty to ', 'one hundred', ' beats'], dropAfter: 2 }, screen: /connection to 127\.0\.0\.1:\d+ was lost mid-answer; the answer is incomplete/, partial: 'Sixty to one hundred' },
    { name: 'stall after some text', args: ['--idle-timeout', '1'], script: { reasoning: [], content: ['Sixty to ', 'one hundred', ' beats'], stallAfter: 2 }, screen: /no data from the service for 1s/, partial: 'Sixty to one hundred' },
    { name: 'stall after some text, with the test\'s thread busy until the outcome shows', args: ['--idle-timeout', '1'], script: { reasoning: [], content: ['Sixty to ', 'one hundred', ' beats'], stallAfter: 2 }, screen: /no data from the service for 1s/, partial: 'Sixty to one hundred', blocking: true },
    { name: 'HTTP 401', script: { status: 401, body: json401 }, screen: /the service refused the API key \(401\): Invalid API key/ },
    { name: 'HTTP 502 with an HTML page', script: { status: 502, body: html502, headers: { 'content-type': 'text/html' } }, screen: /the service failed \(502\): 502 Bad Gateway/ },
    { name: 'an {"error": …} object mid-stream', script: { reasoning: [], content: ['Sixty to ', 'one hundred'], errorObjectAfter: 2 }, screen: /The model overloaded mid-answer/, partial: 'Sixty to one hundred' },
    { name: 'escape sequences in the answer', script: { reasoning: [], content: [TAKEOVER] }, screen: /Heart rate␛\[2J␛\[H 60␛\]52;c;cm0gLXJmIH4=␇ to␛\]0;PWNED-TITLE␇/ },
  ];
  for (const row of chatRows) {
    test(`chat screen: ${row.name} — one line on screen, the screen stays usable, Ctrl+D exits 0 with the terminal restored`, { skip: tmuxSkip }, async () => {
      const double = await startServiceDoubleThread();
      // A 502 is retried once (MEDCHAT_RETRIES=1): queue it twice.
      await double.chat.enqueue(row.script);
      if (row.script.status === 502) await double.chat.enqueue(row.script);
      const pane = new TmuxPane(row.args ?? [], { MEDCHAT_BASE_URL: double.url, MEDCHAT_API_KEY: TEST_KEY }, { width: 160 });
      try {
        pane.tmux('set-option', '-g', 'set-clipboard', 'on');
        await pane.ready();
        if (row.blocking) {
          const question = 'what is a normal heart rate?';
          pane.type(question);
          await pane.waitForText(`› ${question}`, 5000);
          sendAndWaitBlocking(pane, question, row.screen);
        } else {
          await pane.send('what is a normal heart rate?');
          await pane.waitForText(row.screen);
        }
        const screen = pane.screen();
        if (row.partial) assert.ok(screen.includes(row.partial), `the partial answer stays on screen\n${screen}`);
        assert.doesNotMatch(screen, /\n\s+at |TypeError|node:internal/, 'no stack trace');
        assert.ok(!screen.includes(TEST_KEY));
        assert.notEqual(pane.tmux('display-message', '-p', '-t', pane.name, '#{pane_title}').trim(), 'PWNED-TITLE');
        assert.equal(pane.tmux('list-buffers').trim(), '', 'nothing was written to the clipboard');
        // Still usable: the next question is answered.
        await double.chat.enqueue({ reasoning: [], content: ['Still here.'] });
        await pane.send('are you there?');
        await pane.waitForText('Still here.');
        pane.press('C-d');
        const end = await pane.exited();
        assert.equal(end.code, 0, pane.screen());
        assert.match(end.stty, /(^|\s)icanon(\s|$)/);
        assert.match(end.stty, /(^|\s)echo(\s|$)/);
        assert.ok(end.cursorVisible, 'the cursor is shown');
        // Prompt history and anything else the screen wrote: never the key.
        for (const f of filesUnder(pane.home)) assert.ok(!fs.readFileSync(f).includes(TEST_KEY), `key written to ${f}`);
      } finally {
        pane.kill();
        await double.close();
        fs.rmSync(pane.home, { recursive: true, force: true });
      }
    });
  }
});

// ---- retexture: the same promises for image jobs ----
describe('retexture fault matrix', { concurrency: 4 }, () => {
  const IMG = 'https://images.example/scan.png';
  const rows: Array<{ name: string; submit?: import('../../src/stand-in/index.js').SubmitScript; args?: string[]; baseUrl?: () => Promise<string>; code: number; message: RegExp }> = [
    { name: 'connection refused', baseUrl: async () => `http://127.0.0.1:${await closedPort()}`, code: 1, message: /^medchat: cannot connect to 127\.0\.0\.1:\d+ \(connection refused\)/ },
    { name: 'HTTP 401 with a plain-text body', submit: { raw: { status: 401, body: 'Unauthorized', contentType: 'text/plain' } }, code: 3, message: /^medchat: the service refused the API key \(401\): Unauthorized; this key came from MEDCHAT_API_KEY: set it to a valid one$/ },
    { name: 'HTTP 502 with an HTML page', submit: { raw: { status: 502, body: html502, contentType: 'text/html' } }, code: 1, message: /^medchat: the service failed \(502\): 502 Bad Gateway; try again later$/ },
    { name: 'prompt rejected (code 24) with a hostile banned word', submit: { code: 24, description: 'banned prompt', properties: { bannedWord: 'x\x1b]0;PWNED\x07y' } }, code: 5, message: /^medchat: the service rejected the job \(code 24\): banned prompt; rejected word: "x\]0;PWNEDy"; reword the prompt and submit again$/ },
    { name: 'task failed, with escape sequences in failReason', submit: { life: { end: 'FAILURE', failReason: 'upstream\x1b[2J exploded' } }, args: ['--wait', '--poll-interval', '0.05'], code: 6, message: /^medchat: task \d+ failed: upstream\[2J exploded$/ },
    { name: 'deadline passed', submit: { life: { end: 'never' } }, args: ['--wait', '--poll-interval', '0.05', '--timeout', '1'], code: 7, message: /^medchat: task (\d+) did not finish within 1s \(still IN_PROGRESS at \d+%\); check again later with: medchat task \1 --wait$/ },
  ];
  for (const row of rows) {
    test(row.name, async () => {
      const double = await startServiceDouble();
      try {
        if (row.submit) double.retexture.enqueue(row.submit);
        const home = tempHome();
        const r = await runCli(['retexture', '--image', IMG, 'make it a watercolour', ...(row.args ?? [])], {
          baseUrl: row.baseUrl ? await row.baseUrl() : double.url,
          home,
          timeoutMs: 30_000,
        });
        assert.equal(r.code, row.code, r.stderr);
        assert.doesNotMatch(r.stderr, /\n\s+at |TypeError|node:internal/, 'no stack trace');
        assert.doesNotMatch(r.stderr, /[\x1b\x07\x9b]/, 'no escape sequences from the service');
        const lines = r.stderr.split('\n').filter(Boolean);
        assert.match(lines.at(-1)!, row.message);
        assert.ok(!r.stdout.includes(TEST_KEY) && !r.stderr.includes(TEST_KEY));
        for (const f of filesUnder(home)) assert.ok(!fs.readFileSync(f).includes(TEST_KEY), `key written to ${f}`);
      } finally {
        await double.close();
      }
    });
  }
});
