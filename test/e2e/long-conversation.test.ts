import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { roughTokenCount, startServiceDouble, type RecordedRequest, type ServiceDouble } from '../../src/stand-in/index.js';
import { runCli, tempHome } from '../support/cli.js';

/**
 * Many large turns, one-shot with `-c`, against a double that rejects anything over its window
 * (HTTP 400 "maximum context length") and counts tokens its own way. The window is set small
 * (`context-window` in config) so a dozen turns fill it several times over.
 */
const WINDOW = 16_384;
let double: ServiceDouble;
before(async () => {
  double = await startServiceDouble({ contextWindow: WINDOW });
  double.chat.defaultScript = {
    content: (req: RecordedRequest) =>
      req.body.stream === false
        ? ['Patient: 71-year-old man. Atrial fibrillation on apixaban 5 mg twice daily. eGFR falling. Open question: dose adjustment.']
        : [`Reply to ${String(req.body.messages.at(-1).content).slice(0, 10)}. `, 'Monitor renal function and bleeding risk. '.repeat(70)],
  };
});
after(() => double.close());

const question = (n: number) => `Visit ${n}: ` + `creatinine ${100 + n} µmol/L, weight ${70 + n} kg, INR not applicable, pulse irregular at ${80 + n}. `.repeat(80);
const fits = (r: RecordedRequest) => roughTokenCount(r.body.messages) + r.body.max_tokens <= WINDOW;

test('a long one-shot conversation with -c is never rejected: earlier turns are summarised, the newest sent word for word, the user told', async (t) => {
  const home = tempHome();
  t.after(() => fs.rmSync(home, { recursive: true, force: true, maxRetries: 5 }));
  assert.equal((await runCli(['config', 'set', 'context-window', String(WINDOW)], { home })).code, 0);
  const notices: string[] = [];
  const turns = 12;
  for (let i = 1; i <= turns; i++) {
    const r = await runCli([...(i > 1 ? ['-c'] : []), '--max-tokens', '1024', question(i)], { baseUrl: double.url, home });
    assert.equal(r.code, 0, `turn ${i}: ${r.stderr}`);
    assert.match(r.stdout, new RegExp(`^Reply to Visit ${i}:`));
    for (const line of r.stderr.split('\n')) if (/^Summarised /.test(line)) notices.push(line);
  }
  for (const r of double.chat.requests) assert.ok(fits(r), `a ${roughTokenCount(r.body.messages)}-token request was sent`);

  assert.ok(notices.length >= 1, 'the user was told on stderr');
  assert.match(notices[0]!, /^Summarised \d+ earlier messages \([\d.]+k → [\d.]+k? tokens\)$/);

  const summaries = double.chat.requests.filter((r) => r.body.stream === false);
  assert.ok(summaries.length >= 1);
  for (const s of summaries) {
    assert.equal(s.body.stream, false);
    assert.equal(s.body.enable_thinking, false);
    assert.deepEqual(Object.keys(s.body).sort(), ['enable_thinking', 'max_tokens', 'messages', 'model', 'stream']);
  }

  const last = double.chat.requests.at(-1)!.body.messages as Array<{ role: string; content: string }>;
  assert.equal(last[0]!.role, 'system');
  assert.match(last[0]!.content, /apixaban 5 mg twice daily/);
  assert.equal(last.at(-1)!.content, question(turns));
  assert.equal(last.at(-3)!.content, question(turns - 1));
  assert.equal(last.at(-5)!.content, question(turns - 2));
  assert.match(last.at(-2)!.content, new RegExp(`^Reply to Visit ${turns - 1}:`));
  assert.match(last.at(-4)!.content, new RegExp(`^Reply to Visit ${turns - 2}:`));

  // The whole transcript stays in the session file and the export.
  const dir = path.join(home, 'data', 'sessions');
  const saved = JSON.parse(fs.readFileSync(path.join(dir, fs.readdirSync(dir).find((n) => n.endsWith('.json'))!), 'utf8'));
  assert.equal(saved.turns.length, turns);
  assert.equal(saved.turns[0].user, question(1));
  const md = await runCli(['sessions', 'export', 'latest'], { home });
  assert.ok(md.stdout.includes(question(1)));
  assert.match(md.stdout, /Summarised \d+ earlier messages/);
});

test('one message too long for the window is refused before sending, with the numbers (exit 2)', async (t) => {
  const home = tempHome();
  t.after(() => fs.rmSync(home, { recursive: true, force: true, maxRetries: 5 }));
  assert.equal((await runCli(['config', 'set', 'context-window', String(WINDOW)], { home })).code, 0);
  const before = double.chat.requests.length;
  const r = await runCli(['--max-tokens', '1024'], { baseUrl: double.url, home, stdin: 'atrial fibrillation '.repeat(20_000) });
  assert.equal(r.code, 2);
  assert.match(r.stderr, /too long for the model: about [\d.]+k tokens, but the 16k window leaves 15\.4k for the prompt after 1k for the answer/);
  assert.equal(double.chat.requests.length, before, 'nothing was sent');
});

test('one-shot -c: a summary that comes back cut off is not used; the turns are dropped, the allergy line still sent, and stderr says so', async (t) => {
  const home = tempHome();
  t.after(() => fs.rmSync(home, { recursive: true, force: true, maxRetries: 5 }));
  const set = async (key: string, value: string) => assert.equal((await runCli(['config', 'set', key, value], { home })).code, 0);
  await set('context-window', String(WINDOW));
  await set('compress-at', '1');
  const facts = 'She is a 72-year-old woman. She is allergic to penicillin (anaphylaxis in 2019). She takes warfarin 5 mg daily.';
  const visit = (n: number) => `Visit ${n}: ` + `she walked ${n} km, pulse irregular at ${80 + n}. `.repeat(60);
  for (let i = 1; i <= 4; i++) {
    const r = await runCli([...(i > 1 ? ['-c'] : []), '--max-tokens', '1024', i === 1 ? `${facts} ${visit(i)}` : visit(i)], { baseUrl: double.url, home });
    assert.equal(r.code, 0, `turn ${i}: ${r.stderr}`);
    assert.doesNotMatch(r.stderr, /Summarised|dropped/i);
  }
  // Now the window is "full": the next request folds the oldest turns first, and both summaries come back cut.
  await set('compress-at', '0.3');
  const cut = 'Patient: 72-year-old woman. Allergies: peni';
  double.chat.enqueue({ content: [cut], finishReason: 'length' }, { content: [cut], finishReason: 'length' });
  const before = double.chat.requests.length;
  const r = await runCli(['-c', '--max-tokens', '1024', 'Can she take amoxicillin for her chest infection?'], { baseUrl: double.url, home });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^Reply to Can she ta/);
  const lines = r.stderr.split('\n').filter(Boolean);
  assert.ok(
    lines.some((l) => /^The summary was cut off \(finish_reason length\), twice; dropped \d+ earlier messages instead \([\d.]+k? tokens\); the lines stating penicillin allergy, warfarin 5 mg, age 72 are still sent word for word$/.test(l)),
    r.stderr,
  );
  assert.ok(!lines.some((l) => /^Summarised/.test(l)));

  const sent = double.chat.requests.slice(before);
  assert.deepEqual(sent.map((q) => q.body.stream), [false, false, true], 'a summary, one retry, then the question');
  assert.ok(sent[1]!.body.max_tokens > sent[0]!.body.max_tokens, 'the retry had more room');
  const system = String(sent[2]!.body.messages[0].content);
  assert.ok(!system.includes(cut), 'the cut summary is not sent');
  assert.ok(system.includes('User: "She is allergic to penicillin (anaphylaxis in 2019)."'), 'the allergy is still sent word for word');
  assert.equal(sent[2]!.body.messages.at(-1).content, 'Can she take amoxicillin for her chest infection?');

  const dir = path.join(home, 'data', 'sessions');
  const saved = JSON.parse(fs.readFileSync(path.join(dir, fs.readdirSync(dir).find((n) => n.endsWith('.json'))!), 'utf8'));
  assert.equal(saved.turns.length, 5);
  assert.equal(saved.context.compactions.at(-1).method, 'trim');
  assert.equal(saved.context.compactions.at(-1).reason, 'the summary was cut off (finish_reason length), twice');
  assert.deepEqual(saved.context.compactions.at(-1).quotedFacts, ['penicillin allergy', 'warfarin 5 mg', 'age 72']);

  // The export says what was done, in the place it happened.
  const md = await runCli(['sessions', 'export', 'latest'], { home });
  assert.match(md.stdout, /> _The summary was cut off \(finish_reason length\), twice; dropped \d+ earlier messages instead \([^)]*\); the lines stating penicillin allergy, warfarin 5 mg, age 72 are still sent word for word\. From here on the messages above were no longer sent to the model, except the lines named\._/);
});
