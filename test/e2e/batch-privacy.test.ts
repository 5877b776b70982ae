// The patient-identifier guard in `medchat batch`: each question guarded on its own, the
// summed counts on stderr, and in redact mode nothing identifying reaches the service while the
// answers file gets the values back.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { startServiceDouble, type ServiceDouble } from '../../src/stand-in/index.js';
import type { RecordedRequest } from '../../src/stand-in/server.js';
import { runCli, tempHome } from '../support/cli.js';

let double: ServiceDouble;
before(async () => {
  double = await startServiceDouble();
});
after(() => double.close());

const NOTES = [
  { id: 'a', prompt: 'Patient: Margaret Ellison   MRN: K4471902. Summarise.' },
  { id: 'b', prompt: 'BP 128/76, amoxicillin 500 mg TDS, day 3. Summarise.' },
  { id: 'c', prompt: 'Seen by Dr Ruth Okafor on 03/04/2025; call 07700 900733.' },
];
const VALUES = ['Margaret Ellison', 'K4471902', 'Ruth Okafor', '03/04/2025', '07700 900733'];
/** The double answers with the question it received. */
const echo = (req: RecordedRequest) => [`Received: ${(req.body.messages as Array<{ content: string }>).at(-1)!.content}`];

function setup() {
  const home = tempHome();
  const input = path.join(home, 'notes.jsonl');
  fs.writeFileSync(input, NOTES.map((n) => JSON.stringify(n)).join('\n') + '\n');
  return { home, input, out: path.join(home, 'answers.jsonl') };
}
const lines = (file: string) =>
  fs.readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { id: string; content: string; privacy?: Record<string, unknown> });

test('batch --privacy redact: no value reaches the service; each answer line has them back and says what was done', async () => {
  const { home, input, out } = setup();
  double.chat.defaultScript = { reasoning: [], content: echo };
  const from = double.chat.requests.length;
  const r = await runCli(['batch', input, '-o', out, '--privacy', 'redact', '-j', '1'], { baseUrl: double.url, home });
  assert.equal(r.code, 0, r.stderr);
  const sent = double.chat.requests.slice(from).map((q) => q.rawBody).join('\n');
  for (const v of VALUES) assert.ok(!sent.includes(v), `${v} was sent`);
  const byId = new Map(lines(out).map((l) => [l.id, l]));
  assert.equal(byId.get('a')!.content, `Received: ${NOTES[0]!.prompt}`);
  assert.equal(byId.get('c')!.content, `Received: ${NOTES[2]!.prompt}`);
  assert.deepEqual(byId.get('a')!.privacy, { mode: 'redact', found: { NAME: 1, MRN: 1 }, put_back: 2 });
  assert.equal(byId.get('b')!.privacy, undefined, 'clinical text alone is not flagged');
  assert.match(r.stderr, /medchat batch: privacy: 2 questions held .*; replaced before sending/);
});

test('batch in warn mode (the default) sends as typed and reports the counts once, at the end', async () => {
  const { home, input, out } = setup();
  double.chat.defaultScript = { reasoning: [], content: echo };
  const from = double.chat.requests.length;
  const r = await runCli(['batch', input, '-o', out], { baseUrl: double.url, home });
  assert.equal(r.code, 0, r.stderr);
  const sent = double.chat.requests.slice(from).map((q) => q.rawBody).join('\n');
  assert.ok(sent.includes('Margaret Ellison'), 'warn sends the question as typed');
  assert.equal(r.stderr.match(/privacy:/g)?.length, 1, r.stderr);
  assert.match(r.stderr, /medchat batch: privacy: 2 questions held .*; sent as typed/);
  assert.equal(lines(out).find((l) => l.id === 'a')!.privacy?.mode, 'warn');
});

test('batch --privacy off looks at nothing; --shift-dates without redact is refused before anything is sent', async () => {
  const { home, input, out } = setup();
  const off = await runCli(['batch', input, '-o', out, '--privacy', 'off'], { baseUrl: double.url, home });
  assert.equal(off.code, 0, off.stderr);
  assert.doesNotMatch(off.stderr, /privacy/);
  const from = double.chat.requests.length;
  const bad = await runCli(['batch', input, '-o', path.join(home, 'other.jsonl'), '--shift-dates'], { baseUrl: double.url, home });
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--shift-dates goes with --privacy redact/);
  assert.equal(double.chat.requests.length, from);
});
