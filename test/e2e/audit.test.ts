// The audit log as a user and an administrator meet it (the built binary against the double):
// `config set audit on`, then one line per one-shot question, batch item and retexture job, with
// its mode and exit code and no word of the question, the answer, the file or the image; off by
// default; `audit verify` (exit 12 naming the line), `audit show` and `audit export --since`; an
// audit folder that cannot be written keeps the answer and says one warning line.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { after, before, test } from 'node:test';
import { startServiceDouble, type ServiceDouble } from '../support/misbehaving-service.js';
import { runCli, tempHome, TEST_KEY, type CliOptions } from '../support/cli.js';
import { openToOthers, testBuild } from '../support/test-build.js';
import { tempDir } from '../support/temp.js';
import { PNG_BYTES, writeTemp } from '../fixtures/images.js';
import { Prng, seedFromEnv } from '../support/prng.js';

let double: ServiceDouble;
before(async () => {
  double = await startServiceDouble();
});
after(() => double.close());

interface Line {
  seq: number;
  mode: string;
  outcome: string;
  exit_code: number;
  identifiers?: Record<string, number>;
  redacted?: boolean;
  privacy?: string;
  session?: string;
  [k: string]: unknown;
}

const auditFileOf = (home: string) => path.join(home, 'data', 'audit', 'audit.jsonl');
const lines = (home: string): Line[] => fs.readFileSync(auditFileOf(home), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Line);

async function auditedHome(): Promise<string> {
  const home = tempHome();
  const r = await runCli(['config', 'set', 'audit', 'on'], { home });
  assert.equal(r.code, 0, r.stderr);
  return home;
}

/** Words of `texts` (4 letters or more) found in the log, its hashes left out. */
function wordsInLog(home: string, texts: string[]): string[] {
  const known = new Set(['audit', 'medical', 'large', 'latest', 'complete', 'redact', 'name', 'date']);
  const log = lines(home)
    .map(({ prev: _p, hash: _h, ...rest }) => JSON.stringify(rest))
    .join('\n')
    .toLowerCase();
  const words = new Set(log.split(/[^a-z]+/));
  return texts.flatMap((t) => t.split(/[^\p{L}]+/u)).filter((w) => w.length >= 4 && !known.has(w.toLowerCase()) && words.has(w.toLowerCase()));
}

test('off by default: a question writes no audit log', async () => {
  const home = tempHome();
  double.chat.enqueue({ content: ['ok'] });
  const r = await runCli(['a question'], { baseUrl: double.url, home });
  assert.equal(r.code, 0);
  assert.equal(fs.existsSync(path.join(home, 'data', 'audit')), false);
});

test('one-shot: exactly one line per question, mode one-shot, exit code, identifiers by kind; no word of the question, the answer or the file name', async () => {
  const home = await auditedHome();
  const seed = seedFromEnv();
  const rng = new Prng(seed);
  console.log(`# audit one-shot: seed ${seed} (replay with MEDCHAT_SEED=${seed})`);
  const note = path.join(home, 'Ellison-discharge-letter.txt');
  fs.writeFileSync(note, 'Patient: Margaret Ellison, DOB 14/02/1951, MRN K4471902. Cellulitis of the left shin, improving on flucloxacillin.\n');
  const questions = ['Summarise the attached letter for the ward round', `Should ${rng.pick(['Ellison', 'Gallagher'])} continue flucloxacillin beyond seven days?`];
  const answers = ['Continue flucloxacillin; reassess erythema margins tomorrow.', 'Seven days usually suffices; review Margaret Ellison on Thursday.'];
  double.chat.enqueue({ content: [answers[0]!] });
  const first = await runCli(['--privacy', 'redact', '-f', note, questions[0]!], { baseUrl: double.url, home });
  assert.equal(first.code, 0, first.stderr);
  assert.match(first.stdout, /reassess erythema/);
  double.chat.enqueue({ content: [answers[1]!] }, { content: ['cut'], finishReason: 'length' });
  const second = await runCli(['-c', questions[1]!], { baseUrl: double.url, home });
  assert.equal(second.code, 0, second.stderr);
  const third = await runCli(['a third question, cut off'], { baseUrl: double.url, home });
  assert.equal(third.code, 8);
  const got = lines(home);
  assert.deepEqual(got.map((l) => [l.seq, l.mode, l.outcome, l.exit_code]), [[1, 'one-shot', 'complete', 0], [2, 'one-shot', 'complete', 0], [3, 'one-shot', 'incomplete', 8]]);
  assert.deepEqual({ ...got[0]!.identifiers, NAME: Math.min(1, got[0]!.identifiers?.NAME ?? 0) }, { NAME: 1, DATE: 1, MRN: 1 }, 'the name (in the file and its header), the date and the record number');
  assert.equal(got[0]!.redacted, true);
  assert.equal(got[0]!.privacy, 'redact');
  assert.equal(got[1]!.session, got[0]!.session, '-c continues the same session: the same id');
  assert.deepEqual(wordsInLog(home, [...questions, ...answers, fs.readFileSync(note, 'utf8'), 'Ellison-discharge-letter.txt', 'third']), [], `seed ${seed}`);
  const raw = fs.readFileSync(auditFileOf(home), 'utf8');
  assert.ok(!raw.includes(TEST_KEY.slice(0, 12)), 'never the key');
  assert.ok(!raw.includes('/v1'), 'the service host only, no path');
});

test('batch: one line per item, mode batch-item, with its exit code', async () => {
  const home = await auditedHome();
  const input = path.join(home, 'questions.jsonl');
  fs.writeFileSync(input, ['{"id":"a","prompt":"first question about warfarin"}', '{"id":"b","prompt":"second question: Patient: Margaret Ellison, MRN K4471902"}', '{"id":"c","prompt":"third"}'].join('\n') + '\n');
  const r = await runCli(['batch', input, '-o', path.join(home, 'answers.jsonl')], { baseUrl: double.url, home });
  assert.equal(r.code, 0, r.stderr);
  const got = lines(home);
  assert.equal(got.length, 3);
  assert.ok(got.every((l) => l.mode === 'batch-item' && l.exit_code === 0 && l.outcome === 'complete'));
  assert.deepEqual(got.map((l) => l.identifiers).filter((ids) => Object.keys(ids ?? {}).length), [{ NAME: 1, MRN: 1 }], 'the name and record number in item b are counted');
  assert.deepEqual(wordsInLog(home, ['warfarin', 'Margaret Ellison', 'questions']), []);
});

test('retexture: one line for the job, mode retexture, exit 0; never the prompt or the image name', async () => {
  const home = await auditedHome();
  double.retexture.enqueue({ id: '1712345678901234567' });
  const png = writeTemp('Ellison-ulcer.png', PNG_BYTES);
  const r = await runCli(['retexture', '--image', png, '--wait', '--poll-interval', '0.02', 'outline the ulcer on Ellison'], { baseUrl: double.url, home });
  assert.equal(r.code, 0, r.stderr);
  const got = lines(home);
  assert.deepEqual(got.map((l) => [l.mode, l.outcome, l.exit_code, l.task]), [['retexture', 'complete', 0, '1712345678901234567']]);
  assert.deepEqual(wordsInLog(home, ['Ellison ulcer outline']), []);
});

test('audit verify: an intact log passes (exit 0); an edited line is named (exit 12); show and export read it back', async () => {
  const home = await auditedHome();
  for (const q of ['one', 'two', 'three']) {
    double.chat.enqueue({ content: [`answer ${q}`] });
    assert.equal((await runCli([q], { baseUrl: double.url, home })).code, 0);
  }
  const ok = await runCli(['audit', 'verify'], { home });
  assert.equal(ok.code, 0, ok.stderr);
  assert.match(ok.stdout, /3 lines, each chained to the one before; last hash [0-9a-f]{64}/);
  const shown = await runCli(['audit', 'show'], { home });
  assert.equal(shown.code, 0);
  assert.equal(shown.stdout.trim().split('\n').length, 4, 'a header and three rows');
  assert.match(shown.stdout, /one-shot\s+complete\s+0\s+medical-large-latest/);
  const json = await runCli(['audit', 'show', '--json', '--since', '1d'], { home });
  assert.deepEqual(json.stdout.trim().split('\n').map((l) => (JSON.parse(l) as Line).seq), [1, 2, 3]);
  const exported = await runCli(['audit', 'export', '--since', '2000-01-01'], { home });
  assert.equal(exported.stdout, fs.readFileSync(auditFileOf(home), 'utf8'), 'the lines as stored');
  const none = await runCli(['audit', 'export', '--since', '2999-01-01'], { home });
  assert.equal(none.stdout, '');
  const bad = await runCli(['audit', 'show', '--since', 'yesterday'], { home });
  assert.equal(bad.code, 2);
  assert.equal(bad.stderr.trim().split('\n').length, 1);
  // An exported copy verifies on its own.
  const copy = path.join(home, 'copy.jsonl');
  fs.writeFileSync(copy, exported.stdout);
  assert.equal((await runCli(['audit', 'verify', copy], { home })).code, 0);
  // Edited: the second line says it was a failure.
  const text = fs.readFileSync(auditFileOf(home), 'utf8').split('\n');
  text[1] = text[1]!.replace('"exit_code":0', '"exit_code":1');
  fs.writeFileSync(auditFileOf(home), text.join('\n'));
  const broken = await runCli(['audit', 'verify'], { home });
  assert.equal(broken.code, 12);
  assert.match(broken.stdout, /^line 2: changed after it was written/m);
  assert.match(broken.stderr, /^medchat: the audit log .* has been tampered with or damaged: 1 problem in 3 lines/);
  assert.equal(broken.stderr.trim().split('\n').length, 1);
  // Removed: verify names the line that no longer follows.
  fs.writeFileSync(auditFileOf(home), [text[0], text[2], ''].join('\n'));
  const removed = await runCli(['audit', 'verify'], { home });
  assert.equal(removed.code, 12);
  assert.match(removed.stdout, /^line 2: does not follow line 1/m);
});

test('audit verify with no log: one line, exit 2', async () => {
  const r = await runCli(['audit', 'verify'], { home: tempHome() });
  assert.equal(r.code, 2);
  assert.match(r.stderr, /^medchat: no audit log at .*audit\.jsonl/);
});

test('an audit log that cannot be written: the answer is on stdout, exit 0, one warning line', async () => {
  const home = await auditedHome();
  // The audit folder is a file: nothing can be created in it (ENOTDIR), even as root.
  fs.mkdirSync(path.join(home, 'data'), { recursive: true });
  fs.writeFileSync(path.join(home, 'data', 'audit'), 'not a folder');
  double.chat.enqueue({ content: ['the answer stays'] });
  const r = await runCli(['a question'], { baseUrl: double.url, home });
  assert.equal(r.code, 0);
  assert.equal(r.stdout, 'the answer stays');
  const warning = r.stderr.split('\n').filter((l) => /audit/.test(l));
  assert.equal(warning.length, 1, r.stderr);
  assert.match(warning[0]!, /^medchat: warning: the audit log .* cannot be written \(ENOTDIR[^)]*\): the answer is kept/);
});

test('SIGTERM mid-answer: the partial answer is kept, and the one line says interrupted', async () => {
  const home = await auditedHome();
  double.chat.enqueue({ reasoning: [], content: Array.from({ length: 600 }, (_, i) => `w${i} `), paceMs: 10 });
  let seen = '';
  const r = await runCli(['Explain atrial fibrillation'], {
    baseUrl: double.url,
    home,
    onSpawn: (child) => {
      child.stdout!.on('data', (c) => {
        seen += c;
        if (seen.includes('w5 ') && !child.killed) child.kill('SIGTERM');
      });
    },
  });
  assert.equal(r.code, 143);
  assert.ok(r.stdout.startsWith('w0 w1 w2 w3 w4 w5 '));
  assert.deepEqual(lines(home).map((l) => [l.mode, l.outcome, l.exit_code]), [['one-shot', 'interrupted', 130]]);
});

test('six medchats of one user at once: six lines, one chain (the append is locked)', async () => {
  const home = await auditedHome();
  double.chat.enqueue(...Array.from({ length: 6 }, () => ({ reasoning: [], content: ['ok'] })));
  const runs = await Promise.all(Array.from({ length: 6 }, (_, i) => runCli([`question ${i}`], { baseUrl: double.url, home })));
  assert.deepEqual(runs.map((r) => r.code), [0, 0, 0, 0, 0, 0]);
  assert.deepEqual(lines(home).map((l) => l.seq), [1, 2, 3, 4, 5, 6]);
  const v = await runCli(['audit', 'verify'], { home });
  assert.equal(v.code, 0, v.stdout + v.stderr);
});

// ---- required by the organisation policy (a test build reads MEDCHAT_TEST_POLICY_FILE) ----------

const NOBODY = 65534;
const AS_NOBODY = ['setpriv', `--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups'];
const otherUserSkip: string | false = (() => {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return 'needs root on Linux, to run as another user';
  const probe = spawnSync(AS_NOBODY[0]!, [...AS_NOBODY.slice(1), process.execPath, '-e', '0'], { stdio: 'ignore' });
  return probe.status === 0 ? false : 'needs setpriv (util-linux) and a node binary the user nobody can run';
})();

function withPolicy(policy: object, args: string[], o: CliOptions = {}) {
  const dir = openToOthers(tempDir('medchat-audit-policy-'));
  const file = path.join(dir, 'policy.json');
  fs.writeFileSync(file, JSON.stringify(policy));
  fs.chmodSync(file, 0o644);
  return runCli(args, { timeoutMs: 60_000, bin: testBuild(), ...o, env: { MEDCHAT_TEST_POLICY_FILE: file, ...o.env } });
}

/** An audit folder as the README says to make one: root's, 1733 (anyone may add a file; nobody may list it or remove another's). */
function sharedAuditDir(): string {
  const dir = path.join(openToOthers(tempDir('medchat-audit-shared-')), 'medchat-audit');
  fs.mkdirSync(dir);
  fs.chmodSync(dir, 0o1733);
  return dir;
}

test('required by the policy with audit-dir: the line goes to <audit-dir>/<user>.jsonl (0600), with the setting off; verify reads it', async () => {
  const shared = sharedAuditDir();
  const home = tempHome();
  double.chat.enqueue({ content: ['ok'] });
  const r = await withPolicy({ audit: true, 'audit-dir': shared }, ['a question'], { baseUrl: double.url, home });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(fs.existsSync(path.join(home, 'data', 'audit')), false, 'not in the data folder');
  const files = fs.readdirSync(shared);
  assert.equal(files.length, 1, files.join(', '));
  const file = path.join(shared, files[0]!);
  assert.equal(fs.statSync(file).mode & 0o777, 0o600);
  const line = JSON.parse(fs.readFileSync(file, 'utf8')) as Line;
  assert.equal(`${line.user}.jsonl`, files[0]);
  assert.equal(line.mode, 'one-shot');
  const v = await withPolicy({ audit: true, 'audit-dir': shared }, ['audit', 'verify'], { home });
  assert.equal(v.code, 0, v.stderr);
  assert.match(v.stdout, /1 line, each chained/);
});

test('another user writes their own file in the shared folder, 0600 and theirs', { skip: otherUserSkip }, async () => {
  const shared = sharedAuditDir();
  const home = openToOthers(tempHome());
  fs.chownSync(home, NOBODY, NOBODY);
  double.chat.enqueue({ content: ['ok'] });
  const r = await withPolicy({ audit: true, 'audit-dir': shared }, ['a question'], { baseUrl: double.url, home, wrap: AS_NOBODY });
  assert.equal(r.code, 0, r.stderr);
  const files = fs.readdirSync(shared);
  assert.equal(files.length, 1);
  const st = fs.statSync(path.join(shared, files[0]!));
  assert.equal(st.uid, NOBODY);
  assert.equal(st.mode & 0o777, 0o600);
});

test('required by the policy and the audit folder cannot be written: the question and the image job are refused before anything is sent (exit 2, one line)', async () => {
  const missing = path.join(tempDir('medchat-audit-none-'), 'not-made');
  const home = tempHome();
  const chats = double.chat.requests.length;
  const r = await withPolicy({ audit: true, 'audit-dir': missing }, ['What dose of warfarin for Margaret Ellison?'], { baseUrl: double.url, home });
  assert.equal(r.code, 2);
  assert.equal(r.stdout, '');
  const lines = r.stderr.trim().split('\n');
  assert.equal(lines.length, 1, r.stderr);
  assert.match(lines[0]!, /^medchat: the audit log .*not-made.* cannot be written \(ENOENT: its folder does not exist\), and your organisation's policy requires it: nothing was sent/);
  assert.equal(double.chat.requests.length, chats, 'nothing sent unaudited');
  const jobs = double.retexture.submits.length;
  const png = writeTemp('scan.png', PNG_BYTES);
  const job = await withPolicy({ audit: true, 'audit-dir': missing }, ['retexture', '--image', png, 'x'], { baseUrl: double.url, home });
  assert.equal(job.code, 2, job.stderr);
  assert.match(job.stderr, /policy requires it: nothing was sent/);
  assert.equal(double.retexture.submits.length, jobs);
});
