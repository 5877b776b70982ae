// sessions search, purge and retention-days through the built binary: sessions written in a private
// data folder with their file times set in the past (faked dates), then medchat run on them.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { lockLine } from '../../src/core/io/file-lock.js';
import { startServiceDouble, type ServiceDouble } from '../../src/stand-in/index.js';
import { runCli, tempHome } from '../support/cli.js';

let double: ServiceDouble;
before(async () => {
  double = await startServiceDouble();
});
after(() => double.close());

const DAY = 86_400_000;
const sessionsDir = (home: string) => path.join(home, 'data', 'sessions');
const ids = (home: string) => (fs.existsSync(sessionsDir(home)) ? fs.readdirSync(sessionsDir(home)).filter((n) => n.endsWith('.json')).map((n) => n.slice(0, -5)).sort() : []);

/** A session as medchat writes it, last saved `daysAgo` days ago (its file time and its recorded time). */
function writeSession(home: string, id: string, daysAgo: number, turns: [string, string][], extra: Record<string, unknown> = {}) {
  fs.mkdirSync(sessionsDir(home), { recursive: true, mode: 0o700 });
  const when = new Date(Date.now() - daysAgo * DAY);
  const data = {
    format: 'medchat-session',
    version: 1,
    id,
    title: turns[0]![0].split('\n')[0],
    createdAt: when.toISOString(),
    updatedAt: when.toISOString(),
    model: 'm',
    turns: turns.map(([user, answer], i) => ({ id: `t${i + 1}`, user, answer, reasoning: 'considering warfarin', status: 'complete', startedAt: 0 })),
    context: { startTurn: 0, ratio: 1, samples: 0, compactions: [] },
    ...extra,
  };
  const file = path.join(sessionsDir(home), `${id}.json`);
  fs.writeFileSync(file, JSON.stringify(data, null, 1) + '\n', { mode: 0o600 });
  fs.utimesSync(file, when, when);
}

function clinic(): string {
  const home = tempHome();
  writeSession(home, '20261101-100000-aaaa', 3, [
    ['Knee pain after running', 'Rest and ice.\nIbuprofen 400 mg with food.'],
    ['Swelling?', 'Elevate it.'],
  ]);
  writeSession(home, '20261102-100000-bbbb', 1, [
    ['Headache since Monday', 'Paracetamol 1 g.'],
    ['Red flags?', 'Sudden severe headache: call 999.'],
    ['And ibuprofen?', 'Ibuprofen is fine with food for a headache.'],
  ]);
  writeSession(home, '20261103-100000-cccc', 2, [['Résumé des soins', 'Œdème: surélever les jambes.']], { role: 'soap' });
  return home;
}

test('search: newest first, each with its matching line and turn; every word, case and accents ignored; exit 0', async () => {
  const home = clinic();
  const r = await runCli(['sessions', 'search', 'IBUPROFEN'], { home });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stderr, '');
  assert.equal(
    r.stdout.replace(/  \d{4}-\d\d-\d\d \d\d:\d\d  /g, '  <time>  '),
    [
      '20261102-100000-bbbb  <time>  Headache since Monday',
      '  turn 3 question: And ibuprofen?',
      '  (1 more matching line)',
      '20261101-100000-aaaa  <time>  Knee pain after running',
      '  turn 1 answer: Ibuprofen 400 mg with food.',
      '',
    ].join('\n'),
  );
  const two = await runCli(['sessions', 'search', 'ibuprofen', 'headache'], { home });
  assert.match(two.stdout, /^20261102-100000-bbbb .*\n  turn 3 answer: Ibuprofen is fine with food for a headache\.\n  \(3 more matching lines\)\n$/);
  const accents = await runCli(['sessions', 'search', 'oedeme', 'RESUME'], { home });
  assert.equal(accents.stdout, '', 'œ is a letter of its own, not "oe"');
  const accents2 = await runCli(['sessions', 'search', 'œdeme', 'RESUME'], { home });
  assert.match(accents2.stdout, /^20261103-100000-cccc /);
});

test('search --json: id, title, last_activity, role, turns, matching_lines, lines (turn, part, text); --since, --role, --reasoning', async () => {
  const home = clinic();
  const r = await runCli(['sessions', 'search', 'ibuprofen', '--json'], { home });
  assert.equal(r.code, 0, r.stderr);
  const hits = JSON.parse(r.stdout);
  assert.deepEqual(
    hits.map((h: Record<string, unknown>) => ({ ...h, last_activity: typeof h.last_activity })),
    [
      {
        id: '20261102-100000-bbbb',
        title: 'Headache since Monday',
        last_activity: 'string',
        turns: 3,
        matching_lines: 2,
        lines: [
          { turn: 3, part: 'question', text: 'And ibuprofen?' },
          { turn: 3, part: 'answer', text: 'Ibuprofen is fine with food for a headache.' },
        ],
      },
      { id: '20261101-100000-aaaa', title: 'Knee pain after running', last_activity: 'string', turns: 2, matching_lines: 1, lines: [{ turn: 1, part: 'answer', text: 'Ibuprofen 400 mg with food.' }] },
    ],
  );
  assert.ok(Math.abs(Date.parse(hits[0].last_activity) - (Date.now() - DAY)) < 60_000);

  const since = JSON.parse((await runCli(['sessions', 'search', 'ibuprofen', '--json', '--since', '2d'], { home })).stdout);
  assert.deepEqual(since.map((h: { id: string }) => h.id), ['20261102-100000-bbbb']);
  const role = JSON.parse((await runCli(['sessions', 'search', 'e', '--json', '--role', 'soap'], { home })).stdout);
  assert.deepEqual(role.map((h: { id: string; role: string }) => [h.id, h.role]), [['20261103-100000-cccc', 'soap']]);
  assert.deepEqual(JSON.parse((await runCli(['sessions', 'search', 'warfarin', '--json'], { home })).stdout), [], 'reasoning only with --reasoning');
  const reasoning = JSON.parse((await runCli(['sessions', 'search', 'warfarin', '--json', '--reasoning'], { home })).stdout);
  assert.equal(reasoning.length, 3);
  assert.deepEqual(reasoning[0].lines[0], { turn: 1, part: 'reasoning', text: 'considering warfarin' });
});

test('search: nothing matches is exit 0 with one line on stderr and nothing on stdout; bad input is one line, exit 2', async () => {
  const home = clinic();
  const none = await runCli(['sessions', 'search', 'zanubrutinib'], { home });
  assert.equal(none.code, 0);
  assert.equal(none.stdout, '');
  assert.equal(none.stderr, 'no conversation matches "zanubrutinib"\n');
  const json = await runCli(['sessions', 'search', 'zanubrutinib', '--json'], { home });
  assert.equal(json.stdout, '[]\n');
  const empty = await runCli(['sessions', 'search', 'x'], { home: tempHome() });
  assert.equal(empty.code, 0);
  for (const [args, msg] of [
    [['--since', 'yesterday'], /^medchat: --since takes an age \(12h, 30d, 2w\) or a date \(2026-01-01\); got "yesterday"\n$/],
    [['--limit', 'ten'], /^medchat: --limit takes a number of conversations \(0: all\); got "ten"\n$/],
  ] as const) {
    const bad = await runCli(['sessions', 'search', 'knee', ...args], { home });
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, msg);
    assert.equal(bad.stdout, '');
  }
});

test('search: escape sequences and bidi controls saved in a conversation are shown, never obeyed (stdout a pipe, as in scripts); lines bounded in width', async () => {
  const home = tempHome();
  writeSession(home, '20261101-100000-aaaa', 1, [
    ['\u001b]0;pwned\u0007\u001b[2Jtitle trick', 'x'],
    ['q', 'Aspirin \u001b]52;c;ZXZpbA==\u0007 then \u202eevil\u202c and \u009b31m' + ' and more'.repeat(2000)],
  ]);
  const r = await runCli(['sessions', 'search', 'aspirin'], { home });
  assert.equal(r.code, 0, r.stderr);
  assert.doesNotMatch(r.stdout, /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e]/);
  assert.match(r.stdout, /␛\]0;pwned␇␛\[2Jtitle trick/);
  assert.match(r.stdout, /turn 2 answer: Aspirin ␛\]52;c;ZXZpbA==␇ then <U\+202E>evil<U\+202C> and �31m and more/);
  for (const line of r.stdout.split('\n')) assert.ok([...line].length <= 120, `a line of ${[...line].length} characters`);
  const json = await runCli(['sessions', 'search', 'aspirin', '--json'], { home });
  assert.doesNotMatch(json.stdout, /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e]/);
});

test('retention-days: older conversations are deleted at start with one line, the locked one kept; a one-shot does it too', async () => {
  const home = clinic();
  writeSession(home, '20260101-100000-0001', 40, [['old question', 'old answer']]);
  writeSession(home, '20260102-100000-0002', 31, [['old question', 'old answer']]);
  writeSession(home, '20260103-100000-0003', 35, [['old but open elsewhere', 'x']]);
  fs.writeFileSync(path.join(sessionsDir(home), '20260103-100000-0003.json.lock'), lockLine()); // held by a live process
  const set = await runCli(['config', 'set', 'retention-days', '30'], { home });
  assert.equal(set.code, 0, set.stderr);

  const list = await runCli(['sessions', 'list'], { home });
  assert.equal(list.code, 0, list.stderr);
  assert.equal(list.stderr, 'medchat: deleted 2 conversations older than 30 days (retention-days); kept 1 open in another medchat\n');
  assert.deepEqual(ids(home), ['20260103-100000-0003', '20261101-100000-aaaa', '20261102-100000-bbbb', '20261103-100000-cccc']);
  assert.doesNotMatch(list.stdout, /old question/);

  fs.rmSync(path.join(sessionsDir(home), '20260103-100000-0003.json.lock'));
  writeSession(home, '20260104-100000-0004', 60, [['old question', 'old answer']]);
  const oneShot = await runCli(['What is a normal resting heart rate?'], { home, baseUrl: double.url });
  assert.equal(oneShot.code, 0, oneShot.stderr);
  assert.match(oneShot.stderr, /^medchat: deleted 2 conversations older than 30 days \(retention-days\)\n/m);
  assert.equal(oneShot.stderr.match(/deleted/g)?.length, 1, 'one line');
  assert.equal(ids(home).length, 4, 'the three recent ones and the new one');

  const quiet = await runCli(['sessions', 'list'], { home });
  assert.equal(quiet.stderr, '', 'nothing to delete: nothing said');
  const incognito = await runCli(['--incognito', 'hi'], { home, baseUrl: double.url });
  assert.doesNotMatch(incognito.stderr, /deleted/);
});

test('purge --older-than: --dry-run lists and deletes nothing; then deletes those; refuses what is not an age', async () => {
  const home = clinic();
  writeSession(home, '20260101-100000-0001', 40, [['old question one', 'a']]);
  writeSession(home, '20260102-100000-0002', 20, [['old question two', 'a']]);
  const before = ids(home);
  const dry = await runCli(['sessions', 'purge', '--older-than', '2w', '--dry-run'], { home });
  assert.equal(dry.code, 0, dry.stderr);
  assert.match(dry.stdout, /^20260101-100000-0001  \d{4}-\d\d-\d\d \d\d:\d\d  old question one\n20260102-100000-0002  .*  old question two\n$/);
  assert.equal(dry.stderr, 'would delete 2 conversations older than 2 weeks (nothing deleted: --dry-run)\n');
  assert.deepEqual(ids(home), before);

  const purge = await runCli(['sessions', 'purge', '--older-than', '30d'], { home });
  assert.equal(purge.code, 0, purge.stderr);
  assert.equal(purge.stderr, 'deleted 1 conversation older than 30 days\n');
  assert.deepEqual(ids(home), before.filter((id) => id !== '20260101-100000-0001'));

  const date = await runCli(['sessions', 'purge', '--older-than', new Date(Date.now() - 10 * DAY).toISOString().slice(0, 10)], { home });
  assert.match(date.stderr, /^deleted 1 conversation from before \d{4}-\d\d-\d\d\n$/);

  const bad = await runCli(['sessions', 'purge', '--older-than', '30'], { home });
  assert.equal(bad.code, 2);
  assert.equal(bad.stderr, 'medchat: --older-than takes an age (12h, 30d, 2w) or a date (2026-01-01); got "30"\n');
  const none = await runCli(['sessions', 'purge'], { home });
  assert.equal(none.code, 2);
  assert.match(none.stderr, /^medchat: say which conversations: medchat sessions purge --older-than 30d/);
});

test('a one-shot with -r records its role, so search --role finds it', async () => {
  const home = tempHome();
  const r = await runCli(['-r', 'soap', '45M, chest pain on exertion for two weeks'], { home, baseUrl: double.url });
  assert.equal(r.code, 0, r.stderr);
  const found = JSON.parse((await runCli(['sessions', 'search', 'exertion', '--role', 'soap', '--json'], { home })).stdout);
  assert.equal(found.length, 1);
  assert.equal(found[0].role, 'soap');
  assert.deepEqual(JSON.parse((await runCli(['sessions', 'search', 'exertion', '--role', 'discharge', '--json'], { home })).stdout), []);
});
