// Retention with faked dates: the files' times set in the past, `now` given to the core.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { lockLine } from '../../src/core/io/file-lock.js';
import { DAY_MS, applyRetention, parseAge, purgeSessions } from '../../src/core/sessions/retention.js';
import { SessionStore, type SessionData } from '../../src/core/sessions/store.js';
import { tempHome } from '../support/cli.js';

const NOW = Date.parse('2026-11-26T12:00:00Z');

function session(id: string, daysAgo: number, recordedDaysAgo = daysAgo): SessionData {
  const at = new Date(NOW - recordedDaysAgo * DAY_MS).toISOString();
  return {
    format: 'medchat-session',
    version: 1,
    id,
    title: `asked ${daysAgo} days ago`,
    createdAt: at,
    updatedAt: at,
    model: 'm',
    turns: [{ id: 't1', user: `asked ${daysAgo} days ago`, answer: 'an answer', reasoning: '', status: 'complete', startedAt: 0 }],
    context: { startTurn: 0, ratio: 1, samples: 0, compactions: [] },
  };
}

/** A store holding sessions last saved `daysAgo` days before NOW (the file's time set back, as retention reads it). */
function storeWith(entries: [string, number, number?][], Store: typeof SessionStore = SessionStore) {
  const store = new Store(path.join(tempHome(), 'data', 'sessions'));
  for (const [id, daysAgo, recorded] of entries) {
    store.save(session(id, daysAgo, recorded));
    const when = new Date(NOW - daysAgo * DAY_MS);
    fs.utimesSync(store.fileFor(id), when, when);
  }
  return store;
}

const ids = (store: SessionStore) => store.byActivity().map((s) => s.id).sort();

test('retention-days 30 deletes exactly the conversations last saved more than 30 days ago, through SessionStore.remove', () => {
  const removed: string[] = [];
  class Watched extends SessionStore {
    override remove(id: string): void {
      removed.push(id);
      super.remove(id);
    }
  }
  const store = storeWith(
    [
      ['20260101-000000-aaaa', 300],
      ['20261001-000000-bbbb', 31],
      ['20261020-000000-cccc', 29.9],
      ['20261125-000000-dddd', 1],
    ],
    Watched,
  );
  const result = applyRetention(store, 30, NOW);
  assert.deepEqual(result.deleted.map((s) => s.id), ['20260101-000000-aaaa', '20261001-000000-bbbb'], 'oldest first');
  assert.deepEqual(result.locked, []);
  assert.deepEqual(ids(store), ['20261020-000000-cccc', '20261125-000000-dddd']);
  assert.deepEqual(removed.sort(), ['20260101-000000-aaaa', '20261001-000000-bbbb'], 'every deletion goes through remove()');
  assert.deepEqual(applyRetention(store, 30, NOW).deleted, [], 'nothing more the second time');
});

test('a file whose time was set back (a restored backup) is kept while the time recorded in it is recent', () => {
  const store = storeWith([
    ['20261120-000000-aaaa', 90, 2],
    ['20261120-000000-bbbb', 90, 90],
  ]);
  assert.deepEqual(applyRetention(store, 30, NOW).deleted.map((s) => s.id), ['20261120-000000-bbbb']);
  assert.deepEqual(ids(store), ['20261120-000000-aaaa']);
});

test('a damaged or unreadable old session file is judged by its time and deleted too (it may hold patient text)', () => {
  const store = storeWith([['20260101-000000-aaaa', 100]]);
  const file = store.fileFor('20260101-000000-aaaa');
  fs.writeFileSync(file, '{ not json');
  const when = new Date(NOW - 100 * DAY_MS);
  fs.utimesSync(file, when, when);
  assert.deepEqual(applyRetention(store, 30, NOW).deleted.map((s) => s.id), ['20260101-000000-aaaa']);
  assert.equal(fs.existsSync(file), false);
});

test('a session locked by another medchat is kept and counted, never deleted under it; the others still go', () => {
  const store = storeWith([
    ['20260101-000000-aaaa', 100],
    ['20260102-000000-bbbb', 100],
  ]);
  const lock = `${store.fileFor('20260101-000000-aaaa')}.lock`;
  fs.writeFileSync(lock, lockLine()); // held by a live process (this one, as another medchat would hold it)
  const result = applyRetention(store, 30, NOW);
  assert.deepEqual(result.deleted.map((s) => s.id), ['20260102-000000-bbbb']);
  assert.deepEqual(result.locked.map((s) => s.id), ['20260101-000000-aaaa']);
  assert.ok(fs.existsSync(store.fileFor('20260101-000000-aaaa')));
  assert.equal(fs.readFileSync(lock, 'utf8'), lockLine(), 'the other medchat\'s lock is left as it was');
  fs.rmSync(lock);
  assert.deepEqual(applyRetention(store, 30, NOW).deleted.map((s) => s.id), ['20260101-000000-aaaa'], 'deleted once the lock is gone');
});

test('a conversation open in a medchat, however long idle, is kept; once closed it goes; a mark left by a medchat that ended is no hold', async () => {
  const store = storeWith([
    ['20260101-000000-aaaa', 100],
    ['20260102-000000-bbbb', 100],
  ]);
  const { ChatSession } = await import('../../src/core/sessions/chat-session.js');
  const settings = { history: true, model: 'm', contextWindow: 131072, maxTokens: 8192, compressAt: 0.8, compress: 'trim' } as never;
  const open = ChatSession.open(settings, { store, resume: '20260101-000000-aaaa' });
  // Another medchat (this process stands in: its pid is alive) sweeps while the first has it on screen.
  const first = applyRetention(store, 30, NOW);
  assert.deepEqual(first.deleted.map((s) => s.id), ['20260102-000000-bbbb']);
  assert.deepEqual(first.locked.map((s) => s.id), ['20260101-000000-aaaa'], 'open on a screen: kept and counted');
  assert.ok(fs.existsSync(store.fileFor('20260101-000000-aaaa')));
  open.close();
  const mark = path.join(path.dirname(path.dirname(store.fileFor('20260101-000000-aaaa'))), 'open', '20260101-000000-aaaa');
  assert.ok(!fs.existsSync(mark), 'closing ends the mark');
  // A medchat that was killed leaves its mark; a pid that no longer runs holds nothing.
  fs.writeFileSync(mark, '2147483646 ' + (await import('node:os')).hostname() + '\n');
  assert.deepEqual(applyRetention(store, 30, NOW).deleted.map((s) => s.id), ['20260101-000000-aaaa'], 'deleted once nobody has it open');
  assert.deepEqual(fs.readdirSync(path.dirname(store.fileFor('20260101-000000-aaaa'))), [], 'no lock left behind');
  assert.deepEqual(fs.readdirSync(path.dirname(mark)), [], 'no mark left behind');
});

test('a session saved again between the listing and its deletion is kept (asked again under its lock)', () => {
  const store = storeWith([['20260101-000000-aaaa', 100]]);
  class SavedMeanwhile extends SessionStore {
    override removeUnlessLocked(id: string, stillWanted: () => boolean) {
      fs.utimesSync(this.fileFor(id), new Date(NOW), new Date(NOW)); // another medchat's save, just now
      store.save({ ...session(id, 0), updatedAt: new Date(NOW).toISOString() });
      return super.removeUnlessLocked(id, stillWanted);
    }
  }
  const racing = new SavedMeanwhile(store.dir);
  const result = purgeSessions(racing, NOW - 30 * DAY_MS);
  assert.deepEqual(result.deleted, []);
  assert.ok(fs.existsSync(store.fileFor('20260101-000000-aaaa')));
});

test('--dry-run lists what would go and deletes nothing', () => {
  const store = storeWith([
    ['20260101-000000-aaaa', 100],
    ['20261125-000000-dddd', 1],
  ]);
  const result = purgeSessions(store, NOW - 30 * DAY_MS, { dryRun: true });
  assert.deepEqual(result.deleted.map((s) => [s.id, s.title]), [['20260101-000000-aaaa', 'asked 100 days ago']]);
  assert.deepEqual(ids(store), ['20260101-000000-aaaa', '20261125-000000-dddd']);
});

test('ages and dates: 12h, 30d, 2w, 2026-01-01; anything else is refused', () => {
  assert.deepEqual(parseAge('30d', NOW), { cutoffMs: NOW - 30 * DAY_MS, label: 'older than 30 days' });
  assert.deepEqual(parseAge('12h', NOW), { cutoffMs: NOW - 12 * 3_600_000, label: 'older than 12 hours' });
  assert.deepEqual(parseAge('2W', NOW), { cutoffMs: NOW - 14 * DAY_MS, label: 'older than 2 weeks' });
  assert.deepEqual(parseAge('1d', NOW)?.label, 'older than 1 day');
  assert.equal(parseAge('2026-01-01', NOW)?.cutoffMs, new Date(2026, 0, 1).getTime());
  assert.equal(parseAge('2026-01-01', NOW)?.label, 'from before 2026-01-01');
  assert.equal(parseAge('2026-01-01T10:00:00Z', NOW)?.cutoffMs, Date.parse('2026-01-01T10:00:00Z'));
  for (const bad of ['', '30', 'd', '30 days', '-3d', '3m', '2026-02-30', '2026-13-01', 'yesterday', '1e3d']) assert.equal(parseAge(bad, NOW), undefined, bad);
});
