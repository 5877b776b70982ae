// sessions search in core: the match rule, the order, the lines shown, and the byte pre-filter
// never hiding a conversation the exact comparison would find (seeded, generated).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { cutToColumns, textWidth } from '../../src/core/text/width.js';
import { excerpt, foldText, hitLines, mayMatch, prefilters, searchSessions, searchWords, WORKER_THRESHOLD, type SearchOptions, type SearchResult } from '../../src/core/sessions/search.js';
import { forgetMasterKeys, HistoryKeyError, HistoryVault } from '../../src/core/sessions/history-crypto.js';
import { SessionStore, type SessionData, type StoredTurn } from '../../src/core/sessions/store.js';
import { Prng } from '../support/prng.js';
import { tempHome } from '../support/cli.js';

const NOW = Date.now();
const MIN = 60_000;

function turn(user: string, answer: string, reasoning = ''): StoredTurn {
  return { id: `t${Math.random()}`, user, answer, reasoning, status: 'complete', startedAt: 0 };
}

function session(id: string, turns: StoredTurn[], extra: Partial<SessionData> = {}): SessionData {
  return {
    format: 'medchat-session',
    version: 1,
    id,
    title: turns[0]?.user.split('\n')[0] ?? '',
    createdAt: new Date(0).toISOString(),
    updatedAt: new Date(0).toISOString(),
    model: 'm',
    turns,
    context: { startTurn: 0, ratio: 1, samples: 0, compactions: [] },
    ...extra,
  };
}

/** Sessions saved `minutesAgo` before now (file times set, as a save would have). */
function storeWith(entries: [SessionData, number][]): SessionStore {
  const store = new SessionStore(path.join(tempHome(), 'data', 'sessions'));
  for (const [data, minutesAgo] of entries) {
    store.save(data);
    const when = new Date(NOW - minutesAgo * MIN);
    fs.utimesSync(store.fileFor(data.id), when, when);
  }
  return store;
}

const A = '20261101-100000-aaaa';
const B = '20261102-100000-bbbb';
const C = '20261103-100000-cccc';

function clinic() {
  return storeWith([
    [session(A, [turn('Knee pain after running', 'Rest, ice.\nIbuprofen 400 mg with food.'), turn('And for the swelling?', 'Elevate the leg.')]), 30],
    [session(B, [turn('Headache since Monday', 'Paracetamol 1 g.'), turn('Any red flags?', 'Sudden severe headache: call 999.\nAlso: fever and neck stiffness.')], { role: 'soap' }), 10],
    [session(C, [turn('Œdème des chevilles', 'Surélever les jambes; RÉSUMÉ du traitement.', 'thinking about ibuprofen here')]), 20],
  ]);
}

test('newest first, each with its matching line, turn number and part; every word must be there', () => {
  const store = clinic();
  const r = searchSessions(store, { words: ['ibuprofen'] });
  assert.deepEqual(r.hits.map((h) => h.id), [A], 'reasoning is not searched unless asked');
  assert.deepEqual(r.hits[0]!.lines, [{ turn: 1, part: 'answer', excerpt: 'Ibuprofen 400 mg with food.', words: 1 }]);

  const both = searchSessions(store, { words: ['HEADACHE', 'neck'] });
  assert.deepEqual(both.hits.map((h) => h.id), [B]);
  assert.deepEqual(
    both.hits[0]!.lines.map((l) => [l.turn, l.part, l.excerpt]),
    [
      [1, 'question', 'Headache since Monday'],
      [2, 'answer', 'Sudden severe headache: call 999.'],
      [2, 'answer', 'Also: fever and neck stiffness.'],
    ],
  );
  assert.equal(both.hits[0]!.matchingLines, 3);
  assert.deepEqual(searchSessions(store, { words: ['headache', 'ibuprofen'] }).hits, [], 'words in two different conversations: none matches');

  const withReasoning = searchSessions(store, { words: ['ibuprofen'], reasoning: true });
  assert.deepEqual(withReasoning.hits.map((h) => h.id), [C, A], 'newest first: C (20 min ago) before A (30)');
  assert.deepEqual(withReasoning.hits[0]!.lines.map((l) => [l.turn, l.part]), [[1, 'reasoning']]);
});

test('case and accents do not count, either way; a word may be part of a longer one', () => {
  const store = clinic();
  for (const q of ['œdeme', 'ŒDÈME', 'resume', 'résumé', 'surelever', 'chevill']) {
    assert.deepEqual(searchSessions(store, { words: [q] }).hits.map((h) => h.id), [C], q);
  }
  // Decomposed accents in the text (e + U+0301), as some systems paste them.
  const nfd = storeWith([[session(A, [turn('re\u0301sume\u0301 of care', 'ok')]), 1]]);
  assert.deepEqual(searchSessions(nfd, { words: ['résumé'] }).hits.map((h) => h.id), [A]);
  assert.deepEqual(searchSessions(nfd, { words: ['RESUME'] }).hits.map((h) => h.id), [A]);
  assert.deepEqual(searchWords(['  Knee PAIN ', 'knee']), ['knee', 'pain']);
});

test('words that are only the file\'s own field names or values (status, complete, reasoning, medchat) match nothing', () => {
  const store = clinic();
  for (const q of ['status', 'complete', 'reasoning', 'medchat', 'format', 'turns', 'startTurn', 'title']) {
    assert.deepEqual(searchSessions(store, { words: [q] }).hits, [], q);
  }
});

test('--since, --role and --limit', () => {
  const store = clinic();
  assert.deepEqual(searchSessions(store, { words: ['e'], since: NOW - 25 * MIN }).hits.map((h) => h.id), [B, C]);
  assert.deepEqual(searchSessions(store, { words: ['e'], role: 'SOAP' }).hits.map((h) => h.id), [B]);
  const limited = searchSessions(store, { words: ['e'], limit: 2 });
  assert.deepEqual(limited.hits.map((h) => h.id), [B, C]);
  assert.equal(limited.more, true);
  const all = searchSessions(store, { words: ['e'], limit: 0 });
  assert.deepEqual(all.hits.map((h) => h.id), [B, C, A]);
  assert.equal(all.more, false);
});

test('hostile text in a session is shown safe and on one line, and a long line is cut around its match to the width', () => {
  const hostile = 'before \u001b]52;c;ZXZpbA==\u0007\u001b[2J\u202eevil\u202c aspirin \u009b31m end';
  const long = 'x'.repeat(5000) + ' warfarin ' + 'y'.repeat(5000);
  const store = storeWith([[session(A, [turn('q', `${hostile}\n${long}`), turn('\u001b[31mwarfarin?', 'no')]), 1]]);
  const hit = searchSessions(store, { words: ['aspirin', 'warfarin'], excerptWidth: 60 }).hits[0]!;
  for (const l of hit.lines) {
    assert.doesNotMatch(l.excerpt, /[\u0000-\u001f\u007f-\u009f\u202a-\u202e]/, 'no control, escape or bidi character');
    assert.ok(textWidth(l.excerpt) <= 60, `at most 60 columns: ${l.excerpt}`);
  }
  const wide = searchSessions(store, { words: ['aspirin'], excerptWidth: 200 }).hits[0]!;
  assert.equal(wide.lines[0]!.excerpt, 'before ␛]52;c;ZXZpbA==␇␛[2J<U+202E>evil<U+202C> aspirin �31m end');
  const cut = hit.lines.find((l) => l.excerpt.includes('warfarin') && l.excerpt.includes('x'))!;
  assert.match(cut.excerpt, /^…x+ warfarin y+…$/);
  for (const line of hitLines(hit, { width: 40, lines: 5 })) assert.ok(textWidth(line) <= 40, line);
});

test('cutting to columns counts wide characters twice and never splits one', () => {
  assert.equal(cutToColumns('abcdef', 4), 'abc…');
  assert.equal(cutToColumns('abc', 3), 'abc');
  assert.equal(cutToColumns('胸痛胸痛', 5), '胸痛…');
  assert.equal(textWidth(cutToColumns('胸痛胸痛', 4)), 3);
  // Emoji terminals draw in different widths are measured at their larger width and never cut inside.
  for (const e of ['⚠️', '👍🏽', '👩🏽‍🔬']) {
    for (let w = 1; w <= 12; w++) {
      const cut = cutToColumns(`ab ${e} ${e} cd`, w);
      assert.ok(textWidth(cut) <= w, `${e} at ${w}: ${cut}`);
      assert.ok(cut.replace('…', '').split(e).every((part) => !/[\u200D\u{1F3FB}-\u{1F3FF}\uFE0F]/u.test(part)), `${e} whole at ${w}: ${JSON.stringify(cut)}`);
    }
  }
  assert.equal(excerpt('short line', 'short line', ['line'], 100), 'short line');
});

test('generated: the byte pre-filter never turns away a session the folded comparison matches (seeded)', () => {
  const seed = Number(process.env.MEDCHAT_SEED ?? Math.floor(Math.random() * 2 ** 31));
  const prng = new Prng(seed);
  // Letters with and without accents, in both cases and both Unicode forms; characters JSON escapes; wide ones.
  const alphabet = [...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 .,;:-/', ...'éÉèêëàâäÀÂçÇñÑöÖüÜßœŒøØåÅıİłŁşŞžŽ', 'e\u0301', 'A\u030a', 'K', 'ǅ', 'ﬁ', '"', '\\', '\n', '\t', '\u001b', '胸', '😀', 'Σ', 'ς', 'σ'];
  let cases = 0;
  let withAccents = 0;
  for (let i = 0; i < 3000; i++) {
    const text = Array.from({ length: prng.int(1, 40) }, () => prng.pick(alphabet)).join('');
    const folded = foldText(text);
    // A word taken from what the text folds to (so the exact comparison matches), typed in any case or with accents.
    const chars = Array.from(folded);
    const start = prng.int(0, Math.max(0, chars.length - 1));
    let word = chars.slice(start, start + prng.int(1, 6)).join('').split(/\s+/)[0] ?? '';
    if (!word) continue;
    if (prng.chance(0.3)) word = word.toUpperCase();
    const words = searchWords([word]);
    if (words.length === 0 || !words.every((w) => folded.includes(w))) continue;
    const key = prng.pick(['user', 'answer'] as const);
    const data = session(A, [turn(key === 'user' ? text : 'q', key === 'answer' ? text : 'a')]);
    const raw = Buffer.from(JSON.stringify(data, null, 1) + '\n');
    const compact = Buffer.from(JSON.stringify(data));
    cases++;
    if (/[^\x00-\x7f]/.test(text)) withAccents++;
    assert.ok(mayMatch(raw, prefilters(words)), `seed ${seed}: ${JSON.stringify(word)} in ${JSON.stringify(text)} was turned away`);
    assert.ok(mayMatch(compact, prefilters(words)), `seed ${seed}: ${JSON.stringify(word)} in a file without the indent`);
  }
  console.log(`search pre-filter: seed ${seed}, ${cases} cases (${withAccents} with non-ASCII text)`);
  assert.ok(cases > 1000);
});

/** A seeded folder of more conversations than the worker threshold: plain, or encrypted (then one key destroyed), with one damaged file. */
function manyConversations(seed: number, encrypt: boolean): { store: SessionStore; dataDir: string; vault: HistoryVault } {
  const prng = new Prng(seed);
  const dataDir = path.join(tempHome(), 'data');
  const vault = new HistoryVault(dataDir, { context: () => ({ env: process.env, command: 'echo search-worker-test-key-0123456789abcdef', canAsk: false }) });
  const store = new SessionStore(path.join(dataDir, 'sessions'), { encrypt: false, vault });
  const common = ['patient', 'chest', 'pain', 'dose', 'renal', 'review', 'résumé', 'ŒDÈME', 'naïve', 'Müller', 'status'];
  const rare = ['zanubrutinib', 'ondansetron', 'Zürich'];
  const words = (n: number) => Array.from({ length: n }, () => (prng.chance(0.03) ? prng.pick(rare) : prng.pick(common))).join(' ');
  const count = WORKER_THRESHOLD + 60;
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const id = `20261001-${String(100000 + i).slice(1)}0-${i.toString(16).padStart(4, '0')}`;
    const turns = Array.from({ length: prng.int(1, 4) }, () => turn(words(prng.int(3, 12)), `${words(prng.int(5, 20))}\n${words(prng.int(2, 8))}`, prng.chance(0.3) ? words(6) : ''));
    store.save(session(id, turns, prng.chance(0.2) ? { role: 'soap' } : {}), { durable: false });
    ids.push(id);
  }
  if (encrypt) store.encryptAll(); // every key in one write of the keyring
  ids.forEach((id, i) => {
    const when = new Date(NOW - (count - i) * MIN);
    fs.utimesSync(store.fileFor(id), when, when);
  });
  // One damaged file and, encrypted, one whose key was destroyed: both counted unreadable either way.
  const damaged = store.fileFor(ids[prng.int(0, count - 1)]!);
  const stamp = fs.statSync(damaged).mtime;
  fs.writeFileSync(damaged, '{"format":"medchat-sealed","version":1,"id":"x"');
  fs.utimesSync(damaged, stamp, stamp);
  if (encrypt) vault.shred([ids[prng.int(0, count - 1)]!]);
  return { store, dataDir, vault };
}

const QUERIES: SearchOptions[] = [
  { words: ['zanubrutinib'] },
  { words: ['zanubrutinib'], limit: 0 },
  { words: ['ZURICH', 'ondansetron'], limit: 0 },
  { words: ['resume'], limit: 5 },
  { words: ['patient', 'pain'], limit: 0 },
  { words: ['oedeme'], limit: 0 },
  { words: ['zolmitriptan'] },
  { words: ['status'] },
  { words: ['naive'], role: 'SOAP', limit: 0 },
  { words: ['muller'], since: NOW - 100 * MIN, limit: 0 },
  { words: ['review'], reasoning: true, limit: 30 },
  { words: ['x"y'] },
];

/** A result without who read what (the one thing that may differ). */
const same = (r: SearchResult) => ({ ...r, inWorker: undefined });

for (const encrypt of [false, true]) {
  test(`${encrypt ? 'encrypted' : 'plain'}: over ${WORKER_THRESHOLD} conversations a worker thread reads beside this one, and finds what one thread finds, in the same order (seeded)`, () => {
    const seed = Number(process.env.MEDCHAT_SEED ?? Math.floor(Math.random() * 2 ** 31));
    const { store } = manyConversations(seed, encrypt);
    let hits = 0;
    for (const q of QUERIES) {
      const alone = searchSessions(store, { ...q, worker: false });
      const what = `seed ${seed}, ${JSON.stringify(q)}`;
      assert.equal(alone.inWorker, 0, what);
      // The worker reading every file, and the worker beside this thread, as a search over many files runs by default.
      const byWorker = searchSessions(store, { ...q, worker: 'all' });
      assert.deepEqual(same(byWorker), same(alone), `worker alone, ${what}`);
      assert.equal(byWorker.inWorker, byWorker.read, `every file read by the worker, ${what}`);
      assert.deepEqual(same(searchSessions(store, { ...q, worker: true })), same(alone), `both threads, ${what}`);
      assert.deepEqual(same(searchSessions(store, q)), same(alone), `the default, ${what}`);
      hits += alone.hits.length;
    }
    const full = searchSessions(store, { words: ['x"y'], worker: false }); // a quote: no pre-filter, every file parsed
    assert.equal(full.unreadable, encrypt ? 2 : 1, `the damaged file${encrypt ? ' and the one whose key was destroyed' : ''} counted, seed ${seed}`);
    assert.equal(full.read, WORKER_THRESHOLD + 60 - (encrypt ? 1 : 0), 'a damaged file is read, one without its key is not');
    console.log(`search worker (${encrypt ? 'encrypted' : 'plain'}): seed ${seed}, ${WORKER_THRESHOLD + 60} conversations, ${QUERIES.length} queries, ${hits} hits`);
  });
}

test('encrypted, without its master key: the worker path stops with the same one-line error as one thread', () => {
  const { dataDir } = manyConversations(7, true);
  forgetMasterKeys(); // the key opened to write them
  const keyless = new SessionStore(path.join(dataDir, 'sessions'), { encrypt: false, vault: new HistoryVault(dataDir, { context: () => ({ env: process.env, command: undefined, canAsk: false }) }) });
  const alone = (() => {
    try {
      searchSessions(keyless, { words: ['zolmitriptan'], worker: false });
    } catch (err) {
      return err;
    }
  })();
  assert.ok(alone instanceof HistoryKeyError, String(alone));
  for (const worker of ['all', true] as const) {
    assert.throws(() => searchSessions(keyless, { words: ['zolmitriptan'], worker }), (err: unknown) => err instanceof HistoryKeyError && err.message === alone.message);
  }
});
