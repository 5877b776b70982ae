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
import { compileSchema } from '../../src/core/request/schema/validate.js';
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
