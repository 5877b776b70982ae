import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { emptyContextState } from '../../src/core/context/context.js';
import { LockTimeoutError, withFileLock } from '../../src/core/io/file-lock.js';
import { nodeFileOps } from '../../src/core/io/file-ops.js';
import { ChatSession } from '../../src/core/sessions/chat-session.js';
import { mergeSessions } from '../../src/core/sessions/session-merge.js';
import { SESSION_FORMAT, SESSION_VERSION, SessionStore, type SessionData, type StoredTurn } from '../../src/core/sessions/store.js';
import { SEED } from '../support/faulty-fs.js';
import { seededRandom } from '../support/prng.js';
import { testSettings } from '../support/settings.js';
import { tempDir } from '../support/temp.js';

/**
 * Several medchat processes writing one session (two `medchat -c` at once, or the chat screen
 * and a one-shot): no question or answer is lost, whoever saves last. Each "process" here is a
 * ChatSession with its own SessionStore, as a separate process would have.
 */
const homes: string[] = [];
after(() => {
  for (const h of homes) fs.rmSync(h, { recursive: true, force: true, maxRetries: 5 });
});
function sessionsDir(): string {
  const h = tempDir('medchat-merge-');
  homes.push(h);
  return path.join(h, 'sessions');
}
// No request is made here: the turns are filled in by hand, as streaming would.
const settings = testSettings('http://127.0.0.1:9', { history: true });
// Thousands of saves: without the fsyncs (what is merged is the point here, not what reaches the platter).
const fast = { ...nodeFileOps, fsync: () => {} };

test('seeded interleavings of several writers: every turn of every writer is in the file, complete, in start order', (t) => {
  const cases = 40;
  for (let c = 0; c < cases; c++) {
    const seed = SEED + c;
    const random = seededRandom(seed);
    const why = `case ${c}, seed ${seed} (replay with MEDCHAT_SEED=${SEED})`;
    const dir = sessionsDir();
    const origin = ChatSession.open(settings, { store: new SessionStore(dir, { fileOps: fast }) });
    const first = origin.ask('earlier question');
    first.answer = 'earlier answer';
    first.status = 'complete';
    origin.saveNow();
    const writers: ChatSession[] = Array.from({ length: 2 + Math.floor(random() * 2) }, () => ChatSession.open(settings, { store: new SessionStore(dir, { fileOps: fast }), resume: origin.id }));
    const expected = new Map<string, string>(); // turn id -> final answer
    const live = new Map<ChatSession, { id: string; user: string; answer: string; status: string } | undefined>();
    const removed = new Set<string>();
    for (let step = 0; step < 40; step++) {
      if (random() < 0.05 && writers.length < 5) {
        // A medchat that starts later loads the others' unfinished turns (as interrupted).
        writers.push(ChatSession.open(settings, { store: new SessionStore(dir, { fileOps: fast }), resume: origin.id }));
      }
      const w = writers[Math.floor(random() * writers.length)]!;
      const turn = live.get(w);
      const r = random();
      if (!turn) {
        const asked = w.ask(`question ${step}`);
        live.set(w, asked as never);
      } else if (r < 0.6) {
        turn.answer += `word${step} `;
        turn.status = 'streaming';
        w.saveNow({ durable: false });
      } else if (r < 0.9) {
        turn.status = 'complete';
        expected.set(turn.id, turn.answer);
        w.saveNow();
        live.set(w, undefined);
      } else {
        // `/retry`: this writer drops its own last question and asks it again.
        w.conversation.turns.pop();
        removed.add(turn.id);
        live.set(w, undefined);
        w.ask(turn.user);
        live.set(w, w.conversation.lastTurn as never);
      }
    }
    for (const w of writers) {
      const turn = live.get(w);
      if (turn) {
        turn.status = 'complete';
        expected.set(turn.id, turn.answer);
      }
      w.saveNow();
    }
    const saved = new SessionStore(dir).load(origin.id);
    const byId = new Map(saved.turns.map((x) => [x.id, x]));
    assert.equal(saved.turns[0]!.answer, 'earlier answer', why);
    for (const [id, answer] of expected) {
      assert.equal(byId.get(id)?.answer, answer, `${why}: turn ${id}`);
      assert.equal(byId.get(id)?.status, 'complete', `${why}: turn ${id}`);
    }
    for (const id of removed) assert.equal(byId.has(id), false, `${why}: a retried question is not back`);
    assert.equal(saved.turns.length, expected.size + 1, why);
    assert.equal(new Set(saved.turns.map((x) => x.id)).size, saved.turns.length, `${why}: ids are unique`);
    const starts = saved.turns.map((x) => x.startedAt);
    assert.deepEqual(starts, [...starts].sort((a, b) => a - b), `${why}: in start order`);
    assert.deepEqual(fs.readdirSync(dir).filter((n) => !n.endsWith('.json')), [], why);
  }
  t.diagnostic(`${cases} interleavings (seed ${SEED})`);
});

function data(turns: Array<Partial<StoredTurn> & { id: string }>, startTurn = 0): SessionData {
  return {
    format: SESSION_FORMAT,
    version: SESSION_VERSION,
    id: '20261123-101010-abcd',
    title: '',
    createdAt: '',
    updatedAt: '',
    model: 'm',
    turns: turns.map((t) => ({ user: t.id, answer: '', reasoning: '', status: 'complete', startedAt: 0, ...t })),
    context: { ...emptyContextState(), startTurn, ...(startTurn ? { summary: { text: 's', throughTurn: startTurn } } : {}) },
  };
}

test('merge: our own turns win, others come from the file when their owner got further, and the summary still starts at the same turn', () => {
  const mine = data(
    [
      { id: 'a', startedAt: 1 },
      { id: 'b', startedAt: 2 },
      { id: 'c', startedAt: 5, answer: 'mine, newer' },
      { id: 'x', startedAt: 6, answer: 'loaded while it streamed', status: 'interrupted' },
      { id: 'k', startedAt: 8, answer: 'its medchat was killed', status: 'interrupted' },
      { id: 'r', startedAt: 9, answer: 'its medchat asked it again (/retry)' },
    ],
    2,
  );
  const disk = data([
    { id: 'a', startedAt: 1 },
    { id: 'o1', startedAt: 0.5, answer: 'from another medchat, older' },
    { id: 'b', startedAt: 2 },
    { id: 'o2', startedAt: 3, answer: 'from another medchat' },
    { id: 'c', startedAt: 5, answer: 'stale copy' },
    { id: 'x', startedAt: 6, answer: 'finished by its own medchat', status: 'complete' },
    { id: 'gone', startedAt: 7 },
    { id: 'k', startedAt: 8, answer: 'its medchat was killed', status: 'streaming' },
  ]);
  const out = mergeSessions(mine, disk.turns, { owned: new Set(['c']), seen: new Set(['a', 'b', 'c', 'x', 'k', 'r', 'gone']) });
  assert.deepEqual(
    out.turns.map((t) => t.id),
    ['o1', 'a', 'b', 'o2', 'c', 'x', 'k'],
  );
  assert.equal(out.turns[4]!.answer, 'mine, newer');
  assert.equal(out.turns[5]!.answer, 'finished by its own medchat', 'its owner got further');
  assert.equal(out.turns[6]!.status, 'interrupted', 'no further since it was loaded: its owner is gone');
  assert.equal(out.context.startTurn, 3, 'the summary covered a and b: it now covers o1, a, b');
  assert.equal(out.context.summary?.throughTurn, 3);
  assert.equal(mine.context.startTurn, 2, 'the live context is not changed');
});

test('a lock left by a process that is gone is broken; one held by a running process is waited for, then reported', async () => {
  const dir = sessionsDir();
  fs.mkdirSync(dir, { recursive: true });
  const lock = path.join(dir, 'x.json.lock');
  const dead = spawnSync(process.execPath, ['-e', '0']).pid!;
  fs.writeFileSync(lock, `${dead} ${os.hostname()}\n`);
  assert.equal(withFileLock(lock, () => 'ran', { waitMs: 100 }), 'ran');
  assert.equal(fs.existsSync(lock), false, 'released');

  const holder = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 20000)'], { stdio: 'ignore' });
  try {
    fs.writeFileSync(lock, `${holder.pid} ${os.hostname()}\n`);
    const start = Date.now();
    assert.throws(() => withFileLock(lock, () => 'ran', { waitMs: 300 }), (e) => e instanceof LockTimeoutError && e.holder === `pid ${holder.pid}`);
    // It gave up after its 300 ms wait instead of waiting for the holder (alive for 20 s).
    assert.ok(Date.now() - start < 15_000, 'the wait is bounded');
    assert.equal(fs.readFileSync(lock, 'utf8'), `${holder.pid} ${os.hostname()}\n`, 'a live lock is left alone');

    // Older than staleMs: broken even though its pid runs (a hung or reused pid).
    const old = new Date(Date.now() - 60_000);
    fs.utimesSync(lock, old, old);
    assert.equal(withFileLock(lock, () => 'ran', { waitMs: 100, staleMs: 10_000 }), 'ran');
  } finally {
    holder.kill('SIGKILL');
  }
});

test('a save that cannot get the lock keeps the file and says who holds it, once', () => {
  const dir = sessionsDir();
  const store = new SessionStore(dir, { lockWaitMs: 200 });
  const s = ChatSession.open(settings, { store });
  s.ask('first');
  const file = store.fileFor(s.id);
  const before = fs.readFileSync(file);
  const holder = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 20000)'], { stdio: 'ignore' });
  try {
    fs.writeFileSync(`${file}.lock`, `${holder.pid} ${os.hostname()}\n`);
    let warnings = 0;
    s.onSaveError = () => warnings++;
    s.ask('second');
    s.saveNow();
    assert.equal(warnings, 1);
    assert.match(s.saveError!.message, new RegExp(`^cannot save the session ${s.id}: another medchat \\(pid ${holder.pid}\\) kept it locked; if none is running, delete .*\\.lock$`));
    assert.deepEqual(fs.readFileSync(file), before);
  } finally {
    holder.kill('SIGKILL');
  }
});
