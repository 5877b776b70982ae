// `--schema`: one JSON value on stdout that validates, or exit 9 with the errors on stderr.
// Runs the built binary against the double (npm run build first).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { startServiceDouble, type ServiceDouble } from '../../src/stand-in/index.js';
import { TEST_KEY, runCli, tempHome } from '../support/cli.js';
import { TmuxPane, tmuxSkip } from '../support/tmux.js';

let double: ServiceDouble;
before(async () => {
  double = await startServiceDouble();
});
after(() => double.close());

/** A fresh home, removed when the file ends (test/support/temp.ts). */
const home = tempHome;
const ALLOWED = ['enable_thinking', 'max_tokens', 'messages', 'model', 'stream', 'temperature', 'top_p'];

test('--schema FILE: the answer is validated and printed as exactly one JSON value; the body keeps only allowed fields', async () => {
  const h = home();
  const schemaFile = path.join(h, 'med.schema.json');
  fs.writeFileSync(
    schemaFile,
    JSON.stringify({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: { medications: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' }, dose_mg: { type: 'number' } }, required: ['name', 'dose_mg'] } } },
      required: ['medications'],
    }),
  );
  double.chat.enqueue({ content: ['Here you go:\n```json\n{"medications": [{"name": "metformin", "dose_mg": 500}]}', '\n```\nLet me know if you need more.'] });
  const r = await runCli(['--schema', schemaFile, 'list the medications'], { baseUrl: double.url, home: h, stdin: 'Metformin 500 mg twice daily.' });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, '{"medications":[{"name":"metformin","dose_mg":500}]}\n', 'one JSON value, one line when stdout is not a terminal');
  assert.deepEqual(JSON.parse(r.stdout), { medications: [{ name: 'metformin', dose_mg: 500 }] });
  const body = double.chat.requests.at(-1)!.body;
  for (const key of Object.keys(body)) assert.ok(ALLOWED.includes(key), `unexpected body field ${key}`);
  assert.equal(body.response_format, undefined);
  assert.equal(body.enable_thinking, false, 'thinking is off for a schema request');
  assert.equal(body.messages[0].role, 'system');
  assert.match(body.messages[0].content, /JSON Schema \(draft 2020-12\)/);
  assert.match(body.messages[0].content, /"dose_mg": \{/);
  assert.deepEqual(body.messages[1], { role: 'user', content: 'Metformin 500 mg twice daily.\n\nlist the medications' });
});

test('--think keeps thinking on with a schema, and the reasoning still goes to stderr only', async () => {
  double.chat.enqueue({ reasoning: ['Weighing the note.'], content: ['{"name": "aspirin"}'] });
  const r = await runCli(['--schema', 'name', '--think', 'q'], { baseUrl: double.url, home: home() });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, '{"name":"aspirin"}\n');
  assert.match(r.stderr, /Weighing the note\./);
  assert.equal(double.chat.requests.at(-1)!.body.enable_thinking, true);
});

test('repair round trip: an invalid first answer, one follow-up quoting the errors, a valid second answer', async () => {
  double.chat.enqueue({ content: ['{"name": "amoxicillin", "dose_mg": "500 mg"}'] }, { content: ['{"name": "amoxicillin", "dose_mg": 500, "route": "oral"}'] });
  const before = double.chat.requests.length;
  const r = await runCli(['--schema', 'name, dose_mg number, route', 'the antibiotic?'], { baseUrl: double.url, home: home() });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout), { name: 'amoxicillin', dose_mg: 500, route: 'oral' });
  assert.equal(r.stdout.split('\n').length, 2, 'exactly one line, newline-terminated');
  assert.match(r.stderr, /does not match the schema \(2 errors\); asking once for a corrected answer/);
  const sent = double.chat.requests.slice(before);
  assert.equal(sent.length, 2);
  const repair = sent[1]!.body.messages as Array<{ role: string; content: string }>;
  assert.deepEqual(repair.slice(1, 3), [
    { role: 'user', content: 'the antibiotic?' },
    { role: 'assistant', content: '{"name": "amoxicillin", "dose_mg": "500 mg"}' },
  ]);
  assert.equal(repair[3]!.role, 'user');
  assert.match(repair[3]!.content, /- \(root\): must have required property 'route'\n- \/dose_mg: must be number/);
  assert.equal(sent[1]!.body.response_format, undefined);
});

test('still invalid after the repair: exit 9, nothing on stdout, the errors on stderr one a line, the raw answer kept in the session', async () => {
  const h = home();
  double.chat.enqueue({ content: ['I think it is amoxicillin.'] }, { content: ['{"name": 5}'] });
  const r = await runCli(['--schema', 'name', 'which?'], { baseUrl: double.url, home: h });
  assert.equal(r.code, 9);
  assert.equal(r.stdout, '');
  const lines = r.stderr.trimEnd().split('\n');
  assert.match(lines.at(-3)!, /^medchat: the answer is not valid JSON for the schema, even after one repair request$/);
  assert.equal(lines.at(-2), '  /name: must be string');
  const kept = /medchat sessions show (\S+)/.exec(lines.at(-1)!);
  assert.ok(kept, lines.at(-1));
  const show = await runCli(['sessions', 'show', kept![1]!], { home: h });
  assert.match(show.stdout, /I think it is amoxicillin\./);
  assert.match(show.stdout, /\{"name": 5\}/);
});

test('--json with a schema: one object with the value, validity, errors, attempts and the raw answer in content', async () => {
  double.chat.enqueue({ content: ['nope'] }, { content: ['still nope'] });
  const bad = await runCli(['--schema', 'name', '--json', 'q'], { baseUrl: double.url, home: home() });
  assert.equal(bad.code, 9);
  const o = JSON.parse(bad.stdout);
  assert.equal(o.content, 'still nope');
  assert.equal(o.valid, false);
  assert.equal(o.value, null);
  assert.equal(o.attempts, 2);
  assert.deepEqual(o.schema_errors, ['(root): the answer holds no JSON value']);
  assert.equal(o.error.exit_code, 9);
  assert.equal(o.usage.prompt_tokens > 0, true);

  double.chat.enqueue({ content: ['[{"drug": "a"}, {"drug": "b"}]'] });
  const good = await runCli(['--schema', 'drug', '--schema-multi', '--json', 'q'], { baseUrl: double.url, home: home() });
  assert.equal(good.code, 0, good.stderr);
  const g = JSON.parse(good.stdout);
  assert.deepEqual([g.valid, g.value, g.attempts, g.complete], [true, [{ drug: 'a' }, { drug: 'b' }], 1, true]);
});

test('schema mistakes are usage errors before anything is sent: a missing file, a bad type, --jsonl, --schema-multi alone', async () => {
  const before = double.chat.requests.length;
  const cases: Array<[string[], RegExp]> = [
    [['--schema', 'missing.json', 'q'], /^medchat: --schema: no such file: missing\.json\n$/],
    [['--schema', 'dose float', 'q'], /unknown type "float"/],
    [['--schema', 'name', '--jsonl', 'q'], /cannot stream with --jsonl/],
    [['--schema-multi', 'q'], /--schema-multi goes with --schema/],
  ];
  for (const [args, pattern] of cases) {
    const r = await runCli(args, { baseUrl: double.url, home: home() });
    assert.equal(r.code, 2, args.join(' '));
    assert.match(r.stderr, pattern);
    assert.equal(r.stdout, '');
    assert.ok(!r.stderr.includes(TEST_KEY));
  }
  assert.equal(double.chat.requests.length, before, 'nothing was sent');
});

test('--no-stream works the same way: validated, one JSON value', async () => {
  double.chat.enqueue({ content: ['Answer: {"name": "ibuprofen"}'] });
  const r = await runCli(['--schema', 'name', '--no-stream', 'q'], { baseUrl: double.url, home: home() });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, '{"name":"ibuprofen"}\n');
  assert.equal(double.chat.requests.at(-1)!.body.stream, false);
});

test('on a terminal the JSON value is indented for reading', { skip: tmuxSkip }, async () => {
  double.chat.enqueue({ content: ['{"name": "ibuprofen", "dose_mg": 400}'] });
  const pane = new TmuxPane(['--schema', 'name, dose_mg number', 'q'], { MEDCHAT_BASE_URL: double.url, MEDCHAT_API_KEY: TEST_KEY }, { home: home() });
  try {
    const r = await pane.exited();
    assert.equal(r.code, 0, pane.screen());
    assert.match(pane.screen(), /^\{\n  "name": "ibuprofen",\n  "dose_mg": 400\n\}\nmedchat exited 0/m);
  } finally {
    pane.kill();
  }
});
