import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { ConfigStore } from '../../src/core/config/config-store.js';
import { emptyContextState } from '../../src/core/context/context.js';
import { Conversation } from '../../src/core/context/conversation.js';
import { MedchatError } from '../../src/core/errors.js';
import { FileWriteError, writeFileAtomic } from '../../src/core/io/atomic-file.js';
import { writeUserFile } from '../../src/core/io/user-file.js';
import { writeFileAtomic as writeDownload } from '../../src/core/retexture/download.js';
import { ChatSession } from '../../src/core/sessions/chat-session.js';
import { SessionStore } from '../../src/core/sessions/store.js';
import { startServiceDouble, type ServiceDouble } from '../../src/stand-in/index.js';
import { sessionToMarkdown, writeExport } from '../../src/core/sessions/export.js';
import { PromptHistory } from '../../src/ui/controller/prompt-history.js';
import { FaultyFileOps, SEED, afterCommit, describe, faultCases, leftovers, type FaultCase } from '../support/faulty-fs.js';
import { testSettings } from '../support/settings.js';
import { tempDir } from '../support/temp.js';

/**
 * Every file medchat writes (sessions, config, exports, prompt history, retexture --output),
 * with a fault injected at each file-system call of the write in turn: the previous file stays
 * byte for byte, no temporary file or lock is left, and the failure is one line.
 */
let double: ServiceDouble;
const homes: string[] = [];
let total = 0;
before(async () => {
  double = await startServiceDouble();
});
after(async () => {
  await double.close();
  for (const h of homes) fs.rmSync(h, { recursive: true, force: true, maxRetries: 5 });
});

function home(): string {
  const h = tempDir('medchat-writes-');
  homes.push(h);
  return h;
}

const oneLine = (e: unknown) => e instanceof MedchatError && !e.message.includes('\n') && e.message.length < 400;

/**
 * The fault matrix for one write. `prepare` puts the previous state back and returns the file
 * that must survive; `act` does the write with `ops` (returning the error it reported, if any).
 */
function everyFault(
  t: { diagnostic(msg: string): void },
  name: string,
  prepare: () => string,
  act: (ops: FaultyFileOps) => unknown,
  opts: { reportsErrors?: boolean; complete?: (text: string) => boolean } = {},
): void {
  const expectError = opts.reportsErrors !== false;
  const file = prepare();
  const probe = new FaultyFileOps();
  assert.equal(act(probe), undefined, `${name}: the write works without a fault (seed ${SEED})`);
  const written = fs.readFileSync(file);
  // What a complete new file looks like (the content may carry a timestamp: same length then).
  const complete = opts.complete ?? ((text: string) => Buffer.byteLength(text) === written.length);
  const cases = faultCases(probe.calls);
  assert.ok(probe.calls.includes('write') && probe.calls.includes('rename'), `${name}: ${probe.calls.join(',')}`);
  for (const c of cases) {
    const target = prepare();
    const before = fs.existsSync(target) ? fs.readFileSync(target) : undefined;
    const ops = new FaultyFileOps({ at: c.at, kind: c.kind });
    const err = act(ops);
    const why = `${name}: ${describe(c)}`;
    assert.ok(ops.fired, why);
    if (afterCommit(c, probe.calls)) {
      assert.equal(err, undefined, why);
      assert.ok(complete(fs.readFileSync(target, 'utf8')), `${why}: the new file is complete`);
    } else {
      if (expectError) assert.ok(oneLine(err), `${why}: one-line MedchatError, got ${String(err)}`);
      if (before === undefined) assert.equal(fs.existsSync(target), false, why);
      else assert.deepEqual(fs.readFileSync(target), before, `${why}: the previous file is intact`);
    }
    assert.deepEqual(leftovers(path.dirname(target)), [], `${why}: nothing left behind`);
  }
  total += cases.length;
  t.diagnostic(`${name}: ${cases.length} fault cases (seed ${SEED})`);
}

function attempt(fn: () => void): unknown {
  try {
    fn();
    return undefined;
  } catch (err) {
    return err;
  }
}

test('writeFileAtomic writes every byte through short writes, 0600, and nothing else in the folder', () => {
  const dir = home();
  const file = path.join(dir, 'a.json');
  const text = 'x'.repeat(5000) + 'é…\n';
  const ops = new FaultyFileOps();
  writeFileAtomic(file, text, { ops });
  assert.equal(fs.readFileSync(file, 'utf8'), text);
  assert.ok(ops.calls.filter((c) => c === 'write').length > 10, 'written in many short pieces');
  assert.equal(fs.statSync(file).mode & 0o777, 0o600);
  assert.deepEqual(fs.readdirSync(dir), ['a.json']);
});

test('a fault at every call of writeFileAtomic leaves the previous file intact', (t) => {
  const dir = home();
  const file = path.join(dir, 'notes.json');
  const old = '{"previous": true}\n';
  everyFault(
    t,
    'writeFileAtomic',
    () => (fs.writeFileSync(file, old), file),
    (ops) => attempt(() => writeFileAtomic(file, JSON.stringify({ next: 'y'.repeat(2000) }), { ops })),
    { reportsErrors: false },
  );
  const err = attempt(() => writeFileAtomic(file, 'z'.repeat(100), { ops: new FaultyFileOps({ at: 2, kind: 'short' }) }));
  assert.ok(err instanceof FileWriteError && err.code === 'ENOSPC', String(err));
  assert.equal(err.message, `cannot write ${file}: the disk is full (ENOSPC)`);
});

test('a session save: a fault at every call keeps the previous session, says so once, and the next save catches up', async (t) => {
  const h = home();
  const store = new SessionStore(path.join(h, 'sessions'));
  const settings = testSettings(double.url, { history: true, idleTimeoutMs: 10_000 });
  const first = ChatSession.open(settings, { store });
  const turn = first.ask('Penicillin allergy: anaphylaxis in 2019. What can she take for otitis media?');
  for await (const _ of first.send(turn)) {
    // drain
  }
  const file = store.fileFor(first.id);
  const good = fs.readFileSync(file);
  let warnings = 0;
  let session: ChatSession | undefined;
  everyFault(
    t,
    'session save',
    () => (fs.writeFileSync(file, good), file),
    (ops) => {
      session = ChatSession.open(settings, { store: new SessionStore(store.dir, { fileOps: ops }), resume: first.id });
      warnings = 0;
      session.onSaveError = () => warnings++;
      session.ask('And if she is pregnant?');
      if (session.saveError) assert.equal(warnings, 1);
      return session.saveError;
    },
    { complete: (text) => JSON.parse(text).turns.length === 2 },
  );
  // The disk has room again: the next save writes everything, the question included.
  fs.writeFileSync(file, good);
  const ops = new FaultyFileOps({ at: 4, kind: 'short' });
  const s = ChatSession.open(settings, { store: new SessionStore(store.dir, { fileOps: ops }), resume: first.id });
  s.onSaveError = () => warnings++;
  warnings = 0;
  s.ask('And if she is pregnant?');
  assert.ok(s.saveError);
  assert.match(s.saveError.message, /^cannot save the session \S+ in .*: the disk is full \(ENOSPC\); free some disk space or set MEDCHAT_DATA_DIR$/);
  assert.deepEqual(fs.readFileSync(file), good);
  ops.heal();
  s.saveNow();
  assert.equal(warnings, 1, 'told once');
  assert.deepEqual(
    store.load(first.id).turns.map((x) => x.user),
    ['Penicillin allergy: anaphylaxis in 2019. What can she take for otitis media?', 'And if she is pregnant?'],
  );
});

test('config set: a fault at every call keeps the previous config file', (t) => {
  const h = home();
  const env = { MEDCHAT_CONFIG_DIR: path.join(h, 'config') };
  new ConfigStore(env).set('base-url', 'https://service.example');
  const file = new ConfigStore(env).path;
  const good = fs.readFileSync(file);
  assert.deepEqual(JSON.parse(good.toString()), { 'base-url': 'https://service.example' });
  everyFault(
    t,
    'config set',
    () => (fs.writeFileSync(file, good), file),
    (ops) => {
      const err = attempt(() => new ConfigStore(env, { fileOps: ops }).set('model', 'medical-small'));
      if (err) assert.equal((err as MedchatError).exitCode, 2);
      return err;
    },
  );
  const err = attempt(() => new ConfigStore(env, { fileOps: new FaultyFileOps({ at: 2, kind: 'EIO' }) }).unset('base-url'));
  assert.match(String((err as Error).message), /^cannot write the config file .*config\.json: the disk reported an input\/output error \(EIO\); nothing was changed; check the disk$/);
});

test('config set keeps unknown keys, tab-indented as before, 0600, and follows a linked config.json', () => {
  const h = home();
  const env = { MEDCHAT_CONFIG_DIR: path.join(h, 'config') };
  const real = path.join(h, 'dotfiles', 'medchat.json');
  fs.mkdirSync(path.dirname(real), { recursive: true });
  fs.mkdirSync(env.MEDCHAT_CONFIG_DIR, { recursive: true });
  fs.writeFileSync(real, '{"someone-else": 1}');
  fs.symlinkSync(real, path.join(env.MEDCHAT_CONFIG_DIR, 'config.json'));
  new ConfigStore(env).set('model', 'm2');
  assert.ok(fs.lstatSync(path.join(env.MEDCHAT_CONFIG_DIR, 'config.json')).isSymbolicLink(), 'the link stays a link');
  assert.equal(fs.readFileSync(real, 'utf8'), '{\n\t"someone-else": 1,\n\t"model": "m2"\n}');
  assert.equal(fs.statSync(real).mode & 0o777, 0o600);
});

test('sessions export -o: a fault at every call keeps the file that was there; a link is refused', (t) => {
  const dir = home();
  const file = path.join(dir, 'summary.md');
  everyFault(
    t,
    'sessions export -o',
    () => (fs.writeFileSync(file, '# an older export\n'), file),
    (ops) => attempt(() => writeUserFile(file, '# medchat\n\n' + 'The patient… '.repeat(300), ops)),
  );
  const outside = path.join(dir, 'outside.txt');
  fs.writeFileSync(outside, 'not yours');
  const link = path.join(dir, 'link.md');
  fs.symlinkSync(outside, link);
  const err = attempt(() => writeUserFile(link, 'conversation'));
  assert.ok(oneLine(err) && (err as MedchatError).exitCode === 2, String(err));
  assert.match((err as Error).message, /^cannot write .*link\.md: it is a symbolic link, and medchat does not write through links \(ELOOP\); nothing was written; give the real path instead of the link$/);
  assert.equal(fs.readFileSync(outside, 'utf8'), 'not yours');
  assert.ok(fs.lstatSync(link).isSymbolicLink());
});

test('/export: a fault at every call keeps the previous export', (t) => {
  const dir = home();
  const c = new Conversation('Be brief.');
  const turn = c.addTurn('What is the maximum daily dose of paracetamol?');
  turn.answer = '4 g in 24 hours for adults over 50 kg. '.repeat(40);
  turn.status = 'complete';
  everyFault(
    t,
    '/export',
    () => (fs.writeFileSync(path.join(dir, 'chat.md'), 'older\n'), path.join(dir, 'chat.md')),
    (ops) =>
      attempt(() =>
        writeExport(
          path.join(dir, 'chat.md'),
          sessionToMarkdown({ data: { format: 'medchat-session', version: 1, id: 'x', title: 'q', createdAt: '', updatedAt: '', model: 'medical-large-latest', system: c.system, turns: c.turns, context: emptyContextState() }, saved: false }),
          ops,
        ),
      ),
  );
  assert.equal(fs.statSync(path.join(dir, 'chat.md')).mode & 0o777, 0o600);
});

test('prompt history: a fault at every call keeps the previous history, and the chat goes on', (t) => {
  const dir = home();
  const file = path.join(dir, 'prompt-history.jsonl');
  const earlier = Array.from({ length: 30 }, (_, i) => JSON.stringify(`earlier question ${i}`)).join('\n') + '\n';
  everyFault(
    t,
    'prompt history',
    () => (fs.writeFileSync(file, earlier), file),
    (ops) => {
      const h = new PromptHistory(file, ops);
      h.add('a new question');
      assert.equal(h.all.at(-1), 'a new question', 'kept in memory whatever the disk says');
      return undefined;
    },
    { reportsErrors: false },
  );
});

test('retexture --output: a fault at every call keeps the previous image', async (t) => {
  const dir = home();
  const file = path.join(dir, 'result.png');
  const image = Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), Buffer.alloc(3000, 7)]);
  // writeFileAtomic in download.ts is async (its mkdir): the same matrix, awaited.
  const run = async (ops: FaultyFileOps) => {
    try {
      await writeDownload(file, image, ops);
      return undefined;
    } catch (err) {
      return err;
    }
  };
  const probe = new FaultyFileOps();
  fs.writeFileSync(file, 'old image');
  assert.equal(await run(probe), undefined);
  const cases: FaultCase[] = faultCases(probe.calls);
  for (const c of cases) {
    fs.writeFileSync(file, 'old image');
    const err = await run(new FaultyFileOps({ at: c.at, kind: c.kind }));
    if (afterCommit(c, probe.calls)) assert.deepEqual(fs.readFileSync(file), image, describe(c));
    else {
      assert.ok(oneLine(err) && (err as MedchatError).exitCode === 2, `${describe(c)}: ${String(err)}`);
      assert.equal(fs.readFileSync(file, 'utf8'), 'old image', describe(c));
    }
    assert.deepEqual(leftovers(dir), [], describe(c));
  }
  total += cases.length;
  t.diagnostic(`retexture --output: ${cases.length} fault cases (seed ${SEED}); ${total} in this file`);
});

test('a device, pipe or folder at the destination is refused, never replaced', () => {
  const dir = home();
  const fifo = path.join(dir, 'pipe');
  execFileSync('mkfifo', [fifo]);
  assert.throws(() => writeUserFile(fifo, 'x'), /it is not a regular file \(a device, pipe or socket\) \(ENOTREG\)/);
  assert.ok(fs.lstatSync(fifo).isFIFO());
  assert.throws(() => writeUserFile(dir, 'x'), /it is a folder \(EISDIR\)/);
  assert.throws(() => writeFileAtomic('/dev/null', 'x'), /ENOTREG/);
  assert.ok(fs.statSync('/dev/null').isCharacterDevice());
});
