// The audit log (core/audit) in-process, against the double: one line per question or job with no
// patient text in it (generated conversations over the labelled notes, seeded), identifier counts
// by kind, the chain that `audit verify` checks (edited, removed, moved, cut-short lines), failed
// writes (the answer kept, one warning, the line written later) and the policy that requires the
// log (the next question refused until it can be written), and each front end's mode.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, afterEach, before, test } from 'node:test';
import { cleanup } from 'ink-testing-library';
import { ask, answer, openPrivacy, pose } from '../../src/core/ask/ask.js';
import { auditLog, configureAudit } from '../../src/core/audit/log.js';
import { verifyLog, linesSince, parseSince } from '../../src/core/audit/read.js';
import type { AuditRecord } from '../../src/core/audit/record.js';
import { usePolicyFile } from '../../src/core/config/policy.js';
import { MedchatError } from '../../src/core/errors.js';
import type { FileOps } from '../../src/core/io/file-ops.js';
import { PrivacyGuard, guardOutgoing } from '../../src/core/privacy/guard.js';
import { KINDS } from '../../src/core/privacy/kinds.js';
import { runRetextureJob } from '../../src/core/retexture/index.js';
import { ChatSession } from '../../src/core/sessions/chat-session.js';
import { startServiceDouble, type ServiceDouble } from '../../src/stand-in/index.js';
import type { RecordedRequest } from '../../src/stand-in/server.js';
import { PNG_BYTES, writeTemp } from '../fixtures/images.js';
import { FaultyFileOps, faultCases } from '../support/faulty-fs.js';
import { loadPrivacySet } from '../support/privacy-set.js';
import { Prng, countFromEnv, seedFromEnv } from '../support/prng.js';
import { testSettings } from '../support/settings.js';
import { tempDir } from '../support/temp.js';
import { renderChat } from '../support/tui.js';

let double: ServiceDouble;
let warnings: string[] = [];
let dir = '';
before(async () => {
  double = await startServiceDouble();
});
after(() => double.close());
/** An organisation policy in force for this process (written to a file, read as medchat reads one). */
function setPolicy(policy: Record<string, unknown>): void {
  const file = path.join(tempDir('medchat-audit-policy-'), 'policy.json');
  fs.writeFileSync(file, JSON.stringify(policy));
  usePolicyFile(file);
}
afterEach(() => {
  usePolicyFile(undefined);
  cleanup();
});

/** A fresh data folder (so a fresh log) and warnings collected; `ops` to put faults in the writes. */
function fresh(ops?: FileOps): string {
  dir = tempDir('medchat-audit-');
  warnings = [];
  configureAudit({ env: { MEDCHAT_DATA_DIR: dir }, ops, version: '9.9.9-test', warn: (l) => warnings.push(l) });
  return path.join(dir, 'audit', 'audit.jsonl');
}

const records = (file: string): AuditRecord[] =>
  fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as AuditRecord) : [];

const settings = (over: Record<string, unknown> = {}) => testSettings(double.url, { audit: true, ...over });

async function oneShot(question: string, opts: { privacy?: 'off' | 'warn' | 'redact'; content?: string[]; over?: Record<string, unknown> } = {}) {
  if (opts.content) double.chat.enqueue({ content: opts.content, reasoning: [] });
  const session = ChatSession.open(settings(opts.over), { incognito: true });
  const privacy = await openPrivacy(opts.privacy && opts.privacy !== 'off' ? { mode: opts.privacy, shiftDates: false } : undefined, []);
  return ask({ session, question, privacy, stream: true }, () => {});
}

// ---- no patient text, over generated conversations -------------------------------------------

const CLINICAL = ['metformin', 'warfarin', 'haemoglobin', 'creatinine', 'tachycardia', 'oedema', 'pneumonia', 'cellulitis', 'amoxicillin', 'troponin', 'sepsis', 'anticoagulation', 'discharge', 'palpitations', 'syncope', 'bradycardia', 'hyperkalaemia', 'furosemide'];
const NAMES = ['Margaret Ellison', 'Oluwaseun Adeyemi', 'Krzysztof Nowakowski', 'Siobhan Gallagher', 'Priyanka Raghunathan', 'Thorvald Lindqvist'];

/**
 * The words an audit line may hold: its field names and the values medchat itself writes (modes,
 * outcomes, kinds, the user, the host, the version, the model, the service host). A patient word in
 * any of these would be a false alarm, so such words are left out of the check (and listed).
 */
function allowedWords(file: string): Set<string> {
  const words = new Set<string>();
  const add = (s: string) => s.split(/[^A-Za-z]+/).forEach((w) => w && words.add(w.toLowerCase()));
  for (const r of records(file)) {
    for (const k of Object.keys(r)) add(k);
    for (const k of ['user', 'host', 'version', 'model', 'service', 'mode', 'outcome', 'privacy', 'error'] as const) if (r[k] !== undefined) add(String(r[k]));
  }
  KINDS.forEach(add);
  return words;
}

/** The words of the log, hashes left out (hex can spell "face" or "dead" by chance). */
function logWords(file: string): Set<string> {
  const words = new Set<string>();
  for (const r of records(file)) {
    const { prev: _p, hash: _h, ...rest } = r;
    JSON.stringify(rest)
      .split(/[^A-Za-z]+/)
      .forEach((w) => w && words.add(w.toLowerCase()));
  }
  return words;
}

test('generated conversations: one line each, no word of any question or answer in the log, identifiers counted by kind, the chain intact', async () => {
  const file = fresh();
  const seed = seedFromEnv();
  const cases = countFromEnv('MEDCHAT_AUDIT_CASES', 60);
  const rng = new Prng(seed);
  const notes = loadPrivacySet();
  // The double answers with the question's own words and more patient text.
  const answers: string[] = [];
  const defaultScript = double.chat.defaultScript;
  double.chat.defaultScript = {
    reasoning: [],
    content: (req: RecordedRequest) => {
      const q = String((req.body.messages as Array<{ content: string }>).at(-1)!.content);
      const a = `Regarding ${q.slice(0, 300)} — consider ${CLINICAL[answers.length % CLINICAL.length]} for ${NAMES[answers.length % NAMES.length]}.`;
      answers.push(a);
      return [a.slice(0, 50), a.slice(50)];
    },
  };
  const questions: string[] = [];
  const expected: Array<{ privacy: string; counts: Record<string, number> }> = [];
  for (let i = 0; i < cases; i++) {
    // A conversation of 1 to 3 questions, each from a labelled note, in one privacy mode.
    const r = rng.fork(i);
    const privacy = r.pick(['off', 'warn', 'redact'] as const);
    const session = ChatSession.open(settings(), { incognito: true });
    const guard = await openPrivacy(privacy !== 'off' ? { mode: privacy, shiftDates: r.chance(0.3) } : undefined, []);
    for (let turn = r.int(1, 3); turn > 0; turn--) {
      const note = r.pick(notes);
      const start = r.int(0, Math.max(0, note.text.length - 400));
      const question = `${r.pick(NAMES)} ${r.pick(CLINICAL)}: ${note.text.slice(start, start + r.int(80, 400))} ${r.pick(CLINICAL)}?`;
      questions.push(question);
      const a = await ask({ session, question, privacy: guard, stream: r.chance(0.5) }, () => {});
      assert.equal(a.error, undefined, `case ${i}, seed ${seed}: answered`);
      const counts = privacy === 'off' ? {} : guardOutgoing(question, 'warn', new PrivacyGuard()).counts;
      expected.push({ privacy, counts: counts as Record<string, number> });
    }
  }
  double.chat.defaultScript = defaultScript;
  const got = records(file);
  console.log(`# audit: ${cases} generated conversations, ${questions.length} questions over ${notes.length} labelled notes, seed ${seed} (replay with MEDCHAT_SEED=${seed})`);
  assert.equal(got.length, questions.length, 'one line per question');
  got.forEach((r, i) => {
    assert.equal(r.mode, 'one-shot');
    assert.equal(r.seq, i + 1);
    assert.equal(r.privacy, expected[i]!.privacy, `case ${i}, seed ${seed}`);
    assert.deepEqual(r.identifiers, expected[i]!.counts, `case ${i}, seed ${seed}: identifiers by kind`);
    assert.equal(r.redacted, expected[i]!.privacy === 'redact');
    assert.equal(r.exit_code, 0);
    assert.equal(r.outcome, 'complete');
    assert.ok(r.tokens_in! > 0 && r.tokens_out! > 0, 'tokens in and out');
    assert.equal(r.service, new URL(double.url).host);
  });
  const allowed = allowedWords(file);
  const inLog = logWords(file);
  let checked = 0;
  const leaked: string[] = [];
  for (const text of [...questions, ...answers, ...NAMES, ...CLINICAL]) {
    for (const w of text.split(/[^\p{L}]+/u)) {
      if (w.length < 4 || allowed.has(w.toLowerCase())) continue;
      checked++;
      if (inLog.has(w.toLowerCase())) leaked.push(w);
    }
  }
  console.log(`# audit: ${checked} words checked, ${allowed.size} field names and known values left out`);
  assert.deepEqual(leaked, [], `seed ${seed}: words of the questions or answers in the audit log`);
  const v = await verifyLog(file);
  assert.deepEqual(v.problems, []);
  assert.equal(v.lines, questions.length);
});

// ---- the chain --------------------------------------------------------------------------------

async function sixLines(): Promise<{ file: string; lines: string[] }> {
  const file = fresh();
  for (let i = 0; i < 6; i++) auditLog().record({ mode: 'one-shot', baseUrl: double.url, model: 'm', tokensIn: 10 + i, tokensOut: 20 + i, privacy: 'warn', identifiers: { NAME: i }, outcome: 'complete', exitCode: 0 });
  const lines = fs.readFileSync(file, 'utf8').split('\n').slice(0, -1);
  assert.equal(lines.length, 6);
  return { file, lines };
}

async function problemsAfter(file: string, text: string): Promise<string[]> {
  fs.writeFileSync(file, text);
  return (await verifyLog(file)).problems;
}

test('verify: an intact log passes; an edited, removed, moved or cut-short line is named by its line number', async () => {
  const { file, lines } = await sixLines();
  const join = (ls: string[]) => ls.join('\n') + '\n';
  assert.deepEqual(await problemsAfter(file, join(lines)), []);
  // Edited: a count changed in line 3, and in the last line (nothing follows it: its own hash tells).
  const edited = [...lines];
  edited[2] = edited[2]!.replace('"tokens_in":12', '"tokens_in":99');
  assert.match((await problemsAfter(file, join(edited)))[0]!, /^line 3: changed/);
  const lastEdited = [...lines];
  lastEdited[5] = lastEdited[5]!.replace('"outcome":"complete"', '"outcome":"failed"');
  assert.match((await problemsAfter(file, join(lastEdited)))[0]!, /^line 6: changed/);
  // Removed: line 3 gone, so the line now at 3 does not follow line 2.
  const removed = lines.filter((_, i) => i !== 2);
  assert.match((await problemsAfter(file, join(removed)))[0]!, /^line 3: does not follow line 2 .*1 line before it removed/);
  // The first line removed.
  assert.match((await problemsAfter(file, join(lines.slice(1))))[0]!, /^line 1: does not follow the start of the log/);
  // Moved: lines 2 and 4 swapped.
  const swapped = [...lines];
  [swapped[1], swapped[3]] = [swapped[3]!, swapped[1]!];
  assert.match((await problemsAfter(file, join(swapped)))[0]!, /^line 2: does not follow line 1/);
  // Cut short: the file ends inside line 6; and a line cut in the middle of the file.
  assert.match((await problemsAfter(file, join(lines).slice(0, -40)))[0]!, /^line 6: cut short/);
  const cut = [...lines];
  cut[3] = cut[3]!.slice(0, 100);
  assert.match((await problemsAfter(file, join(cut)))[0]!, /^line 4: not a line medchat wrote/);
  // A line added that medchat did not write.
  const added = [...lines.slice(0, 3), lines[2]!, ...lines.slice(3)];
  assert.match((await problemsAfter(file, join(added)))[0]!, /^line 4: does not follow line 3/);
});

test('a log whose end was cut inside a line (a crash mid-write): the next line starts on a line of its own and chains to the last whole line', async () => {
  const { file, lines } = await sixLines();
  fs.writeFileSync(file, lines.join('\n') + '\n' + lines[0]!.slice(0, 30));
  configureAudit({ env: { MEDCHAT_DATA_DIR: dir } });
  auditLog().record({ mode: 'chat', baseUrl: double.url, outcome: 'complete', exitCode: 0 });
  const v = await verifyLog(file);
  assert.deepEqual(v.problems, ['line 7: not a line medchat wrote (changed, or cut short)']);
  assert.equal(v.lines, 8);
});

test('show and export read the lines since a time: 7d, 12h, a date', async () => {
  const { file } = await sixLines();
  const now = new Date('2026-03-10T12:00:00Z');
  assert.equal(parseSince('7d', now).toISOString(), '2026-03-03T12:00:00.000Z');
  assert.equal(parseSince('12h', now).toISOString(), '2026-03-10T00:00:00.000Z');
  assert.throws(() => parseSince('last week'), (e: unknown) => e instanceof MedchatError && e.exitCode === 2);
  const all: string[] = [];
  for await (const l of linesSince(file, parseSince('2000-01-01'))) all.push(l.text);
  assert.equal(all.length, 6);
  const none: string[] = [];
  for await (const l of linesSince(file, new Date(Date.now() + 60_000))) none.push(l.text);
  assert.equal(none.length, 0);
});

// ---- failed writes ----------------------------------------------------------------------------

/** File ops whose writes fail with `code` while `broken` is set (a full disk, a folder made read-only, an I/O error). */
class SwitchableOps extends FaultyFileOps {
  broken: string | undefined;
  override open(file: string, flags: string | number, mode?: number): number {
    if (this.broken === 'EACCES') throw Object.assign(new Error('EACCES: injected'), { code: 'EACCES' });
    return super.open(file, flags as string, mode);
  }
  override write(fd: number, buf: Uint8Array, offset: number, length: number): number {
    if (this.broken) throw Object.assign(new Error(`${this.broken}: injected`), { code: this.broken });
    return super.write(fd, buf, offset, length);
  }
}

test('a failed audit write never costs the answer: one warning, the line kept and written with the next one (every fault at every call)', async () => {
  // A probe write: the calls one audit line makes (the lock, the file).
  const probe = new FaultyFileOps();
  fresh(probe);
  await oneShot('probe', { content: ['probe answer'] });
  const cases = faultCases(probe.calls.filter((c) => c !== 'rename') as never);
  assert.ok(cases.length >= 6, `${cases.length} fault cases`);
  for (const c of cases) {
    const ops = new FaultyFileOps({ at: c.at, kind: c.kind });
    const file = fresh(ops);
    const a = await oneShot('What dose of metformin for Margaret Ellison?', { content: ['500 mg ', 'twice daily'] });
    assert.equal(a.content, '500 mg twice daily', `${c.kind} at ${c.at} (${c.op}): the answer is whole`);
    assert.equal(a.turn.status, 'complete');
    if (ops.fired && !records(file).length) {
      assert.equal(warnings.length, 1, `${c.kind} at ${c.at} (${c.op}): one warning`);
      assert.match(warnings[0]!, /audit log .* cannot be written \((ENOSPC|EIO)[^)]*\): the answer is kept, but not its audit line/);
    }
    ops.heal();
    await oneShot('second', { content: ['ok'] });
    const got = records(file);
    assert.equal(got.length, 2, `${c.kind} at ${c.at} (${c.op}): both lines written in the end`);
    assert.deepEqual((await verifyLog(file)).problems, [], `${c.kind} at ${c.at} (${c.op}): the chain is whole`);
  }
  console.log(`# audit: ${cases.length} fault cases`);
});

test('a full disk for several questions: one warning only, then every held line written in order once there is room', async () => {
  const ops = new SwitchableOps();
  const file = fresh(ops);
  ops.broken = 'ENOSPC';
  for (let i = 0; i < 3; i++) assert.equal((await oneShot(`q${i}`, { content: [`answer ${i}`] })).content, `answer ${i}`);
  assert.equal(warnings.length, 1, 'said once');
  assert.equal(records(file).length, 0);
  ops.broken = undefined;
  await oneShot('q3', { content: ['answer 3'] });
  assert.deepEqual(records(file).map((r) => r.seq), [1, 2, 3, 4]);
  assert.deepEqual((await verifyLog(file)).problems, []);
});

test('required by the policy: a failed write stops the NEXT question (one-shot, batch: thrown before anything is sent; the chat screen: the posed turn fails); written again, questions go on', async () => {
  setPolicy({ audit: true });
  const ops = new SwitchableOps();
  const file = fresh(ops);
  // The setting is off: the policy requires it anyway.
  assert.equal((await oneShot('q1', { content: ['a1'], over: { audit: false } })).content, 'a1');
  assert.equal(records(file).length, 1);
  ops.broken = 'EACCES';
  const second = await oneShot('q2', { content: ['a2'], over: { audit: false } });
  assert.equal(second.content, 'a2', 'the answer of the question whose line failed is kept');
  assert.match(warnings.join('\n'), /cannot be written \(EACCES[^)]*\).*the next question waits until the log can be written/);
  const sent = double.chat.requests.length;
  await assert.rejects(oneShot('q3', { over: { audit: false } }), (e: unknown) => e instanceof MedchatError && e.exitCode === 2 && /cannot be written \(EACCES[^)]*\), and your organisation's policy requires it: nothing was sent/.test(e.message));
  // The chat screen's path: the question is posed, then refused, failed and saved; nothing sent.
  const session = ChatSession.open(settings({ audit: false }), { incognito: true });
  const posed = pose(session, 'q4');
  const a = await answer(posed, {}, () => {});
  assert.equal(a.error?.exitCode, 2);
  assert.equal(posed.turn.status, 'failed');
  assert.equal(double.chat.requests.length, sent, 'nothing was sent unaudited');
  ops.broken = undefined;
  assert.equal((await oneShot('q5', { content: ['a5'], over: { audit: false } })).content, 'a5');
  assert.deepEqual(records(file).map((r) => r.seq), [1, 2, 3]);
  assert.deepEqual((await verifyLog(file)).problems, []);
});

test('required by the policy and the log cannot be opened at all: the first question is refused before anything is sent', async () => {
  setPolicy({ audit: true });
  const ops = new SwitchableOps();
  fresh(ops);
  ops.broken = 'EACCES';
  const sent = double.chat.requests.length;
  await assert.rejects(oneShot('q', { over: { audit: false } }), (e: unknown) => e instanceof MedchatError && e.exitCode === 2);
  assert.equal(double.chat.requests.length, sent);
  assert.equal(warnings.length, 0, 'one line: the refusal, not a warning too');
});

test('off by default: no line, no folder', async () => {
  fresh();
  await oneShot('q', { content: ['a'], over: { audit: false } });
  assert.equal(fs.existsSync(path.join(dir, 'audit')), false);
});

test('the file is 0600 in a 0700 folder', async () => {
  const file = fresh();
  await oneShot('q', { content: ['a'] });
  assert.equal(fs.statSync(file).mode & 0o777, 0o600);
  assert.equal(fs.statSync(path.dirname(file)).mode & 0o777, 0o700);
});

test('policy folder: <dir>/<user>.jsonl; a link planted there is refused, not followed', async () => {
  const shared = tempDir('medchat-audit-shared-');
  setPolicy({ audit: true, 'audit-dir': shared });
  fresh();
  await oneShot('q', { content: ['a'] });
  const files = fs.readdirSync(shared).filter((n) => n.endsWith('.jsonl'));
  assert.equal(files.length, 1);
  const file = path.join(shared, files[0]!);
  assert.equal(records(file)[0]!.user + '.jsonl', files[0]);
  const target = path.join(tempDir('medchat-audit-elsewhere-'), 'x');
  fs.rmSync(file);
  fs.symlinkSync(target, file);
  configureAudit({ env: { MEDCHAT_DATA_DIR: dir } });
  await assert.rejects(oneShot('q', {}), (e: unknown) => e instanceof MedchatError && /link/.test(e.message));
  assert.equal(fs.existsSync(target), false);
});

// ---- each front end: exactly one line, with its mode and exit code ----------------------------

test('one-shot with a schema answer that never matches: one line, outcome schema-invalid, exit 9', async () => {
  const file = fresh();
  const { makePlanner } = await import('../../src/core/request/request-plan.js');
  const plan = (await makePlanner({ settings: settings(), schema: 'name, dose_mg number' })).plan({ prompt: 'the dose?' });
  double.chat.enqueue({ content: ['not json'], reasoning: [] }, { content: ['still not json'], reasoning: [] });
  const session = ChatSession.open(plan.settings, { system: plan.system, incognito: true });
  await ask({ session, question: plan.question, plan, stream: false }, () => {});
  const got = records(file);
  assert.equal(got.length, 1, 'one line for the question and its repair');
  assert.equal(got[0]!.outcome, 'schema-invalid');
  assert.equal(got[0]!.exit_code, 9);
});

test('the chat screen: one line per question, mode chat, the session id when it is saved', async () => {
  const file = fresh();
  double.chat.enqueue({ content: ['first answer'], reasoning: [] }, { content: ['second answer'], reasoning: [] });
  const t = await renderChat(double.url, { settings: { audit: true } });
  await t.send('first question');
  await t.idle();
  await t.send('second question');
  await t.idle();
  const got = records(file);
  assert.deepEqual(got.map((r) => [r.mode, r.outcome, r.exit_code]), [['chat', 'complete', 0], ['chat', 'complete', 0]]);
});

test('the chat screen: a failed audit write is a warning notice on the screen, the answer shown', async () => {
  const ops = new SwitchableOps();
  fresh(ops);
  ops.broken = 'EIO';
  double.chat.enqueue({ content: ['the answer stays'], reasoning: [] });
  const t = await renderChat(double.url, { settings: { audit: true } });
  await t.send('a question');
  await t.idle();
  await t.waitForText('the answer is kept');
  assert.match(t.screen().replace(/\s+/g, ' '), /\(EIO: an input\/output error\)/);
  assert.match(t.screen(), /the answer stays/);
  configureAudit({ warn: (l) => warnings.push(l) });
});

test('retexture: one line per job, mode retexture, the task id, the exit code; never the prompt or the image', async () => {
  const file = fresh();
  double.retexture.enqueue({ id: '4471902', life: { steps: [{ status: 'IN_PROGRESS', progress: '40%' }] } });
  const image = writeTemp('Ellison-wound.png', PNG_BYTES);
  await runRetextureJob({ connection: { baseUrl: double.url, apiKey: 'sk-job', audit: true }, image, prompt: 'show the wound of Margaret Ellison', pollIntervalMs: 5, preview: false });
  double.retexture.enqueue({ life: { steps: [], end: 'FAILURE', failReason: 'image too dark' } });
  await assert.rejects(runRetextureJob({ connection: { baseUrl: double.url, apiKey: 'sk-job', audit: true }, image, prompt: 'x', pollIntervalMs: 5, preview: false }));
  const got = records(file);
  assert.deepEqual(got.map((r) => [r.mode, r.outcome, r.exit_code]), [['retexture', 'complete', 0], ['retexture', 'task-failed', 6]]);
  assert.equal(got[0]!.task, '4471902');
  const text = fs.readFileSync(file, 'utf8');
  for (const w of ['Ellison', 'wound', 'Margaret', 'png', 'dark']) assert.ok(!text.includes(w), `${w} is not in the log`);
});

test('required by the policy on a full disk (the file opens, no line fits): the first question is refused before anything is sent', async () => {
  setPolicy({ audit: true });
  fresh();
  configureAudit({ freeBytes: () => 0 });
  const sent = double.chat.requests.length;
  try {
    await assert.rejects(oneShot('q', { over: { audit: false } }), (e: unknown) => e instanceof MedchatError && e.exitCode === 2 && /\(ENOSPC[^)]*\)/.test(e.message));
    assert.equal(double.chat.requests.length, sent);
  } finally {
    configureAudit({ freeBytes: undefined });
  }
});

test('batch, required by the policy: a failed write after the first item stops the run at the next (exit 2, one line), nothing more sent', async () => {
  const { runBatchCommand } = await import('../../src/cli/commands/batch-run.js');
  const { PassThrough } = await import('node:stream');
  const { capture } = await import('../support/capture.js');
  setPolicy({ audit: true });
  const ops = new SwitchableOps();
  const file = fresh(ops);
  const input = path.join(dir, 'q.jsonl');
  fs.writeFileSync(input, ['a', 'b', 'c', 'd'].map((id) => JSON.stringify({ id, prompt: `question ${id}` })).join('\n') + '\n');
  const hook = double.chat.onRequest;
  const before = double.chat.requests.length;
  double.chat.onRequest = async (req, res, reply) => {
    ops.broken = 'ENOSPC'; // the disk fills while the first item is answered
    await reply();
  };
  const stderr = capture();
  try {
    const code = await runBatchCommand(input, { output: path.join(dir, 'answers.jsonl'), jobs: '1' }, { 'base-url': double.url, 'api-key': 'sk-test-batch' }, {
      stdin: new PassThrough(),
      stdout: capture(),
      stderr,
      signals: false,
      env: { MEDCHAT_CONFIG_DIR: path.join(dir, 'config'), MEDCHAT_DATA_DIR: dir },
    });
    assert.equal(code, 2, stderr.text());
  } finally {
    double.chat.onRequest = hook;
  }
  assert.equal(double.chat.requests.length - before, 1, 'only the first item was sent');
  assert.match(warnings.join('\n'), /cannot be written \(ENOSPC[^)]*\)/);
  assert.match(stderr.text(), /medchat: .*cannot be written \(ENOSPC[^)]*\), and your organisation's policy requires it: nothing was sent/);
  ops.broken = undefined;
  assert.equal((await oneShot('later', { content: ['ok'], over: { audit: false } })).content, 'ok');
  assert.deepEqual(records(file).map((r) => r.mode), ['batch-item', 'one-shot'], "the first item's line is written with the next question");
});
