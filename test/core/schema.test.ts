import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { MedchatError } from '../../src/core/errors.js';
import { makePlanner } from '../../src/core/request/request-plan.js';
import { NO_JSON, checkAnswer } from '../../src/core/request/schema/check.js';
import { jsonCandidates } from '../../src/core/request/schema/extract.js';
import { inlineSchema, parseInlineFields } from '../../src/core/request/schema/inline.js';
import { resolveSchemaSpec } from '../../src/core/request/schema/source.js';
import { MAX_DEPTH, compileSchema } from '../../src/core/request/schema/validate.js';
import { boundMs } from '../support/adversarial-text.js';
import { Prng, seedFromEnv } from '../support/prng.js';
import { testSettings } from '../support/settings.js';

const usage = (fn: () => unknown, pattern: RegExp) =>
  assert.throws(fn, (e: unknown) => e instanceof MedchatError && e.exitCode === 2 && pattern.test(e.message));

test('inline fields: strings unless typed, all required, nothing else allowed', () => {
  assert.deepEqual(inlineSchema('name, dose_mg number, route'), {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    properties: { name: { type: 'string' }, dose_mg: { type: 'number' }, route: { type: 'string' } },
    required: ['name', 'dose_mg', 'route'],
    additionalProperties: false,
  });
  assert.deepEqual(parseInlineFields(' a integer ,b BOOLEAN,c'), [
    { name: 'a', type: 'integer' },
    { name: 'b', type: 'boolean' },
    { name: 'c', type: 'string' },
  ]);
});

test('inline fields with --schema-multi: an array of those objects', () => {
  const s = inlineSchema('drug, dose_mg number', true) as { type: string; items: { required: string[] } };
  assert.equal(s.type, 'array');
  assert.deepEqual(s.items.required, ['drug', 'dose_mg']);
});

test('inline fields: each mistake is a usage error that says what is wrong', () => {
  usage(() => parseInlineFields('name,, route'), /field 2 is empty/);
  usage(() => parseInlineFields('dose mg number'), /is not a field/);
  usage(() => parseInlineFields('dose float'), /unknown type "float".*string, number, integer, boolean/);
  usage(() => parseInlineFields('name, name'), /named twice/);
  usage(() => parseInlineFields('1dose'), /not a field name/);
});

test('--schema names a file, JSON text or inline fields; a missing .json file is an error, not fields', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'medchat-schema-'));
  try {
    fs.writeFileSync(path.join(dir, 'med.schema.json'), '{"type":"object"}');
    assert.deepEqual(resolveSchemaSpec('med.schema.json', { baseDir: dir }), { schema: { type: 'object' }, label: 'med.schema.json' });
    assert.equal(resolveSchemaSpec('{"type":"array"}').label, 'JSON');
    assert.equal(resolveSchemaSpec('name, dose', { baseDir: dir }).label, 'inline');
    usage(() => resolveSchemaSpec('missing.json', { baseDir: dir }), /no such file: missing\.json/);
    fs.writeFileSync(path.join(dir, 'bad.json'), '{"type": ');
    usage(() => resolveSchemaSpec('bad.json', { baseDir: dir }), /not valid JSON/);
    usage(() => resolveSchemaSpec('med.schema.json', { baseDir: dir, multi: true }), /--schema-multi goes with the inline form/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('extraction: the JSON is found inside code fences and stray text', () => {
  const values = (answer: string) => jsonCandidates(answer).map((c) => c.value);
  assert.deepEqual(values('{"a":1}'), [{ a: 1 }]);
  assert.deepEqual(values('Here is the JSON:\n```json\n{"a": 1}\n```\nHope this helps.')[0], { a: 1 });
  assert.deepEqual(values('Sure! {"a": "has } and { inside", "b": [1, 2]} — done.')[0], { a: 'has } and { inside', b: [1, 2] });
  assert.deepEqual(values('The list: [{"x": 1}, {"x": 2}]. That is all.')[0], [{ x: 1 }, { x: 2 }]);
  assert.deepEqual(values('```\n{"a": 2}\n'), [{ a: 2 }], 'a fence left open at the end still counts');
  assert.deepEqual(values('no json here, just {broken: yes}'), []);
});

test('check: the first candidate that validates wins; otherwise the first candidate\'s errors', async () => {
  const schema = await compileSchema(resolveSchemaSpec('name, dose_mg number'));
  const good = checkAnswer(schema, 'For example {"x": 1} but the answer is {"name": "amoxicillin", "dose_mg": 500}');
  assert.deepEqual(good, { ok: true, value: { name: 'amoxicillin', dose_mg: 500 }, raw: good.raw });
  const bad = checkAnswer(schema, '{"name": "amoxicillin", "dose_mg": "500 mg", "route": "oral"}');
  assert.equal(bad.ok, false);
  assert.deepEqual(!bad.ok && bad.errors, ['(root): must NOT have additional properties: "route"', '/dose_mg: must be number']);
  assert.deepEqual(checkAnswer(schema, 'I cannot answer that.'), { ok: false, errors: [NO_JSON], raw: 'I cannot answer that.' });
});

test('compile: a schema for another draft, or not a schema at all, is a usage error before anything is sent', async () => {
  await assert.rejects(
    compileSchema({ schema: { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object' }, label: 'x.json' }),
    (e: unknown) => e instanceof MedchatError && e.exitCode === 2 && /draft 2020-12/.test(e.message),
  );
  await assert.rejects(compileSchema({ schema: { type: 'nothing' }, label: 'x.json' }), (e: unknown) => e instanceof MedchatError && /not a usable JSON Schema/.test(e.message));
  const enumSchema = await compileSchema({ schema: { enum: ['major', 'minor'] }, label: 'JSON' });
  assert.deepEqual(enumSchema.validate('severe'), ['(root): must be equal to one of the allowed values: "major", "minor"']);
});

test('the plan: the schema travels in the system message after the role and -s; thinking off unless asked for', async () => {
  const settings = testSettings('http://127.0.0.1:9');
  const planner = await makePlanner({ settings, schema: 'name, dose_mg number', system: 'Be brief.' });
  const plan = planner.plan({ prompt: 'list the medications', stdin: 'amoxicillin 500 mg' });
  assert.equal(plan.settings.thinking, false);
  assert.equal(plan.messages.length, 2);
  assert.match(plan.messages[0]!.content, /^Be brief\.\n\nOutput format: reply with exactly one JSON value/);
  assert.match(plan.messages[0]!.content, /"dose_mg": \{\n\s+"type": "number"/);
  assert.deepEqual(plan.messages[1], { role: 'user', content: 'amoxicillin 500 mg\n\nlist the medications' });
  const asked = await makePlanner({ settings, schema: 'name', given: { thinking: true } });
  assert.equal(asked.settings.thinking, true, '--think wins over the schema');
  const none = await makePlanner({ settings });
  assert.equal(none.schema, undefined);
  assert.deepEqual(none.plan({ prompt: 'q' }).finish('free text'), { ok: true, content: 'free text', raw: 'free text' });
});

/** A schema whose check calls itself once per level: the kind that ran out of stack. */
const TREE = { $defs: { n: { anyOf: [{ type: 'integer' }, { type: 'object', properties: { a: { $ref: '#/$defs/n' } } }, { type: 'array', items: { $ref: '#/$defs/n' } }] } }, $ref: '#/$defs/n' };

test('an answer nested deeper than 256 levels is reported as such (no stack overflow); 256 levels are checked as usual', async () => {
  const schema = await compileSchema({ schema: TREE, label: 'tree.json' });
  const seed = seedFromEnv();
  const r = new Prng(seed);
  let cases = 0;
  for (const depth of [257, 1000, 5000, 20_000, r.int(300, 50_000)]) {
    // Objects and arrays mixed at random: {"a":[[{"a":…1…}]]}
    const open: string[] = [];
    const close: string[] = [];
    for (let i = 0; i < depth; i++) {
      const obj = r.chance(0.5);
      open.push(obj ? '{"a":' : '[');
      close.push(obj ? '}' : ']');
    }
    const answer = open.join('') + '1' + close.reverse().join('');
    const check = checkAnswer(schema, answer);
    assert.equal(check.ok, false, `depth ${depth}`);
    assert.deepEqual(!check.ok && check.errors, [`(root): nested deeper than ${MAX_DEPTH} levels; medchat checks JSON nested at most that deep`]);
    assert.equal(check.raw, answer, 'the raw answer is kept');
    cases++;
  }
  const ok = '{"a":'.repeat(255) + '[1]' + '}'.repeat(255);
  assert.equal(checkAnswer(schema, ok).ok, true, '256 levels deep is checked and valid');
  console.log(`# nested answers: ${cases} depths, seed ${seed}`);
});

test('a schema pattern that can backtrack for ever is refused when loaded, naming it; ordinary patterns pass', async () => {
  for (const pattern of ['^(a+)+$', '^(a|a)*$', '(x*)*y', '^([a-z]+ ?)*$', '^(\\w|\\d)+$', '^(a?){2,}$', '^(-.+)*$', '^(-?[a-z]+)*$', '^(?:-[a-z]+-?)*$']) {
    await assert.rejects(
      compileSchema({ schema: { type: 'object', properties: { code: { type: 'string', pattern } } }, label: 'p.json' }),
      (e: unknown) => e instanceof MedchatError && e.exitCode === 2 && e.message.includes(JSON.stringify(pattern)) && /repeat/.test(e.message),
      pattern,
    );
  }
  await assert.rejects(compileSchema({ schema: { patternProperties: { '^(a+)+$': {} } }, label: 'p.json' }), /\^\(a\+\)\+\$/);
  for (const pattern of ['^\\d{4}-\\d{2}-\\d{2}$', '^[A-Z]{2}\\d{6}$', '^(?:cat|dog)+$', '^(\\d{3}-)+\\d{4}$', '^[a-z]+$', '^\\p{L}+$', '^[a-z]+(?:-[a-z]+)*$', '^\\d+(?:\\.\\d+)*$', '^(?:,[^,]+)*$']) {
    const schema = await compileSchema({ schema: { type: 'string', pattern, examples: [{ pattern: '(a+)+' }] }, label: 'p.json' });
    // A long answer string is checked at once (none of these backtracks).
    const t0 = performance.now();
    schema.validate('a'.repeat(100_000) + '!');
    schema.validate('ab-1.,'.repeat(20_000) + '!'); // rounds with separators, then a miss
    assert.ok(performance.now() - t0 < 2000, pattern);
  }
});

test('extraction from 250 KB of "{" or "[" ends within 2 s per 100 KB with no candidate', () => {
  for (const ch of ['{', '[', '{"a":', '["', '```json\n{']) {
    const answer = ch.repeat(Math.ceil(250_000 / ch.length));
    const t0 = performance.now();
    const candidates = jsonCandidates(answer);
    assert.ok(performance.now() - t0 < boundMs(answer.length), `${ch}: ${(performance.now() - t0).toFixed(0)} ms`);
    assert.deepEqual(candidates, []);
  }
});
