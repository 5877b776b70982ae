import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { startServiceDouble, type ServiceDouble } from '../../src/stand-in/index.js';
import type { RecordedRequest } from '../../src/stand-in/server.js';
import { cliEnv, medchatCommand, runCli, tempHome } from '../support/cli.js';
import { hasScript } from '../support/fault-runner.js';

/**
 * The patient-identifier guard through the real binary and the service double: what
 * reaches the service, what the user sees, what the session keeps, and `medchat privacy check`.
 */
let double: ServiceDouble;
before(async () => {
  double = await startServiceDouble();
});
after(() => double.close());

const NOTE = `Patient: Margaret Ellison   DOB: 14/07/1951   MRN: K4471902
Admitted 03/04/2025 with pneumonia. Daughter Helen on 07700 900733.`;
const VALUES = ['Margaret Ellison', 'Ellison', '14/07/1951', 'K4471902', '03/04/2025', 'Helen', '07700 900733'];

/** The double answers by repeating the question it received, a few characters at a time (placeholders cut in two). */
const echo = (req: RecordedRequest) => {
  const messages = req.body.messages as Array<{ content: string }>;
  return ['Received: ', ...messages.at(-1)!.content.match(/[\s\S]{1,3}/g)!];
};
const lastRequest = () => double.chat.requests.at(-1)!;
const sessionFile = (home: string) => {
  const dir = path.join(home, 'data', 'sessions');
  const files = fs.readdirSync(dir).filter((f) => f.endsWith('.json'));
  assert.equal(files.length, 1);
  return JSON.parse(fs.readFileSync(path.join(dir, files[0]!), 'utf8'));
};

test('privacy check lists what it finds with line:column and exits 11; clean text exits 0', async () => {
  const found = await runCli(['privacy', 'check'], { stdin: NOTE });
  assert.equal(found.code, 11);
  assert.equal(
    found.stdout,
    ['1:10     NAME    Margaret Ellison', '1:34     DATE    14/07/1951', '1:52     MRN     K4471902', '2:10     DATE    03/04/2025', '2:46     NAME    Helen', '2:55     PHONE   07700 900733', ''].join('\n'),
  );
  assert.equal(found.stderr, 'medchat: privacy: stdin: 6 found: 2 names, 2 dates, 1 phone/fax number, 1 record/account number\n');
  const clean = await runCli(['privacy', 'check', '-'], { stdin: 'Amoxicillin 500 mg TDS for 5 days; BP 128/76; day 3.' });
  assert.equal(clean.code, 0);
  assert.equal(clean.stdout, '');
  assert.equal(clean.stderr, 'medchat: privacy: stdin: nothing found\n');
});

test('privacy check --json: one object with kinds, text, offsets and positions; a file by name', async () => {
  const home = tempHome();
  const file = path.join(home, 'note.txt');
  fs.writeFileSync(file, NOTE);
  const r = await runCli(['privacy', 'check', '--json', file], { home });
  assert.equal(r.code, 11);
  const j = JSON.parse(r.stdout);
  assert.equal(j.found, 6);
  assert.deepEqual(j.counts, { NAME: 2, DATE: 2, PHONE: 1, MRN: 1 });
  assert.deepEqual(j.findings[0], { kind: 'NAME', text: 'Margaret Ellison', start: 9, end: 25, line: 1, column: 10 });
  assert.equal(r.stderr, '');
});

test('privacy check usage errors exit 2 with one line', async () => {
  const missing = await runCli(['privacy', 'check', '/no/such/note.txt']);
  assert.equal(missing.code, 2);
  assert.equal(missing.stderr, 'medchat: /no/such/note.txt: no such file\n');
  const both = await runCli(['privacy', 'check', '--json', '--redacted'], { stdin: NOTE });
  assert.equal(both.code, 2);
});

test('one-shot warn (the default): counts by kind on stderr, the question sent as typed', async () => {
  double.chat.enqueue({ content: ['ok'] });
  const r = await runCli(['summarise'], { baseUrl: double.url, stdin: NOTE });
  assert.equal(r.code, 0);
  assert.equal(r.stdout, 'ok');
  assert.match(r.stderr, /^medchat: privacy: the text to send has 2 names, 2 dates, 1 phone\/fax number, 1 record\/account number; sent as typed/m);
  assert.ok(lastRequest().rawBody.includes('Margaret Ellison'));
});

test('one-shot redact: the request holds none of the values; the answer shown has them back, listed on stderr', async () => {
  const home = tempHome();
  double.chat.enqueue({ content: echo, reasoning: ['Think about [NAM', 'E-1].'] });
  const r = await runCli(['--privacy', 'redact', 'summarise'], { baseUrl: double.url, stdin: NOTE, home });
  assert.equal(r.code, 0, r.stderr);
  const raw = lastRequest().rawBody;
  for (const v of VALUES) assert.ok(!raw.includes(v), `${v} was sent`);
  const sent = lastRequest().body.messages.at(-1).content;
  assert.equal(
    sent,
    'Patient: [NAME-1]   DOB: [DATE-1]   MRN: [MRN-1]\nAdmitted [DATE-2] with pneumonia. Daughter [NAME-2] on [PHONE-1].\n\nsummarise',
  );
  // A pipe gets the answer plain, as if nothing had been replaced; stderr says what was put back.
  assert.equal(r.stdout, `Received: ${NOTE}\n\nsummarise`);
  assert.match(r.stderr, /medchat: privacy: replaced 2 names, 2 dates, 1 phone\/fax number, 1 record\/account number before sending/);
  assert.match(r.stderr, /Think about Margaret Ellison\./);
  assert.match(r.stderr, /medchat: privacy: put back in the answer: \[NAME-1\] → Margaret Ellison, \[DATE-1\] → 14\/07\/1951, \[MRN-1\] → K4471902/);
  // The session keeps what was sent (and resends it) and what was typed and shown.
  const turn = sessionFile(home).turns[0];
  assert.equal(turn.user, sent);
  assert.equal(turn.answer, `Received: ${sent}`);
  assert.equal(turn.privacy.mode, 'redact');
  assert.equal(turn.privacy.typed, `${NOTE}\n\nsummarise`);
  assert.equal(turn.privacy.shown, r.stdout);
});

test('placeholders stay the same on the next turn of the conversation (-c)', async () => {
  const home = tempHome();
  double.chat.enqueue({ content: ['noted'] }, { content: echo });
  assert.equal((await runCli(['--privacy', 'redact', 'summarise'], { baseUrl: double.url, stdin: NOTE, home })).code, 0);
  const r = await runCli(['-c', '--privacy', 'redact', 'Is Mrs Margaret Ellison (MRN K4471902) fit for discharge? Dr Ruth Okafor asks.'], { baseUrl: double.url, home });
  assert.equal(r.code, 0, r.stderr);
  const messages = lastRequest().body.messages as Array<{ role: string; content: string }>;
  assert.equal(messages[0]!.content.split('\n')[0], 'Patient: [NAME-1]   DOB: [DATE-1]   MRN: [MRN-1]', 'the first turn is resent as it was sent');
  assert.equal(messages.at(-1)!.content, 'Is Mrs [NAME-1] (MRN [MRN-1]) fit for discharge? Dr [NAME-3] asks.');
  for (const v of [...VALUES, 'Ruth Okafor']) assert.ok(!lastRequest().rawBody.includes(v), `${v} was sent`);
  assert.equal(r.stdout, 'Received: Is Mrs Margaret Ellison (MRN K4471902) fit for discharge? Dr Ruth Okafor asks.');
});

test('--shift-dates: dates move by one offset (intervals kept) instead of placeholders; the answer has them back', async () => {
  double.chat.enqueue({ content: echo });
  const r = await runCli(['--privacy', 'redact', '--shift-dates', 'Admitted 03/04/2025, discharged 10/04/2025. Patient: Ann Lee.'], { baseUrl: double.url });
  assert.equal(r.code, 0, r.stderr);
  const sent = lastRequest().body.messages.at(-1).content as string;
  const m = /^Admitted (\d\d)\/(\d\d)\/(\d{4}), discharged (\d\d)\/(\d\d)\/(\d{4})\. Patient: \[NAME-1\]\.$/.exec(sent);
  assert.ok(m, sent);
  const day = (d: string, mo: string, y: string) => Date.UTC(Number(y), Number(mo) - 1, Number(d)) / 86_400_000;
  assert.equal(day(m[4]!, m[5]!, m[6]!) - day(m[1]!, m[2]!, m[3]!), 7, 'the interval survives');
  assert.notEqual(`${m[1]}/${m[2]}/${m[3]}`, '03/04/2025', 'the date itself does not');
  assert.equal(r.stdout, 'Received: Admitted 03/04/2025, discharged 10/04/2025. Patient: Ann Lee.');
  assert.match(r.stderr, /dates shifted, intervals kept/);
});

test('--privacy off: nothing is looked at or said; config `privacy redact` works without the flag', async () => {
  double.chat.enqueue({ content: ['ok'] });
  const off = await runCli(['--privacy', 'off', '--reasoning', 'hide', 'summarise'], { baseUrl: double.url, stdin: NOTE });
  assert.equal(off.code, 0);
  assert.equal(off.stderr, '');
  assert.ok(lastRequest().rawBody.includes('Margaret Ellison'));

  const home = tempHome();
  assert.equal((await runCli(['config', 'set', 'privacy', 'redact'], { home })).code, 0);
  double.chat.enqueue({ content: ['ok'] });
  const r = await runCli(['summarise'], { baseUrl: double.url, stdin: NOTE, home });
  assert.equal(r.code, 0);
  assert.ok(!lastRequest().rawBody.includes('Margaret Ellison'));
  assert.equal((await runCli(['config', 'set', 'privacy', 'loud'], { home })).code, 2);
});

test('--shift-dates without redact is a usage error (exit 2), before anything is sent', async () => {
  const before = double.chat.requests.length;
  const r = await runCli(['--shift-dates', 'hello'], { baseUrl: double.url });
  assert.equal(r.code, 2);
  assert.match(r.stderr, /--shift-dates goes with --privacy redact/);
  assert.equal(double.chat.requests.length, before);
});

test('--json and --jsonl carry the answer with the values back, plain', async () => {
  double.chat.enqueue({ content: echo });
  const j = await runCli(['--json', '--privacy', 'redact', 'Patient: Ann Lee'], { baseUrl: double.url });
  const obj = JSON.parse(j.stdout);
  assert.equal(obj.content, 'Received: Patient: Ann Lee');
  assert.deepEqual(obj.privacy, { mode: 'redact', found: { NAME: 1 }, put_back: [{ placeholder: '[NAME-1]', value: 'Ann Lee' }] });
  double.chat.enqueue({ content: echo });
  const l = await runCli(['--jsonl', '--privacy', 'redact', 'Patient: Ann Lee'], { baseUrl: double.url });
  const text = l.stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line))
    .filter((e) => e.type === 'content')
    .map((e) => e.text)
    .join('');
  assert.equal(text, 'Received: Patient: Ann Lee');
});

/** The binary on a pseudo-terminal (`script`): stdout is a terminal, so values put back are marked. */
function onTerminal(args: string[], env: Record<string, string>): Promise<string> {
  const home = tempHome();
  const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qec', `${[...medchatCommand(), ...args].map(q).join(' ')}`, '/dev/null'], {
      env: cliEnv({ baseUrl: double.url, home, env: { TERM: 'xterm-256color', ...env } }),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error('script did not finish within 20 s'));
    }, 20_000);
    child.on('close', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(out).toString('utf8'));
    });
  });
}

test('on a terminal each value put back is underlined (in ⟦ ⟧ with NO_COLOR)', { skip: !hasScript && 'script(1) not found' }, async () => {
  double.chat.enqueue({ content: echo, reasoning: [] });
  const shown = await onTerminal(['--privacy', 'redact', 'Patient: Ann Lee'], {});
  assert.match(shown, /Received: Patient: \x1b\[4mAnn Lee\x1b\[24m/);
  assert.match(shown, /1 value put back in the answer \(underlined\)/);
  double.chat.enqueue({ content: echo, reasoning: [] });
  const plain = await onTerminal(['--privacy', 'redact', 'Patient: Ann Lee'], { NO_COLOR: '1' });
  assert.match(plain, /Received: Patient: ⟦Ann Lee⟧/);
  assert.doesNotMatch(plain, /\x1b\[4m/);
});
