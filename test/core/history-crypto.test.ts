import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { MedchatError } from '../../src/core/errors.js';
import { emptyContextState } from '../../src/core/context/context.js';
import { forgetMasterKeys, HistoryKeyError, HistoryVault, seal, unseal } from '../../src/core/sessions/history-crypto.js';
import { readPromptHistory } from '../../src/core/sessions/prompt-history-file.js';
import { SESSION_FORMAT, SESSION_VERSION, SessionStore, type SessionData } from '../../src/core/sessions/store.js';
import { PromptHistory } from '../../src/ui/controller/prompt-history.js';
import { FaultyFileOps, SEED, describe, faultCases } from '../support/faulty-fs.js';
import { filesUnder } from '../support/cli.js';
import { tempDir } from '../support/temp.js';

const KEY_CMD = 'echo 4a1f0c7e9b2d3c5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6';
const WORDS = ['fennecquill', 'moraineplum', 'thistlebrook', 'cobaltyarrow', 'wickerlume'];

function vault(dir: string, ops?: FaultyFileOps, command: string | undefined = KEY_CMD, canAsk = false): HistoryVault {
  return new HistoryVault(dir, { ops, context: () => ({ env: process.env, command, canAsk }) });
}

function session(id: string, i: number): SessionData {
  const now = new Date(Date.UTC(2026, 0, 1 + i)).toISOString();
  return {
    format: SESSION_FORMAT,
    version: SESSION_VERSION,
    id,
    title: `about ${WORDS[i]}`,
    createdAt: now,
    updatedAt: now,
    model: 'm',
    turns: [{ id: 't1', user: `about ${WORDS[i]}`, answer: `an answer on ${WORDS[i]}`, reasoning: `thinking of ${WORDS[i]}`, status: 'complete', startedAt: 1 }],
    context: emptyContextState(),
  };
}

const IDS = ['20260101-100000-aaa1', '20260102-100000-aaa2', '20260103-100000-aaa3'];
const PROMPTS = [`typed ${WORDS[3]}`, `typed ${WORDS[4]}`];

/** Files under `dir` holding any of the words. */
function plainFound(dir: string): string[] {
  return filesUnder(dir).filter((f) => WORDS.some((w) => fs.readFileSync(f).toString('latin1').includes(w)));
}

const leftoversUnder = (dir: string) => filesUnder(dir).filter((f) => f.endsWith('.tmp') || f.endsWith('.lock'));

function attempt(fn: () => unknown): unknown {
  try {
    fn();
    return undefined;
  } catch (err) {
    return err;
  }
}

/** Every session and the prompt history read back as written (plain or sealed, whichever each file is now). */
function assertAllReadable(dir: string, why: string): void {
  const store = new SessionStore(path.join(dir, 'sessions'), { encrypt: false, vault: vault(dir) });
  IDS.forEach((id, i) => {
    const got = store.load(id);
    assert.equal(got.turns[0]!.answer, `an answer on ${WORDS[i]}`, `${why}: ${id}`);
  });
  assert.deepEqual(readPromptHistory(path.join(dir, 'prompt-history.jsonl'), vault(dir))?.entries, PROMPTS, `${why}: prompt history`);
}

test('AES-256-GCM: a sealed text opens only with its key and its label; a changed byte is refused', () => {
  const key = randomBytes(32);
  const sealed = seal(key, `secret ${WORDS[0]}`, 'medchat:a:body');
  assert.ok(!Buffer.from(sealed, 'base64').toString('latin1').includes(WORDS[0]!));
  assert.equal(unseal(key, sealed, 'medchat:a:body')?.toString(), `secret ${WORDS[0]}`);
  assert.equal(unseal(randomBytes(32), sealed, 'medchat:a:body'), undefined);
  assert.equal(unseal(key, sealed, 'medchat:b:body'), undefined, 'bound to its id and part');
  const b = Buffer.from(sealed, 'base64');
  b[b.length - 1]! ^= 1;
  assert.equal(unseal(key, b.toString('base64'), 'medchat:a:body'), undefined);
});

test('a session file sealed for another id is refused, not opened under the wrong name', () => {
  const dir = tempDir('medchat-crypto-');
  const store = new SessionStore(path.join(dir, 'sessions'), { encrypt: true, vault: vault(dir) });
  store.save(session(IDS[0]!, 0));
  fs.copyFileSync(store.fileFor(IDS[0]!), store.fileFor(IDS[1]!));
  const err = attempt(() => store.load(IDS[1]!));
  assert.ok(err instanceof MedchatError && /damaged/.test(err.message), String(err));
});

test('prompt history with encryption on: the file holds none of the prompts, and a new run reads them back', () => {
  const dir = tempDir('medchat-crypto-');
  const file = path.join(dir, 'prompt-history.jsonl');
  const h = new PromptHistory(file, undefined, { vault: vault(dir), encrypt: true });
  for (const p of PROMPTS) h.add(p);
  assert.deepEqual(plainFound(dir), []);
  assert.deepEqual(new PromptHistory(file, undefined, { vault: vault(dir), encrypt: false }).all, PROMPTS, 'read back (and kept sealed with encryption off)');
  forgetMasterKeys();
  const wrong = new PromptHistory(file, undefined, { vault: vault(dir, undefined, 'echo wrong'), encrypt: true });
  assert.deepEqual(wrong.all, [], 'a wrong key reads nothing');
  wrong.add('new prompt');
  assert.deepEqual(new PromptHistory(file, undefined, { vault: vault(dir), encrypt: true }).all, PROMPTS, 'and never replaces the file');
});

test('a keyring locked with a passphrase, without a terminal: one line saying to run it in a terminal, nothing written', () => {
  forgetMasterKeys();
  const dir = tempDir('medchat-crypto-');
  fs.writeFileSync(path.join(dir, 'keyring.json'), JSON.stringify({ format: 'medchat-keyring', version: 1, source: 'passphrase', salt: 'AAAAAAAAAAAAAAAAAAAAAA==', check: 'x', keys: {} }));
  const before = fs.readFileSync(path.join(dir, 'keyring.json'));
  const err = attempt(() => vault(dir, undefined, undefined, false).master(true));
  assert.ok(err instanceof HistoryKeyError, String(err));
  assert.match(err.message, /^encrypted history is locked with a passphrase and there is no terminal to ask for it; run medchat in a terminal to type it$/);
  assert.ok(!err.message.includes('\n'));
  assert.equal(err.exitCode, 2);
  assert.deepEqual(fs.readFileSync(path.join(dir, 'keyring.json')), before);
});

test('a session whose key was destroyed is listed as such among the others, and opening it says so in one line', () => {
  const dir = tempDir('medchat-crypto-');
  const store = new SessionStore(path.join(dir, 'sessions'), { encrypt: true, vault: vault(dir) });
  store.save(session(IDS[0]!, 0));
  store.save(session(IDS[1]!, 1));
  store.vault.shred([IDS[0]!]);
  const list = store.list();
  assert.deepEqual(
    list.map((s) => [s.id, s.title]).sort(),
    [
      [IDS[0], '(encrypted: its key was destroyed)'],
      [IDS[1], `about ${WORDS[1]}`],
    ],
  );
  const err = attempt(() => store.load(IDS[0]!));
  assert.ok(err instanceof HistoryKeyError && err.exitCode === 2, String(err));
  assert.match(err.message, /was destroyed \(or never stored\), so it cannot be read; remove it with: medchat sessions rm 20260101-100000-aaa1$/);
});

test('a missing keyring beside encrypted sessions: one line, exit 2, and no new keyring made over them', () => {
  const dir = tempDir('medchat-crypto-');
  new SessionStore(path.join(dir, 'sessions'), { encrypt: true, vault: vault(dir) }).save(session(IDS[0]!, 0));
  fs.rmSync(path.join(dir, 'keyring.json'));
  forgetMasterKeys();
  const before = fs.readFileSync(path.join(dir, 'sessions', `${IDS[0]}.json`));
  const store = new SessionStore(path.join(dir, 'sessions'), { encrypt: true, vault: vault(dir) });
  for (const act of [() => store.prepare(), () => store.save(session(IDS[1]!, 1)), () => store.list(), () => store.load(IDS[0]!)]) {
    const err = attempt(act);
    assert.ok(err instanceof HistoryKeyError && err.exitCode === 2, String(err));
    assert.match(err.message, /^the keyring .*keyring\.json is missing, so encrypted conversations cannot be opened; without it they cannot be recovered, only deleted$/);
  }
  assert.equal(fs.existsSync(path.join(dir, 'keyring.json')), false);
  assert.deepEqual(fs.readdirSync(path.join(dir, 'sessions')), [`${IDS[0]}.json`]);
  assert.deepEqual(fs.readFileSync(path.join(dir, 'sessions', `${IDS[0]}.json`)), before);
});

/**
 * A folder of plain history (three sessions, the prompt history) and its keyring, at `work`:
 * made once in `template`, copied to the same path for each case (so the master key opened once is the same).
 */
function plainTemplate(): string {
  const template = tempDir('medchat-crypto-tpl-');
  vault(template).master(true); // the keyring (its own faults: the test below)
  const store = new SessionStore(path.join(template, 'sessions'), { encrypt: false, vault: vault(template) });
  IDS.forEach((id, i) => store.save(session(id, i)));
  fs.writeFileSync(path.join(template, 'prompt-history.jsonl'), PROMPTS.map((p) => JSON.stringify(p)).join('\n') + '\n', { mode: 0o600 });
  return template;
}

function restore(template: string, work: string): void {
  fs.rmSync(work, { recursive: true, force: true });
  fs.cpSync(template, work, { recursive: true });
}

test('making the keyring under a fault at every write: no keyring or a complete one, one line, nothing left behind', (t) => {
  const dir = tempDir('medchat-crypto-ring-');
  const ring = path.join(dir, 'keyring.json');
  const probe = new FaultyFileOps();
  vault(dir, probe).master(true);
  const cases = faultCases(probe.calls);
  for (const c of cases) {
    fs.rmSync(dir, { recursive: true, force: true });
    forgetMasterKeys();
    const ops = new FaultyFileOps({ at: c.at, kind: c.kind });
    const err = attempt(() => vault(dir, ops).master(true));
    const why = describe(c);
    assert.ok(ops.fired, why);
    if (err !== undefined) {
      assert.ok(err instanceof MedchatError && !err.message.includes('\n'), `${why}: one line, got ${String(err)}`);
      assert.equal(fs.existsSync(ring), false, why);
    } else assert.doesNotThrow(() => vault(dir).master(false), why);
    assert.deepEqual(leftoversUnder(dir), [], why);
  }
  t.diagnostic(`keyring: ${cases.length} fault cases (seed ${SEED})`);
});

test('encrypting existing history under a fault at every write: every session and the prompt history stay readable, and a rerun finishes the job', (t) => {
  const template = plainTemplate();
  const work = tempDir('medchat-crypto-work-');
  const storeWith = (ops?: FaultyFileOps) => new SessionStore(path.join(work, 'sessions'), { encrypt: true, fileOps: ops, vault: vault(work, ops) });

  restore(template, work);
  const probe = new FaultyFileOps();
  assert.deepEqual(storeWith(probe).encryptAll(), { sessions: 3, prompts: true });
  assert.deepEqual(plainFound(work), []);
  assertAllReadable(work, 'probe');
  const cases = faultCases(probe.calls);
  for (const c of cases) {
    restore(template, work);
    const ops = new FaultyFileOps({ at: c.at, kind: c.kind });
    const err = attempt(() => storeWith(ops).encryptAll());
    const why = describe(c);
    assert.ok(ops.fired, why);
    if (err !== undefined) assert.ok(err instanceof MedchatError && !err.message.includes('\n'), `${why}: one line, got ${String(err)}`);
    assert.deepEqual(leftoversUnder(work), [], `${why}: no temporary file or lock left`);
    assertAllReadable(work, why);
    storeWith().encryptAll();
    assert.deepEqual(plainFound(work), [], `${why}: the rerun encrypted the rest`);
    assertAllReadable(work, `${why}, after the rerun`);
  }
  t.diagnostic(`encrypt: ${cases.length} fault cases over ${probe.calls.length} calls (seed ${SEED})`);
});

test('decrypting history under a fault at every write: every file stays readable, and a rerun finishes and destroys the keys', (t) => {
  const plain = plainTemplate();
  const template = tempDir('medchat-crypto-tpl-');
  restore(plain, template);
  forgetMasterKeys();
  new SessionStore(path.join(template, 'sessions'), { encrypt: true, vault: vault(template) }).encryptAll();
  forgetMasterKeys();
  const work = tempDir('medchat-crypto-work-');
  const storeWith = (ops?: FaultyFileOps) => new SessionStore(path.join(work, 'sessions'), { encrypt: false, fileOps: ops, vault: vault(work, ops) });
  const keys = () => Object.keys(JSON.parse(fs.readFileSync(path.join(work, 'keyring.json'), 'utf8')).keys);

  restore(template, work);
  const probe = new FaultyFileOps();
  assert.deepEqual(storeWith(probe).decryptAll(), { sessions: 3, prompts: true });
  assertAllReadable(work, 'probe');
  assert.deepEqual(keys(), []);
  const cases = faultCases(probe.calls);
  for (const c of cases) {
    restore(template, work);
    const ops = new FaultyFileOps({ at: c.at, kind: c.kind });
    const err = attempt(() => storeWith(ops).decryptAll());
    const why = describe(c);
    assert.ok(ops.fired, why);
    if (err !== undefined) assert.ok(err instanceof MedchatError && !err.message.includes('\n'), `${why}: one line, got ${String(err)}`);
    assert.deepEqual(leftoversUnder(work), [], `${why}: nothing left behind`);
    assertAllReadable(work, why);
    storeWith().decryptAll();
    assertAllReadable(work, `${why}, after the rerun`);
    assert.deepEqual(keys(), [], `${why}: the keys destroyed after the rerun`);
  }
  t.diagnostic(`decrypt: ${cases.length} fault cases over ${probe.calls.length} calls (seed ${SEED})`);
});
