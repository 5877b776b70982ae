// One question pipeline (src/core/ask/) for every front end: each case runs through one-shot (the
// built binary), the chat screen (Ink, in process) and batch (the built binary) where it applies,
// and expects the same result: one status rule, one schema repair, one privacy resolution, the
// context fit, the key masked, nothing the guard replaced sent, no schema that is the config file.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, afterEach, before, test } from 'node:test';
import { cleanup } from 'ink-testing-library';
import { ConfigStore } from '../../src/core/config/config-store.js';
import { registerSecret } from '../../src/core/errors.js';
import { resolvePrivacy } from '../../src/core/privacy/choice.js';
import { startServiceDouble, type ServiceDouble } from '../../src/stand-in/index.js';
import type { RecordedRequest } from '../../src/stand-in/server.js';
import { TEST_KEY, filesUnder, runCli, tempHome } from '../support/cli.js';
import { keyRunIn } from '../support/key-runs.js';
import { renderChat } from '../support/tui.js';

let double: ServiceDouble;
before(async () => {
  double = await startServiceDouble();
});
after(() => double.close());
afterEach(() => {
  cleanup();
  double.chat.defaultScript = {};
});

const MASKED = `sk-…${TEST_KEY.slice(-4)}`;
type Line = { id: string; content: string; reasoning?: string; error?: { message: string; exit_code: number }; privacy?: Record<string, unknown>; [k: string]: unknown };
const linesOf = (text: string) => text.trim().split('\n').map((l) => JSON.parse(l) as Line);
const sessionTurns = (home: string) =>
  filesUnder(path.join(home, 'data', 'sessions'))
    .filter((f) => f.endsWith('.json'))
    .flatMap((f) => JSON.parse(fs.readFileSync(f, 'utf8')).turns as Array<{ status: string; answer: string; reasoning: string }>);
/** A batch input file of these lines in a fresh home. */
function batchInput(home: string, lines: object[]): string {
  const file = path.join(home, 'in.jsonl');
  fs.writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  return file;
}
const bodiesSince = (from: number) => double.chat.requests.slice(from).map((r) => r.rawBody).join('\n');
/** The double answers with the last message it received. */
const echo = (req: RecordedRequest) => [`Received: ${(req.body.messages as Array<{ content: string }>).at(-1)!.content}`];

test('one status rule: an answer that ends with reasoning only is incomplete in one-shot, on the chat screen and in its saved turn; batch keeps the reasoning and exit code 8', async () => {
  const script = { reasoning: ['Thinking it over'], content: [] as string[] };
  const home = tempHome();
  double.chat.enqueue(script);
  const one = await runCli(['why?'], { baseUrl: double.url, home });
  assert.equal(one.code, 8, one.stderr);
  assert.deepEqual(sessionTurns(home).map((t) => t.status), ['incomplete']);

  double.chat.enqueue(script);
  const t = await renderChat(double.url);
  await t.send('why?');
  await t.idle();
  assert.equal(t.controller.conversation.turns[0]!.status, 'incomplete', 'the screen shows the status the session saved');
  assert.match(t.screen().replace(/\s+/g, ' '), /⚠ the service ended with reasoning but no answer text/);
  assert.doesNotMatch(t.screen(), /✗/);

  double.chat.defaultScript = script;
  const b = await runCli(['batch', batchInput(home, [{ id: 'a', prompt: 'why?' }])], { baseUrl: double.url, home });
  assert.equal(b.code, 10, b.stderr);
  const [line] = linesOf(b.stdout);
  assert.equal(line!.reasoning, 'Thinking it over');
  assert.equal(line!.error?.exit_code, 8);
});

test('one schema repair: the same invalid-then-valid answers give one-shot and batch the same requests and the same value', async () => {
  const answers = (req: RecordedRequest) => [(req.body.messages as unknown[]).length > 2 ? '{"name": "amoxicillin", "dose_mg": 500}' : '{"name": "amoxicillin", "dose_mg": "500 mg"}'];
  double.chat.defaultScript = { reasoning: [], content: answers };
  const home = tempHome();
  const from = double.chat.requests.length;
  const one = await runCli(['--schema', 'name, dose_mg number', '--json', 'the antibiotic?'], { baseUrl: double.url, home });
  assert.equal(one.code, 0, one.stderr);
  const oneShot = double.chat.requests.slice(from).map((r) => r.body.messages);
  const mid = double.chat.requests.length;
  const b = await runCli(['batch', batchInput(home, [{ id: 'a', prompt: 'the antibiotic?' }]), '--schema', 'name, dose_mg number'], { baseUrl: double.url, home });
  assert.equal(b.code, 0, b.stderr);
  const batch = double.chat.requests.slice(mid).map((r) => r.body.messages);
  assert.equal(oneShot.length, 2, 'one repair');
  assert.deepEqual(batch, oneShot, 'the same question and the same repair request');
  const o = JSON.parse(one.stdout);
  const [line] = linesOf(b.stdout);
  assert.deepEqual([line!.value, line!.attempts, line!.valid], [o.value, o.attempts, o.valid]);
  assert.deepEqual(o.value, { name: 'amoxicillin', dose_mg: 500 });
});

test('one privacy resolution: config `privacy redact` (no flag) redacts the same question the same way in one-shot, the chat screen and batch', async () => {
  const home = tempHome();
  assert.equal((await runCli(['config', 'set', 'privacy', 'redact'], { home })).code, 0);
  const question = 'Patient: Margaret Ellison, MRN K4471902. Fit for discharge?';
  const redacted = 'Patient: [NAME-1], MRN [MRN-1]. Fit for discharge?';
  double.chat.defaultScript = { reasoning: [], content: echo };

  const one = await runCli([question], { baseUrl: double.url, home });
  assert.equal(one.code, 0, one.stderr);
  assert.equal(double.chat.requests.at(-1)!.body.messages.at(-1).content, redacted);
  assert.equal(one.stdout, `Received: ${question}`);

  const choice = resolvePrivacy({}, new ConfigStore({ MEDCHAT_CONFIG_DIR: path.join(home, 'config') }), {});
  assert.deepEqual(choice, { mode: 'redact', shiftDates: false });
  const t = await renderChat(double.url, { privacy: choice });
  await t.send(question);
  await t.waitForText('⟦K4471902⟧');
  await t.idle();
  assert.equal(double.chat.requests.at(-1)!.body.messages.at(-1).content, redacted);

  const b = await runCli(['batch', batchInput(home, [{ id: 'a', prompt: question }])], { baseUrl: double.url, home });
  assert.equal(b.code, 0, b.stderr);
  assert.equal(double.chat.requests.at(-1)!.body.messages.at(-1).content, redacted);
  assert.equal(linesOf(b.stdout)[0]!.content, `Received: ${question}`);

  for (const args of [['--privacy', 'warn', '--shift-dates', 'q'], ['batch', batchInput(home, [{ id: 'a', prompt: 'q' }]), '--privacy', 'warn', '--shift-dates']]) {
    const r = await runCli(args, { baseUrl: double.url, home });
    assert.equal(r.code, 2);
    assert.equal(r.stderr, 'medchat: --shift-dates goes with --privacy redact (dates are moved instead of replaced); privacy is warn\n');
  }
});

test('the context fit: a question too long for the window is refused before sending, with the numbers, in one-shot, the chat screen and batch (the other lines answered)', async () => {
  const home = tempHome();
  assert.equal((await runCli(['config', 'set', 'context-window', '4096'], { home })).code, 0);
  const big = 'lab result 42 mmol/L\n'.repeat(1500);
  const from = double.chat.requests.length;
  const one = await runCli(['--max-tokens', '512', big], { baseUrl: double.url, home });
  assert.equal(one.code, 2, one.stderr);
  const refusal = one.stderr.trim().replace(/^medchat: /, '');
  assert.match(refusal, /^this message is too long for the model: about [\d.]+k tokens, but the 4k window leaves 3\.6k for the prompt after 512 for the answer; shorten it or lower --max-tokens$/);

  const t = await renderChat(double.url, { settings: { thinking: false, contextWindow: 4096, maxTokens: 512 } });
  t.press(`\x1b[200~${big}\x1b[201~`);
  await t.waitForText('[pasted 1500 lines]');
  t.press('\r');
  await t.idle();
  assert.match(t.screen().replace(/\s+/g, ' '), /✗ too long to send: about [\d.]+k tokens; the 4k window has room for 3\.6k after 512 for the answer/);
  assert.equal(double.chat.requests.length, from, 'nothing sent by one-shot or the chat screen');

  double.chat.defaultScript = { reasoning: [], content: ['ok'] };
  const b = await runCli(['batch', batchInput(home, [{ id: 'big', prompt: big }, { id: 'small', prompt: 'and this?' }]), '--max-tokens', '512', '-j', '1'], { baseUrl: double.url, home });
  assert.equal(b.code, 10, b.stderr);
  const byId = Object.fromEntries(linesOf(b.stdout).map((l) => [l.id, l]));
  assert.deepEqual(byId.big!.error, { message: refusal, exit_code: 2 }, 'the same refusal as one-shot, not the service\'s 400');
  assert.equal(byId.small!.content, 'ok');
  assert.equal(double.chat.requests.length, from + 1, 'only the line that fits was sent');
});

test('the key: a service that echoes it in the answer, the reasoning and a --schema value gets it masked the same way in one-shot, the chat screen and batch (-o and stdout)', async () => {
  const content = ['Your key ', TEST_KEY.slice(0, 6), TEST_KEY.slice(6, 15), TEST_KEY.slice(15), ' was used.'];
  const reasoning = ['I see ', TEST_KEY.toLowerCase().slice(0, 9), TEST_KEY.toLowerCase().slice(9)];
  double.chat.defaultScript = { content, reasoning };
  const home = tempHome();
  const one = await runCli(['q', '--json'], { baseUrl: double.url, home });
  assert.equal(one.code, 0, one.stderr);
  const o = JSON.parse(one.stdout);
  assert.equal(o.content, `Your key ${MASKED} was used.`);

  registerSecret(TEST_KEY); // in this process, as resolving the settings does
  const t = await renderChat(double.url, { settings: { apiKey: TEST_KEY } });
  await t.send('q');
  await t.idle();
  assert.equal(t.controller.conversation.turns[0]!.answer, o.content);
  assert.equal(keyRunIn(TEST_KEY, t.screen()), undefined);

  const input = batchInput(home, [{ id: 'a', prompt: 'q' }]);
  const out = path.join(home, 'answers.jsonl');
  const toFile = await runCli(['batch', input, '-o', out], { baseUrl: double.url, home });
  const toStdout = await runCli(['batch', input], { baseUrl: double.url, home });
  double.chat.defaultScript = { reasoning, content: [`{"name": "${TEST_KEY}"}`] };
  const schema = await runCli(['batch', input, '--schema', 'name'], { baseUrl: double.url, home });
  for (const r of [toFile, toStdout, schema]) assert.equal(r.code, 0, r.stderr);
  const file = fs.readFileSync(out, 'utf8');
  for (const text of [file, toFile.stdout, toFile.stderr, toStdout.stdout, toStdout.stderr, schema.stdout, schema.stderr]) assert.equal(keyRunIn(TEST_KEY, text), undefined, text);
  for (const line of [linesOf(file)[0]!, linesOf(toStdout.stdout)[0]!]) {
    assert.equal(line.content, o.content, 'the same mask as one-shot');
    assert.equal(line.reasoning, o.reasoning);
  }
  assert.deepEqual(linesOf(schema.stdout)[0]!.value, { name: MASKED });
  for (const f of filesUnder(home)) if (!f.endsWith('config.json')) assert.equal(keyRunIn(TEST_KEY, fs.readFileSync(f, 'utf8')), undefined, f);
});

const NOTE = 'Margaret Ellison, DOB 14/07/1951, MRN K4471902, lives at 12 Acacia Avenue, Leeds LS6 2AB.';
const VALUES = ['Margaret', 'Ellison', '14/07/1951', 'K4471902', 'Acacia Avenue'];
const noValueIn = (text: string) => {
  for (const v of VALUES) assert.ok(!text.includes(v), `${v} was sent:\n${text.slice(0, 800)}`);
};

test('redact sends nothing it replaced: a batch line\'s "system" and earlier assistant messages, and -s, are sealed; the answer gets the values back', async () => {
  double.chat.defaultScript = { reasoning: [], content: echo };
  const home = tempHome();
  const from = double.chat.requests.length;
  const b = await runCli(
    [
      'batch',
      batchInput(home, [
        {
          id: 'a',
          system: `Patient: ${NOTE}`,
          messages: [
            { role: 'user', content: 'Patient: Margaret Ellison. Any allergies on file?' },
            { role: 'assistant', content: 'Margaret Ellison (MRN K4471902) has no known allergies.' },
            { role: 'user', content: 'Patient: Margaret Ellison. Can she go home?' },
          ],
        },
      ]),
      '--privacy',
      'redact',
    ],
    { baseUrl: double.url, home },
  );
  assert.equal(b.code, 0, b.stderr);
  noValueIn(bodiesSince(from));
  const [line] = linesOf(b.stdout);
  assert.equal(line!.content, 'Received: Patient: Margaret Ellison. Can she go home?');
  assert.equal((line!.privacy as { mode: string }).mode, 'redact');

  const mid = double.chat.requests.length;
  const one = await runCli(['--privacy', 'redact', '-s', `The patient is ${NOTE}`, `Patient: ${NOTE} Can she go home?`], { baseUrl: double.url, home });
  assert.equal(one.code, 0, one.stderr);
  noValueIn(bodiesSince(mid));
  assert.equal(one.stdout, `Received: Patient: ${NOTE} Can she go home?`);
});

test('redact across turns: the first name alone of a name replaced earlier ("Margaret says…") is not sent, in one-shot -c, the chat screen and a batch line\'s messages', async () => {
  double.chat.defaultScript = { reasoning: [], content: echo };
  const first = 'Patient: Margaret Ellison, MRN K4471902. Admitted today.';
  const then = 'Margaret says she is tired. What next?';
  const home = tempHome();
  const from = double.chat.requests.length;
  assert.equal((await runCli(['--privacy', 'redact', first], { baseUrl: double.url, home })).code, 0);
  const one = await runCli(['-c', '--privacy', 'redact', then], { baseUrl: double.url, home });
  assert.equal(one.code, 0, one.stderr);
  assert.equal(one.stdout, `Received: ${then}`, 'the answer has the name back');
  const oneShotSent = double.chat.requests.at(-1)!.body.messages.at(-1).content;

  const t = await renderChat(double.url, { privacy: { mode: 'redact' } });
  await t.send(first);
  await t.waitForText('⟦K4471902⟧');
  await t.idle();
  await t.send(then);
  await t.waitForText('⟦Margaret⟧ says');
  await t.idle();
  const chatSent = double.chat.requests.at(-1)!.body.messages.at(-1).content;

  const b = await runCli(
    ['batch', batchInput(home, [{ id: 'a', messages: [{ role: 'user', content: first }, { role: 'assistant', content: 'Noted.' }, { role: 'user', content: then }] }]), '--privacy', 'redact'],
    { baseUrl: double.url, home },
  );
  assert.equal(b.code, 0, b.stderr);
  const batchSent = double.chat.requests.at(-1)!.body.messages.at(-1).content;
  assert.equal(linesOf(b.stdout)[0]!.content, `Received: ${then}`);

  noValueIn(bodiesSince(from));
  assert.match(oneShotSent, /^\[NAME-\d+\] says she is tired\. What next\?$/);
  assert.equal(chatSent, oneShotSent, 'the same placeholder on the chat screen');
  assert.equal(batchSent, oneShotSent, 'and in batch');
});

test('a schema that is the config file (or holds the key) is refused with one line before anything is sent, from --schema and from a role, in one-shot and batch; a file holding the key is sent masked', async () => {
  const home = tempHome();
  const config = path.join(home, 'config', 'config.json');
  assert.equal((await runCli(['config', 'set', 'api-key'], { home, stdin: `${TEST_KEY}\n` })).code, 0);
  fs.mkdirSync(path.join(home, 'config', 'roles'), { recursive: true });
  fs.writeFileSync(path.join(home, 'config', 'roles', 'leaky.md'), '---\ndescription: a shared role\nschema: ../config.json\n---\nExtract the fields.\n');
  const copy = path.join(home, 'copy.json');
  fs.copyFileSync(config, copy);
  const env = { MEDCHAT_BASE_URL: double.url };
  const input = batchInput(home, [{ id: 'a', prompt: 'q' }]);
  const from = double.chat.requests.length;
  for (const [args, why] of [
    [['--schema', config, 'q'], /^medchat: --schema \S+config\.json is medchat's config file, not a JSON Schema; a schema is sent to the service and saved with the conversation, and this file can hold your API key: name a schema file$/],
    [['batch', input, '--schema', config], /^medchat: --schema \S+config\.json is medchat's config file/],
    [['-r', 'leaky', 'q'], /^medchat: role leaky: schema \.\.\/config\.json is medchat's config file/],
    [['batch', input, '-r', 'leaky'], /^medchat: role leaky: schema \.\.\/config\.json is medchat's config file/],
    [['--schema', copy, 'q'], /^medchat: --schema \S+copy\.json holds your API key; a schema is sent to the service and saved with the conversation: name a schema file without it$/],
    [['batch', input, '--schema', copy], /^medchat: --schema \S+copy\.json holds your API key/],
  ] as const) {
    const r = await runCli([...args], { home, env });
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr.trim(), why);
    assert.equal(r.stderr.trim().split('\n').length, 1);
  }
  assert.equal(double.chat.requests.length, from, 'nothing was sent');

  double.chat.defaultScript = { reasoning: [], content: ['ok'] };
  const f = await runCli(['-f', copy, 'what is in this file?'], { home, env });
  assert.equal(f.code, 0, f.stderr);
  assert.equal(keyRunIn(TEST_KEY, bodiesSince(from)), undefined, 'the file went out with the key masked');
  assert.ok(bodiesSince(from).includes(MASKED));
  for (const file of filesUnder(home)) if (file !== config && file !== copy) assert.equal(keyRunIn(TEST_KEY, fs.readFileSync(file, 'utf8')), undefined, file);
});
