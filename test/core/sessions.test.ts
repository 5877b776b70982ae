import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { ChatSession } from '../../src/core/sessions/chat-session.js';
import { sessionToJson, sessionToMarkdown } from '../../src/core/sessions/export.js';
import { writeFileAtomic } from '../../src/core/io/atomic-file.js';
import { SessionStore } from '../../src/core/sessions/store.js';
import type { Settings } from '../../src/core/config/settings.js';
import { startServiceDouble, type ServiceDouble } from '../../src/stand-in/index.js';
import { tempHome } from '../support/cli.js';
import { testSettings } from '../support/settings.js';

const KEY = 'sk-test-NEVER-ON-DISK-9z8y';
let double: ServiceDouble;
before(async () => {
  double = await startServiceDouble();
});
after(() => double.close());

function settings(overrides: Partial<Settings> = {}): Settings {
  return testSettings(double.url, { apiKey: KEY, maxTokens: 1024, idleTimeoutMs: 10_000, history: true, disclaimer: false, ...overrides });
}

function freshStore() {
  const home = tempHome();
  return { home, store: new SessionStore(path.join(home, 'data', 'sessions')) };
}

async function ask(session: ChatSession, text: string) {
  const turn = session.ask(text);
  for await (const _ of session.send(turn)) {
    // drain
  }
  return turn;
}

test('a conversation is saved as it goes: files 0600 in a 0700 folder, no key, nothing half-written left behind', async () => {
  const { store } = freshStore();
  const session = ChatSession.open(settings(), { store, system: 'Be careful.' });
  assert.equal(fs.existsSync(store.dir), false, 'nothing is written before the first question');
  await ask(session, 'What is a normal resting heart rate?');
  await ask(session, 'And for a trained athlete?');
  const file = store.fileFor(session.id);
  assert.equal(fs.statSync(file).mode & 0o777, 0o600);
  assert.equal(fs.statSync(store.dir).mode & 0o777, 0o700);
  assert.equal(fs.statSync(path.dirname(store.dir)).mode & 0o777, 0o700);
  const text = fs.readFileSync(file, 'utf8');
  assert.ok(!text.includes(KEY) && !text.includes('NEVER-ON-DISK'), 'the API key is never stored');
  assert.deepEqual(fs.readdirSync(store.dir), [`${session.id}.json`]);
  const loaded = store.load(session.id);
  assert.equal(loaded.system, 'Be careful.');
  assert.deepEqual(
    loaded.turns.map((t) => [t.user, t.answer, t.status]),
    [
      ['What is a normal resting heart rate?', 'You said: What is a normal resting heart rate?', 'complete'],
      ['And for a trained athlete?', 'You said: And for a trained athlete?', 'complete'],
    ],
  );
  assert.equal(loaded.turns[0]!.reasoning, 'Let me think about this.', 'reasoning is kept for display and export');
  const second = double.chat.requests.at(-1)!.body.messages;
  assert.ok(!JSON.stringify(second).includes('Let me think'), 'but never sent back');
});

test('the question is on disk before any answer arrives', async () => {
  const { store } = freshStore();
  const session = ChatSession.open(settings(), { store });
  const turn = session.ask('Is ibuprofen safe with lisinopril?');
  const saved = store.load(session.id);
  assert.equal(saved.turns[0]!.user, 'Is ibuprofen safe with lisinopril?');
  assert.equal(saved.turns[0]!.status, 'interrupted', 'read back before an answer, it shows as interrupted');
  for await (const _ of session.send(turn)) {
    // drain
  }
  assert.equal(store.load(session.id).turns[0]!.status, 'complete');
});

test('resuming: latest, an id prefix, and the conversation goes on with the earlier turns sent', async () => {
  const { store } = freshStore();
  const a = ChatSession.open(settings(), { store });
  await ask(a, 'first conversation');
  const b = ChatSession.open(settings(), { store });
  await ask(b, 'second conversation');
  assert.equal(store.latest(), b.id);
  // The shortest prefix (17 characters at least) that is a's alone: both ids may share a second.
  let n = 17;
  while (b.id.startsWith(a.id.slice(0, n))) n++;
  const resumed = ChatSession.open(settings(), { store, resume: a.id.slice(0, n) });
  assert.equal(resumed.id, a.id);
  assert.ok(resumed.resumed);
  await ask(resumed, 'follow-up');
  assert.deepEqual(
    double.chat.requests.at(-1)!.body.messages.map((m: { content: string }) => m.content),
    ['first conversation', 'You said: first conversation', 'follow-up'],
  );
  assert.equal(store.latest(), a.id, 'the one just used is now the latest');
  assert.equal(store.load(a.id).turns.length, 2);
  assert.throws(() => ChatSession.open(settings(), { store, resume: 'nope' }), /no session "nope"/);
});

test('incognito and history off write nothing; -c with nothing saved says so', async () => {
  const { store, home } = freshStore();
  const s1 = ChatSession.open(settings(), { store, incognito: true });
  await ask(s1, 'private question');
  const s2 = ChatSession.open(settings({ history: false }), { store });
  await ask(s2, 'another private question');
  assert.equal(s1.persistent || s2.persistent, false);
  assert.equal(fs.existsSync(path.join(home, 'data')), false);
  assert.throws(() => ChatSession.open(settings(), { store, resume: 'latest' }), /no saved conversation to continue/);
});

test('a damaged session file is reported with the way out, and never overwritten half-way', () => {
  const { store } = freshStore();
  fs.mkdirSync(store.dir, { recursive: true });
  fs.writeFileSync(store.fileFor('20261122-101010-abcd'), '{"format": "medchat-session", "turns": [');
  assert.throws(() => store.load('20261122-101010-abcd'), /damaged \(not valid JSON\); remove it with: medchat sessions rm 20261122-101010-abcd/);
  const file = path.join(store.dir, 'x.json');
  writeFileAtomic(file, '{"a":1}');
  writeFileAtomic(file, '{"a":2}');
  assert.equal(fs.readFileSync(file, 'utf8'), '{"a":2}');
  assert.deepEqual(fs.readdirSync(store.dir).filter((n) => n.endsWith('.tmp')), []);
});

test('exports: Markdown and JSON with the whole transcript, reasoning only when asked', async () => {
  const { store } = freshStore();
  const session = ChatSession.open(settings(), { store, system: 'Be brief.' });
  await ask(session, 'What lowers LDL?');
  const data = store.load(session.id);
  const md = sessionToMarkdown(data);
  assert.match(md, /^# What lowers LDL\?/);
  assert.match(md, /## System prompt\n\nBe brief\./);
  assert.match(md, /## You[^\n]*\n\nWhat lowers LDL\?\n\n## medchat\n\nYou said: What lowers LDL\?/);
  assert.ok(!md.includes('Let me think'));
  assert.match(sessionToMarkdown(data, { reasoning: true }), /<summary>Reasoning<\/summary>\n\nLet me think about this\./);
  const json = JSON.parse(sessionToJson(data));
  assert.equal(json.turns[0].answer, 'You said: What lowers LDL?');
  assert.equal(json.turns[0].reasoning, undefined);
  assert.equal(JSON.parse(sessionToJson(data, { reasoning: true })).turns[0].reasoning, 'Let me think about this.');
});

test('rm deletes one session; rm --all deletes them all', async () => {
  const { store } = freshStore();
  const ids: string[] = [];
  for (const q of ['one', 'two', 'three']) {
    const s = ChatSession.open(settings(), { store });
    await ask(s, q);
    ids.push(s.id);
  }
  store.remove(ids[0]!);
  assert.deepEqual(store.list().map((s) => s.id).sort(), ids.slice(1).sort());
  assert.equal(store.removeAll(), 2);
  assert.deepEqual(fs.readdirSync(store.dir), []);
});

test('MEDCHAT_DATA_DIR naming a folder that was there already (a shared one) keeps its mode; only sessions/ is made 0700', async () => {
  const home = tempHome();
  const shared = path.join(home, 'team-share');
  fs.mkdirSync(shared);
  fs.chmodSync(shared, 0o775);
  fs.mkdirSync(path.join(shared, 'sessions'));
  fs.chmodSync(path.join(shared, 'sessions'), 0o755);
  const store = new SessionStore(path.join(shared, 'sessions'));
  const session = ChatSession.open(settings(), { store });
  await ask(session, 'q');
  assert.equal(fs.statSync(shared).mode & 0o777, 0o775, 'the shared folder keeps its mode');
  assert.equal(fs.statSync(store.dir).mode & 0o777, 0o700, "medchat's own sessions folder is private");
  assert.equal(fs.statSync(store.fileFor(session.id)).mode & 0o777, 0o600);
});

test('a session file over 16 MB, a link to /dev/zero or a FIFO: listed as such and refused by load with one line, never read whole', () => {
  const { store } = freshStore();
  fs.mkdirSync(store.dir, { recursive: true });
  const big = store.fileFor('20260101-000000-0001');
  fs.writeFileSync(big, '');
  fs.truncateSync(big, 120 * 1024 * 1024);
  fs.symlinkSync('/dev/zero', store.fileFor('20260101-000000-0002'));
  const listed = new Map(store.list().map((s) => [s.id, s.title]));
  assert.equal(listed.get('20260101-000000-0001'), '(too big to read: 120.0 MB)');
  assert.equal(listed.get('20260101-000000-0002'), '(not a file)');
  assert.throws(() => store.load('20260101-000000-0001'), /^MedchatError: the session file .*0001\.json: is 120\.0 MB, more than the 16\.0 MB it may be; start a new conversation \(without -c\); or remove it with: medchat sessions rm 20260101-000000-0001$/);
  assert.throws(() => store.load('20260101-000000-0002'), /0002\.json: not a regular file but a character device; a session is a regular file; or remove it with: medchat sessions rm 20260101-000000-0002$/);
});
