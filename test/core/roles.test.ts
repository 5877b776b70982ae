import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { MedchatError } from '../../src/core/errors.js';
import { makePlanner } from '../../src/core/request/request-plan.js';
import { BUILTIN_NAMES } from '../../src/core/request/roles/builtins.js';
import { FrontMatterError, parseFrontMatter } from '../../src/core/request/roles/front-matter.js';
import { RoleFileError, parseRole } from '../../src/core/request/roles/role.js';
import { listRoles, loadRole } from '../../src/core/request/roles/store.js';
import { testSettings } from '../support/settings.js';

test('front matter: key: value, quotes removed, comments skipped, a | block dedented; the body after', () => {
  const fm = parseFrontMatter('---\ndescription: "A: quoted"\n# a comment\n\nschema: |\n  {\n    "type": "object"\n  }\nthinking: off\n---\n\nThe prompt.\n');
  assert.deepEqual(fm.meta, { description: 'A: quoted', schema: '{\n  "type": "object"\n}', thinking: 'off' });
  assert.equal(fm.body, 'The prompt.');
  assert.deepEqual(parseFrontMatter('Just a prompt.\n'), { meta: {}, body: 'Just a prompt.' });
  assert.equal(parseFrontMatter('---\r\ndescription: x\r\n---\r\nbody\r\n').meta.description, 'x', 'CRLF files');
});

test('front matter is strict: each mistake names its line', () => {
  const line = (text: string, n: number, pattern: RegExp) =>
    assert.throws(() => parseFrontMatter(text), (e: unknown) => e instanceof FrontMatterError && e.line === n && pattern.test(e.message));
  line('---\ndescription: x\n', 1, /no closing ---/);
  line('---\ndescription: x\ndescription: y\n---\n', 3, /set twice/);
  line('---\n  indented: x\n---\n', 2, /indented line outside/);
  line('---\nnot a key line\n---\n', 2, /expected "key: value"/);
  line('---\nschema: |\nthinking: on\n---\n', 2, /no indented lines/);
});

test('a role: settings checked, unknown keys refused', () => {
  const r = parseRole('mine', '---\ndescription: Mine\nthinking: on\nmax_tokens: 2048\ntemperature: 0.3\n---\nYou are careful.', 'user');
  assert.deepEqual({ ...r, text: '' }, { name: 'mine', description: 'Mine', system: 'You are careful.', thinking: true, maxTokens: 2048, temperature: 0.3, source: 'user', text: '' });
  const bad = (text: string, pattern: RegExp) => assert.throws(() => parseRole('x', text, 'user'), (e: unknown) => e instanceof RoleFileError && pattern.test(e.message));
  bad('---\nthinking: maybe\n---\nx', /thinking must be on or off/);
  bad('---\nmax-tokens: 1e3\n---\nx', /whole number/);
  bad('---\ntemperature: 3\n---\nx', /from 0 to 2/);
  bad('---\ntop-p: 0.5\n---\nx', /unknown key "top-p"; a role file knows description, thinking/);
  bad('---\ndescription: empty\n---\n', /no system prompt/);
});

test('every built-in role parses, says what it does, and its schema (if any) compiles', async () => {
  assert.deepEqual(BUILTIN_NAMES, ['soap', 'discharge', 'explain', 'ddx', 'interactions']);
  for (const name of BUILTIN_NAMES) {
    const role = loadRole(name, '/nonexistent-medchat-roles');
    assert.ok(role.description.length > 10, name);
    assert.ok(role.system.length > 200, name);
    const planner = await makePlanner({ settings: testSettings('http://127.0.0.1:9'), role });
    assert.equal(Boolean(planner.schema), name === 'interactions', name);
  }
  const interactions = await makePlanner({ settings: testSettings('http://127.0.0.1:9'), role: loadRole('interactions', '/nonexistent-medchat-roles') });
  assert.deepEqual(interactions.schema!.validate({ medications: ['warfarin', 'aspirin'], interactions: [{ drugs: ['warfarin', 'aspirin'], severity: 'major', mechanism: 'm', effect: 'e', management: 'g' }], cautions: [] }), []);
  assert.equal(interactions.schema!.validate({ medications: [], interactions: [{ drugs: ['a'], severity: 'severe' }], cautions: [] }).length > 0, true);
});

test('roles in the user folder: listed, replace a built-in of the same name; a broken file is listed with its problem', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'medchat-roles-'));
  try {
    fs.writeFileSync(path.join(dir, 'soap.md'), '---\ndescription: My SOAP\n---\nMy way.');
    fs.writeFileSync(path.join(dir, 'triage.md'), '---\ndescription: Triage\nmax-tokens: 1000\n---\nTriage it.');
    fs.writeFileSync(path.join(dir, 'broken.md'), '---\nthinking: sometimes\n---\nx');
    fs.writeFileSync(path.join(dir, 'notes.txt'), 'not a role');
    const list = listRoles(dir);
    assert.deepEqual(
      list.map((e) => [e.name, e.source, e.replacesBuiltIn]),
      [['soap', 'user', true], ['discharge', 'built-in', false], ['explain', 'built-in', false], ['ddx', 'built-in', false], ['interactions', 'built-in', false], ['broken', 'user', false], ['triage', 'user', false]],
    );
    assert.match(list.find((e) => e.name === 'broken')!.problem!, /broken\.md: line|thinking must be on or off/);
    assert.equal(loadRole('soap', dir).system, 'My way.');
    assert.equal(loadRole('triage', dir).maxTokens, 1000);
    assert.throws(() => loadRole('broken', dir), (e: unknown) => e instanceof MedchatError && e.exitCode === 2 && /thinking must be on or off/.test(e.message));
    assert.throws(
      () => loadRole('../etc/passwd', dir),
      (e: unknown) => e instanceof MedchatError && e.exitCode === 2 && /no role "\.\.\/etc\/passwd"; the roles are: soap, discharge, explain, ddx, interactions, broken, triage/.test(e.message),
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a role sets thinking, max tokens and temperature unless the command line did; its prompt comes before -s', async () => {
  const role = parseRole('r', '---\nthinking: off\nmax-tokens: 1000\ntemperature: 0.1\n---\nRole prompt.', 'user');
  const settings = testSettings('http://127.0.0.1:9', { thinking: true, maxTokens: 8192 });
  const p = await makePlanner({ settings, role, system: 'Answer in German.' });
  assert.deepEqual([p.settings.thinking, p.settings.maxTokens, p.settings.temperature], [false, 1000, 0.1]);
  assert.equal(p.system, 'Role prompt.\n\nAnswer in German.');
  const flags = await makePlanner({ settings: { ...settings, maxTokens: 300 }, role, given: { thinking: true, maxTokens: true } });
  assert.deepEqual([flags.settings.thinking, flags.settings.maxTokens, flags.settings.temperature], [true, 300, 0.1]);
});

test('a user role\'s schema may be a JSON Schema file beside it, or inline fields with schema-multi', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'medchat-roles-'));
  try {
    fs.writeFileSync(path.join(dir, 'meds.schema.json'), '{"type": "array", "items": {"type": "string"}}');
    fs.writeFileSync(path.join(dir, 'meds.md'), '---\nschema: meds.schema.json\n---\nList the medications.');
    fs.writeFileSync(path.join(dir, 'doses.md'), '---\nschema: drug, dose_mg number\nschema-multi: on\n---\nList the doses.');
    const settings = testSettings('http://127.0.0.1:9');
    const meds = await makePlanner({ settings, role: loadRole('meds', dir) });
    assert.deepEqual(meds.schema!.validate(['aspirin']), []);
    assert.equal(meds.settings.thinking, false, 'a schema turns thinking off unless the role says otherwise');
    const doses = await makePlanner({ settings, role: loadRole('doses', dir) });
    assert.deepEqual(doses.schema!.validate([{ drug: 'aspirin', dose_mg: 75 }]), []);
    const cli = await makePlanner({ settings, role: loadRole('doses', dir), schema: 'name' });
    assert.deepEqual(cli.schema!.validate({ name: 'x' }), [], '--schema wins over the role\'s');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
