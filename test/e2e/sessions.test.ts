import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, beforeEach, test } from 'node:test';
import { startServiceDouble, type ServiceDouble } from '../../src/stand-in/index.js';
import { TEST_KEY, runCli, tempHome, waitFor } from '../support/cli.js';

let double: ServiceDouble;
before(async () => {
  double = await startServiceDouble({ contextWindow: 131072 });
});
after(() => double.close());
beforeEach(() => {
  double.server.requests.length = 0;
  double.chat.defaultScript = {};
});

const sessionsDir = (home: string) => path.join(home, 'data', 'sessions');
const sessionFiles = (home: string) => (fs.existsSync(sessionsDir(home)) ? fs.readdirSync(sessionsDir(home)).filter((n) => n.endsWith('.json')) : []);
const readSession = (home: string) => JSON.parse(fs.readFileSync(path.join(sessionsDir(home), sessionFiles(home)[0]!), 'utf8'));

test('a one-shot answer is saved, and -c continues it with the earlier turn sent', async () => {
  const home = tempHome();
  const first = await runCli(['What is the usual adult dose of paracetamol?'], { baseUrl: double.url, home });
  assert.equal(first.code, 0, first.stderr);
  const second = await runCli(['-c', 'And the maximum per day?'], { baseUrl: double.url, home });
  assert.equal(second.code, 0, second.stderr);
  assert.deepEqual(
    double.chat.requests.at(-1)!.body.messages.map((m: { role: string; content: string }) => [m.role, m.content]),
    [
      ['user', 'What is the usual adult dose of paracetamol?'],
      ['assistant', 'You said: What is the usual adult dose of paracetamol?'],
      ['user', 'And the maximum per day?'],
    ],
  );
  assert.equal(sessionFiles(home).length, 1);
  const file = path.join(sessionsDir(home), sessionFiles(home)[0]!);
  assert.equal(fs.statSync(file).mode & 0o777, 0o600);
  assert.equal(fs.statSync(sessionsDir(home)).mode & 0o777, 0o700);
  assert.ok(!fs.readFileSync(file, 'utf8').includes(TEST_KEY));

  const list = await runCli(['sessions', 'list'], { home });
  assert.equal(list.code, 0);
  assert.match(list.stdout, /^\d{8}-\d{6}-[0-9a-f]{4} .* 2 turns +What is the usual adult dose of paracetamol\?\n$/);
  const id = list.stdout.split(' ')[0]!;

  const resumed = await runCli(['--resume', id.slice(0, 18), 'Thanks'], { baseUrl: double.url, home });
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.equal(double.chat.requests.at(-1)!.body.messages.length, 5);

  const show = await runCli(['sessions', 'show', id], { home });
  assert.match(show.stdout, /## You[^\n]*\n\nAnd the maximum per day\?\n\n## medchat\n\nYou said: And the maximum per day\?/);
  assert.ok(!show.stdout.includes('Let me think'));

  const out = path.join(home, 'export.json');
  const exp = await runCli(['sessions', 'export', id, '-o', out, '--reasoning'], { home });
  assert.equal(exp.code, 0, exp.stderr);
  const json = JSON.parse(fs.readFileSync(out, 'utf8'));
  assert.equal(json.turns.length, 3);
  assert.equal(json.turns[0].reasoning, 'Let me think about this.');
  const md = await runCli(['sessions', 'export', id, '--format', 'md'], { home });
  assert.match(md.stdout, /^# What is the usual adult dose of paracetamol\?/);

  const rm = await runCli(['sessions', 'rm', '--all'], { home });
  assert.equal(rm.code, 0);
  assert.match(rm.stderr, /deleted 1 saved conversation/);
  assert.deepEqual(sessionFiles(home), []);
  const again = await runCli(['-c', 'anything?'], { baseUrl: double.url, home });
  assert.equal(again.code, 2);
  assert.match(again.stderr, /no saved conversation to continue/);
});

test('killed with SIGKILL mid-answer, then --continue: the question and the partial answer are there, and the file is valid', async () => {
  const home = tempHome();
  const pieces = Array.from({ length: 400 }, (_, i) => `word${i} `);
  double.chat.enqueue({ content: pieces, paceMs: 25 });
  let partial = '';
  const run = runCli(['Explain the causes of atrial fibrillation in detail'], {
    baseUrl: double.url,
    home,
    timeoutMs: 30_000,
    onSpawn: (child) => {
      void (async () => {
        // Wait until part of the answer is on disk, then kill without warning.
        await waitFor(
          () => {
            try {
              const s = readSession(home);
              partial = s.turns[0]?.answer ?? '';
              return partial.includes('word20 ');
            } catch {
              return false;
            }
          },
          15_000,
          'a partial answer on disk',
        );
        child.kill('SIGKILL');
      })();
    },
  });
  const killed = await run;
  assert.equal(killed.signal, 'SIGKILL');
  const saved = readSession(home); // valid JSON
  assert.equal(saved.turns[0].user, 'Explain the causes of atrial fibrillation in detail');
  assert.ok(saved.turns[0].answer.startsWith('word0 word1 '));
  assert.ok(!saved.turns[0].answer.includes('word399'), 'the answer was cut off');
  // A kill in the middle of a save may leave its temporary file and its lock (naming a pid that is gone: the next save breaks it).
  assert.deepEqual(fs.readdirSync(sessionsDir(home)).filter((n) => !n.endsWith('.json') && !n.endsWith('.tmp') && !n.endsWith('.json.lock')), []);

  const show = await runCli(['sessions', 'show', 'latest'], { home });
  assert.match(show.stdout, /interrupted: the answer above is partial/);

  const next = await runCli(['--continue', 'Go on'], { baseUrl: double.url, home });
  assert.equal(next.code, 0, next.stderr);
  const sent = double.chat.requests.at(-1)!.body.messages as Array<{ role: string; content: string }>;
  assert.equal(sent[0]!.content, 'Explain the causes of atrial fibrillation in detail');
  assert.equal(sent[1]!.role, 'assistant');
  assert.ok(sent[1]!.content.startsWith(saved.turns[0].answer), 'the partial answer is part of the conversation');
  assert.equal(sent[2]!.content, 'Go on');
  const after = readSession(home);
  assert.equal(after.turns[0].status, 'interrupted');
  assert.equal(after.turns[1].status, 'complete');
  assert.deepEqual(fs.readdirSync(sessionsDir(home)).filter((n) => n.endsWith('.lock')), [], 'a lock left by the killed run was broken');
});

test('--incognito leaves the data directory untouched', async () => {
  const home = tempHome();
  const r = await runCli(['--incognito', 'A private question'], { baseUrl: double.url, home });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, 'You said: A private question');
  assert.equal(fs.existsSync(path.join(home, 'data')), false);

  // With a session already there, incognito continues it without writing anything.
  await runCli(['Saved question'], { baseUrl: double.url, home });
  const file = path.join(sessionsDir(home), sessionFiles(home)[0]!);
  const before = fs.readFileSync(file, 'utf8');
  const mtime = fs.statSync(file).mtimeMs;
  const c = await runCli(['-c', '--incognito', 'Private follow-up'], { baseUrl: double.url, home });
  assert.equal(c.code, 0, c.stderr);
  assert.equal(double.chat.requests.at(-1)!.body.messages.length, 3);
  assert.equal(fs.readFileSync(file, 'utf8'), before);
  assert.equal(fs.statSync(file).mtimeMs, mtime);
  assert.deepEqual(fs.readdirSync(sessionsDir(home)), [path.basename(file)]);
});

test('history off in config saves nothing either', async () => {
  const home = tempHome();
  const set = await runCli(['config', 'set', 'history', 'off'], { home });
  assert.equal(set.code, 0, set.stderr);
  const r = await runCli(['Another private question'], { baseUrl: double.url, home });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(fs.existsSync(path.join(home, 'data')), false);
  const c = await runCli(['-c', 'more'], { baseUrl: double.url, home });
  assert.equal(c.code, 2);
  assert.match(c.stderr, /history/);
});

test('a session id with path characters never reaches a path: one usage line, exit 2, nothing touched', async (t) => {
  const home = tempHome();
  t.after(() => fs.rmSync(home, { recursive: true, force: true, maxRetries: 5 }));
  const first = await runCli(['A saved question'], { baseUrl: double.url, home });
  assert.equal(first.code, 0, first.stderr);
  // A file beside the sessions folder that a traversal would reach.
  const victim = path.join(home, 'data', 'victim.json');
  fs.writeFileSync(victim, '{"keep": true}');
  const before = fs.readdirSync(sessionsDir(home));
  const bad = ['../../etc/passwd', '../victim', '/etc/passwd', '..', 'a/b', '20261122-143005-a1b2/../../x', '..\\victim', 'latest/../x'];
  const commands = (ref: string) => [
    ['sessions', 'show', ref],
    ['sessions', 'rm', ref],
    ['sessions', 'export', ref],
    ['sessions', 'export', ref, '-o', path.join(home, 'out.md')],
    ['--resume', ref, 'q'],
  ];
  for (const ref of bad) {
    for (const args of commands(ref)) {
      const r = await runCli(args, { baseUrl: double.url, home });
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.equal(r.stderr, `medchat: no session ${JSON.stringify(ref)}: a session id looks like 20261122-143005-a1b2 (digits, a-f and dashes); see the saved ones with: medchat sessions list\n`);
      assert.equal(r.stdout, '');
    }
  }
  assert.deepEqual(fs.readdirSync(sessionsDir(home)), before, 'no session touched');
  assert.equal(fs.readFileSync(victim, 'utf8'), '{"keep": true}');
  assert.equal(fs.existsSync(path.join(home, 'out.md')), false);

  // NUL, a line break or escape sequences in a ref: refused the same way, shown visibly on one line.
  const { SessionStore } = await import('../../src/core/sessions/store.js');
  const store = new SessionStore(sessionsDir(home));
  for (const ref of ['a\u0000b', '../x\n', '\u001b]0;x\u0007', 'abc\u202e']) {
    assert.throws(() => store.resolve(ref), /^MedchatError: no session ".*": a session id looks like/);
    assert.throws(() => store.fileFor(ref), /no session/);
    assert.equal(store.exists(ref), false);
  }
  assert.throws(() => store.remove('../victim'), /no session/);
  assert.throws(() => store.load('../victim'), /no session/);
});

test('a session file whose "id" says ../../x is saved back into its own file, never outside the folder', async (t) => {
  const home = tempHome();
  t.after(() => fs.rmSync(home, { recursive: true, force: true, maxRetries: 5 }));
  assert.equal((await runCli(['First question'], { baseUrl: double.url, home })).code, 0);
  const name = sessionFiles(home)[0]!;
  const file = path.join(sessionsDir(home), name);
  const data = JSON.parse(fs.readFileSync(file, 'utf8'));
  data.id = '../../escaped';
  fs.writeFileSync(file, JSON.stringify(data));
  const r = await runCli(['-c', 'Second question'], { baseUrl: double.url, home });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(sessionFiles(home), [name]);
  const saved = readSession(home);
  assert.equal(saved.id, name.slice(0, -5));
  assert.equal(saved.turns.length, 2);
  assert.equal(fs.existsSync(path.join(home, 'escaped.json')), false);
  assert.equal(fs.existsSync(path.join(home, 'data', 'escaped.json')), false);
});
