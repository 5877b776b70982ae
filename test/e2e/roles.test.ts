// Roles: `medchat roles list|show|edit|path`, `-r NAME` in one-shot and the chat screen.
// Runs the built binary (npm run build first); the terminal cases run in tmux.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { startServiceDouble, type ServiceDouble } from '../../src/stand-in/index.js';
import { BUILTIN_ROLES } from '../../src/core/request/roles/builtins.js';
import { runCli, tempHome } from '../support/cli.js';
import { TmuxPane, tmuxSkip } from '../support/tmux.js';

let double: ServiceDouble;
before(async () => {
  double = await startServiceDouble();
});
after(() => double.close());
/** A fresh home, removed when the file ends (test/support/temp.ts). */
const home = tempHome;

test('roles list names the five built-ins with what each does; roles path is in the config folder', async () => {
  const h = home();
  const list = await runCli(['roles', 'list'], { home: h });
  assert.equal(list.code, 0, list.stderr);
  const names = list.stdout.trim().split('\n').map((l) => l.split(/\s+/)[0]);
  assert.deepEqual(names, ['soap', 'discharge', 'explain', 'ddx', 'interactions']);
  assert.match(list.stdout, /^explain\s+built-in\s+Explain to a patient or family in plain language \(about a grade-8 reading level\)$/m);
  const p = await runCli(['roles', 'path'], { home: h });
  assert.equal(p.stdout, path.join(h, 'config', 'roles') + '\n');
  const show = await runCli(['roles', 'show', 'ddx'], { home: h });
  assert.equal(show.stdout, BUILTIN_ROLES.ddx);
  const json = JSON.parse((await runCli(['roles', 'list', '--json'], { home: h })).stdout);
  assert.deepEqual(json.find((r: { name: string }) => r.name === 'interactions').schema, true);
});

test('roles edit without a terminal copies the built-in into the roles folder and prints its path; the copy is used from then on', async () => {
  const h = home();
  const r = await runCli(['roles', 'edit', 'soap'], { home: h });
  assert.equal(r.code, 0, r.stderr);
  const file = path.join(h, 'config', 'roles', 'soap.md');
  assert.equal(r.stdout, file + '\n');
  assert.match(r.stderr, /copied the built-in role soap/);
  assert.equal(fs.readFileSync(file, 'utf8'), BUILTIN_ROLES.soap);
  fs.writeFileSync(file, '---\ndescription: Our SOAP\nmax-tokens: 1234\n---\nOur house style.');
  assert.match((await runCli(['roles', 'list'], { home: h })).stdout, /^soap\s+yours\*\s+Our SOAP$/m);
  await runCli(['-r', 'soap', 'note'], { baseUrl: double.url, home: h });
  const body = double.chat.requests.at(-1)!.body;
  assert.equal(body.max_tokens, 1234);
  assert.deepEqual(body.messages[0], { role: 'system', content: 'Our house style.' });

  const fresh = await runCli(['roles', 'edit', 'triage'], { home: h });
  assert.equal(fresh.code, 0);
  assert.match(fs.readFileSync(path.join(h, 'config', 'roles', 'triage.md'), 'utf8'), /^---\ndescription: triage: /);
  assert.match((await runCli(['roles', 'list'], { home: h })).stdout, /^triage\s+yours\s+/m, 'the template is a valid role');
});

test('roles edit on a role whose file is a folder or a pipe: one line saying what is there, exit 2 (it was exit 0 with the path printed)', async () => {
  const h = home();
  const roles = path.join(h, 'config', 'roles');
  fs.mkdirSync(path.join(roles, 'triage.md'), { recursive: true });
  const folder = await runCli(['roles', 'edit', 'triage'], { home: h });
  assert.equal(folder.code, 2, folder.stderr);
  assert.equal(folder.stdout, '');
  assert.match(folder.stderr, /^medchat: cannot edit the role triage: .*triage\.md is a folder, not a role file; move it away, then run again\n$/);
  execFileSync('mkfifo', [path.join(roles, 'soap.md')]);
  const pipe = await runCli(['roles', 'edit', 'soap'], { home: h, timeoutMs: 10_000 });
  assert.equal(pipe.code, 2, pipe.stderr);
  assert.match(pipe.stderr, /^medchat: cannot edit the role soap: .*soap\.md is not a regular file \(a pipe, device or socket\), not a role file; move it away, then run again\n$/);
});

test('-r soap < notes: the role\'s system prompt and settings; a flag wins over the role', async () => {
  const h = home();
  await runCli(['-r', 'soap'], { baseUrl: double.url, home: h, stdin: '54M, chest pain 2h, BP 150/90.\n' });
  const body = double.chat.requests.at(-1)!.body;
  assert.deepEqual(body.messages, [
    { role: 'system', content: BUILTIN_ROLES.soap!.split('\n---\n')[1]!.trim() },
    { role: 'user', content: '54M, chest pain 2h, BP 150/90.' },
  ]);
  assert.equal(body.max_tokens, 4096);
  assert.equal(body.enable_thinking, false);
  await runCli(['-r', 'soap', '--think', '--max-tokens', '900', '-s', 'Write in German.', 'x'], { baseUrl: double.url, home: h });
  const flags = double.chat.requests.at(-1)!.body;
  assert.deepEqual([flags.enable_thinking, flags.max_tokens], [true, 900]);
  assert.match(flags.messages[0].content, /Plan", and short bullet points under each\.\n\nWrite in German\.$/);
});

test('-r interactions: the role\'s schema applies, and the answer comes back as validated JSON', async () => {
  const answer = { medications: ['warfarin 5 mg', 'clarithromycin 500 mg'], interactions: [{ drugs: ['warfarin', 'clarithromycin'], severity: 'major', mechanism: 'CYP3A4 inhibition', effect: 'raised INR, bleeding', management: 'avoid or check INR within 3-5 days' }], cautions: [] };
  double.chat.enqueue({ content: ['```json\n' + JSON.stringify(answer) + '\n```'] });
  const r = await runCli(['-r', 'interactions'], { baseUrl: double.url, home: home(), stdin: 'warfarin 5 mg daily; clarithromycin 500 mg bd' });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout), answer);
  assert.match(double.chat.requests.at(-1)!.body.messages[0].content, /clinical pharmacology assistant[\s\S]*"severity": \{/);
});

test('a bad role name: one line naming the roles there are, exit 2, nothing sent', async () => {
  const before = double.chat.requests.length;
  const r = await runCli(['-r', 'sopa', 'q'], { baseUrl: double.url, home: home() });
  assert.equal(r.code, 2);
  assert.equal(r.stderr, 'medchat: no role "sopa"; the roles are: soap, discharge, explain, ddx, interactions (medchat roles list)\n');
  assert.equal(r.stdout, '');
  assert.equal(double.chat.requests.length, before);
  const empty = await runCli(['-r', 'soap'], { baseUrl: double.url, home: home() });
  assert.equal(empty.code, 2);
  assert.match(empty.stderr, /role soap needs text to work on: pipe it in or name a file/);
});

test('in a terminal: roles edit opens $EDITOR on the copy, and a broken edit is reported (exit 2)', { skip: tmuxSkip }, async () => {
  const h = home();
  const ok = new TmuxPane(['roles', 'edit', 'explain'], { EDITOR: "sed -i 's/^description: .*/description: Edited in the editor/'" }, { home: h });
  try {
    const r = await ok.exited();
    assert.equal(r.code, 0, ok.screen());
    assert.match(fs.readFileSync(path.join(h, 'config', 'roles', 'explain.md'), 'utf8'), /^description: Edited in the editor$/m);
  } finally {
    ok.kill();
  }
  const bad = new TmuxPane(['roles', 'edit', 'explain'], { EDITOR: "sed -i 's/^description: .*/thinking: maybe/'" }, { home: h });
  try {
    const r = await bad.exited();
    assert.equal(r.code, 2);
    assert.match(bad.screen(), /thinking must be on or off[\s\S]*fix it with: medchat roles edit explain/);
  } finally {
    bad.kill();
  }
});

test('in a terminal: -r ddx opens the chat screen with the role in the header and its prompt in every request', { skip: tmuxSkip }, async () => {
  double.chat.enqueue({ content: ['1. Acute coronary syndrome [cannot miss]'] });
  const pane = new TmuxPane(['-r', 'ddx'], { MEDCHAT_BASE_URL: double.url, MEDCHAT_API_KEY: 'sk-test-roles' }, { home: home() });
  try {
    await pane.ready();
    assert.match(pane.screen(), /medical-large-latest · 127\.0\.0\.1:\d+ · role ddx/);
    assert.match(pane.screen(), /· thinking on │ Enter send/, 'thinking on/off is in the footer');
    await pane.send('54M chest pain');
    await pane.waitForText('Acute coronary syndrome');
    const body = double.chat.requests.at(-1)!.body;
    assert.match(body.messages[0].content, /^You support a clinician's diagnostic reasoning/);
    assert.equal(body.enable_thinking, true);
  } finally {
    pane.kill();
  }
});
