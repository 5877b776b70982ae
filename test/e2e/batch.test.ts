// `medchat batch` as a user runs it (the built binary) against the double: answers as JSON lines,
// resume, bad input, a failing question, rate limits, --ordered, --lines, Ctrl+C and SIGKILL.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, test } from 'node:test';
import { startServiceDouble, type ServiceDouble } from '../support/misbehaving-service.js';
import { TEST_KEY, WAIT_MS, cliEnv, medchatCommand, runCli, tempHome, waitFor } from '../support/cli.js';
import { TmuxPane, tmuxSkip } from '../support/tmux.js';
import { canWatchMemory, mb, runWatched } from '../support/rss.js';

const doubles: ServiceDouble[] = [];
afterEach(async () => {
  for (const d of doubles.splice(0)) await d.close();
});

/** A fresh double (its counts are this test's alone) and a home with a questions file of `n` items. */
async function setup(n: number, latencyMs = 0) {
  const double = await startServiceDouble({ latencyMs });
  doubles.push(double);
  const home = tempHome(); // removed when the file ends (test/support/temp.ts)
  const ids = Array.from({ length: n }, (_, i) => `q${i + 1}`);
  const input = path.join(home, 'questions.jsonl');
  fs.writeFileSync(input, ids.map((id) => JSON.stringify({ id, prompt: `question ${id}` })).join('\n') + '\n');
  const out = path.join(home, 'answers.jsonl');
  return { double, home, ids, input, out };
}

interface Line {
  id: string | number;
  content: string;
  reasoning?: string;
  usage: { prompt_tokens: number } | null;
  finish_reason: string | null;
  error?: { message: string; exit_code: number };
}

/** The answers file, checked to be valid JSON lines (every line whole, ending in a line break). */
function readAnswers(file: string): Line[] {
  const text = fs.readFileSync(file, 'utf8');
  if (!text) return [];
  assert.ok(text.endsWith('\n'), 'the file ends with a whole line');
  return text.slice(0, -1).split('\n').map((l) => JSON.parse(l) as Line);
}

const promptsAsked = (d: ServiceDouble, from = 0) => d.chat.requests.slice(from).map((r) => String(r.body.messages.at(-1).content));

test('every question answered into -o as one JSON line each; a rerun sends nothing', async () => {
  const { double, home, ids, input, out } = await setup(25);
  const r = await runCli(['batch', input, '-o', out], { baseUrl: double.url, home });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, '', 'answers go to the file, nothing to stdout');
  const lines = readAnswers(out);
  assert.deepEqual(lines.map((l) => l.id).sort(), [...ids].sort());
  for (const l of lines) {
    assert.equal(l.content, `You said: question ${l.id}`);
    assert.equal(l.reasoning, 'Let me think about this.');
    assert.equal(l.finish_reason, 'stop');
    assert.ok(l.usage && l.usage.prompt_tokens > 0);
    assert.equal(l.error, undefined);
  }
  assert.equal(fs.statSync(out).mode & 0o777, 0o600, 'answers can hold health details: 0600');
  assert.match(r.stderr, /^medchat batch: 25 answered, 0 failed in [\d.]+s · tokens \d+ in \/ \d+ out$/m);
  assert.ok(!r.stderr.includes(TEST_KEY));

  const sent = double.chat.requests.length;
  const again = await runCli(['batch', input, '-o', out], { baseUrl: double.url, home });
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stderr, /25 of 25 already answered/);
  assert.equal(double.chat.requests.length, sent, 'nothing sent again');
  assert.equal(readAnswers(out).length, 25);
});

test('without -o the answers go to stdout; progress on stderr is one line per 10% when it is not a terminal', async () => {
  const { double, home, input } = await setup(20);
  const r = await runCli(['batch', input], { baseUrl: double.url, home });
  assert.equal(r.code, 0, r.stderr);
  const lines = r.stdout.trimEnd().split('\n').map((l) => JSON.parse(l) as Line);
  assert.equal(lines.length, 20);
  const progress = r.stderr.split('\n').filter((l) => /^medchat batch: \d+% /.test(l));
  assert.deepEqual(progress.map((l) => /(\d+)%/.exec(l)![1]), ['10', '20', '30', '40', '50', '60', '70', '80', '90', '100']);
  assert.match(progress[4]!, /^medchat batch: 50% 10\/20 · 0 failed · [\d.]+\/s · ETA \S+ · tokens \d+ in \/ \d+ out$/);
  assert.doesNotMatch(r.stderr, /\x1b/, 'no escape sequences when stderr is not a terminal');
});

test('--ordered writes the answers in input order though later questions finish first', async () => {
  const { double, home, ids, input, out } = await setup(12);
  // The first questions take longest: as they finish, the order would be reversed.
  double.chat.defaultScript = { headerDelayMs: (req) => 20 * (13 - Number(/q(\d+)/.exec(req.body.messages.at(-1).content)![1])) };
  const r = await runCli(['batch', input, '-o', out, '--ordered', '-j', '4'], { baseUrl: double.url, home });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(readAnswers(out).map((l) => l.id), ids);
});

test('--lines from stdin: each line a question with its line number as id; --system, --no-think and --max-tokens reach every request', async () => {
  const { double, home, out } = await setup(0);
  const tmp = path.join(home, 'tmp');
  fs.mkdirSync(tmp);
  const r = await runCli(['batch', '-', '--lines', '-o', out, '--system', 'Answer in one sentence.', '--no-think', '--max-tokens', '300'], {
    baseUrl: double.url,
    home,
    env: { TMPDIR: tmp },
    stdin: 'what is a fever?\n\nwhat is tachycardia?\r\n',
  });
  assert.equal(r.code, 0, r.stderr);
  const lines = readAnswers(out).sort((a, b) => Number(a.id) - Number(b.id));
  assert.deepEqual(lines.map((l) => [l.id, l.content]), [
    [1, 'You said: what is a fever?'],
    [3, 'You said: what is tachycardia?'],
  ]);
  assert.equal(lines[0]!.reasoning, undefined, 'no reasoning with --no-think');
  for (const req of double.chat.requests) {
    assert.deepEqual(req.body.messages[0], { role: 'system', content: 'Answer in one sentence.' });
    assert.equal(req.body.enable_thinking, false);
    assert.equal(req.body.max_tokens, 300);
    assert.equal(req.body.stream, false);
    assert.deepEqual(Object.keys(req.body).sort(), ['enable_thinking', 'max_tokens', 'messages', 'model', 'stream']);
  }
  assert.deepEqual(fs.readdirSync(tmp), [], 'the private copy of stdin is removed');
});

test('unusable input lines: exit 2, each one named with its line number, nothing sent', async () => {
  const { double, home, out } = await setup(0);
  const input = path.join(home, 'bad.jsonl');
  fs.writeFileSync(input, ['{"id": 1, "prompt": "fine"}', '{"id": 2, "prompt": "cut', '{"id": 1, "prompt": "again"}', '{"id": 3}'].join('\n'));
  const r = await runCli(['batch', input, '-o', out], { baseUrl: double.url, home });
  assert.equal(r.code, 2);
  assert.match(r.stderr, /bad\.jsonl line 2: not valid JSON/);
  assert.match(r.stderr, /bad\.jsonl line 3: the id 1 is already used on line 1/);
  assert.match(r.stderr, /bad\.jsonl line 4: no "prompt" or "messages"/);
  assert.match(r.stderr, /^medchat: \S*bad\.jsonl: 3 unusable lines \(above\); nothing was sent$/m);
  assert.equal(double.chat.requests.length, 0);
  assert.equal(fs.existsSync(out), false, 'no answers file made');
});

test('-o on a file that is not an answers file (ward notes in prose) is refused, exit 2 in one line: the file unchanged byte for byte, nothing sent', async () => {
  const { double, home, input } = await setup(3);
  const notes = path.join(home, 'notes.txt');
  const para = 'Bed 4: 78-year-old admitted with community-acquired pneumonia; on IV co-amoxiclav, sats 94% on 2 L.\n';
  const prose = para.repeat(Math.ceil(5200 / para.length)) + '{"id": "q1", "note": "copied from the chart"}\nHandover: review bloods at 06:00';
  fs.writeFileSync(notes, prose);
  const before = fs.readFileSync(notes);
  const r = await runCli(['batch', input, '-o', notes], { baseUrl: double.url, home });
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /^medchat: \S*notes\.txt is not an answers file medchat can add to: line 1 is not an answer line .*choose another -o/);
  assert.equal(r.stderr.trim().split('\n').length, 1, `one line\n${r.stderr}`);
  assert.deepEqual(fs.readFileSync(notes), before, 'the notes are as they were, byte for byte');
  assert.equal(double.chat.requests.length, 0, 'nothing sent');
  assert.equal(fs.existsSync(`${notes}.lock`), false);
});

test('an answers file whose last line is torn (a power cut mid-write) loses only that line, blank lines before it kept; the rerun asks only the rest', async () => {
  const { double, home, ids, input, out } = await setup(4);
  const first = await runCli(['batch', input, '-o', out], { baseUrl: double.url, home });
  assert.equal(first.code, 0, first.stderr);
  const whole = fs.readFileSync(out, 'utf8').split('\n').filter(Boolean);
  const lost = (JSON.parse(whole[3]!) as Line).id;
  // Three answers and half of the fourth, as a machine that lost power mid-write leaves them; the
  // second time with a blank line before the torn one (an editor's): a whole line, so it stays.
  for (const gap of ['', '\n']) {
    const kept = whole.slice(0, 3).join('\n') + '\n' + gap;
    const torn = whole[3]!.slice(0, 20);
    fs.writeFileSync(out, kept + torn);
    const sent = double.chat.requests.length;
    const r = await runCli(['batch', input, '-o', out], { baseUrl: double.url, home });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, new RegExp(`ended in a partial line .*removed it \\(${Buffer.byteLength(torn)} bytes\\)`));
    const text = fs.readFileSync(out, 'utf8');
    assert.ok(text.startsWith(kept), `every whole line before the torn one is kept as it was\n${JSON.stringify(text)}`);
    assert.deepEqual(promptsAsked(double, sent), [`question ${lost}`], 'only the torn answer is asked again');
    assert.deepEqual(text.split('\n').filter((l) => l.trim()).map((l) => (JSON.parse(l) as Line).id).sort(), [...ids].sort());
  }
});

test('an answers file followed by a line that is not an answer (a note added by hand) is refused, not cut: unchanged, nothing sent', async () => {
  const { double, home, input, out } = await setup(3);
  const first = await runCli(['batch', input, '-o', out], { baseUrl: double.url, home });
  assert.equal(first.code, 0, first.stderr);
  const sent = double.chat.requests.length;
  const answered = fs.readFileSync(out);
  for (const note of ['checked by Dr Okafor, 12 May: q2 needs a second look\n', 'TODO: send to the ward\n\nq3 reviewed', 'reviewed']) {
    fs.writeFileSync(out, Buffer.concat([answered, Buffer.from(note)]));
    const before = fs.readFileSync(out);
    const lineNo = before.toString('utf8').split('\n').findIndex((l) => l.trim() && !l.startsWith('{')) + 1;
    const r = await runCli(['batch', input, '-o', out], { baseUrl: double.url, home });
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, new RegExp(`^medchat: \\S*answers\\.jsonl is not an answers file medchat can add to: line ${lineNo} is not an answer line .*remove that line`));
    assert.deepEqual(fs.readFileSync(out), before, 'the file is as it was, note and all');
    assert.equal(double.chat.requests.length, sent, 'nothing sent');
  }
});

test('one failing question does not stop the run: exit 10, its line carries the error; the rerun asks it again, and only it', async () => {
  const { double, home, ids, input, out } = await setup(6);
  // -j 1: requests arrive in input order; the third is refused.
  double.chat.enqueue({}, {}, { status: 400, body: JSON.stringify({ error: { message: 'bad request for this one', type: 'invalid_request_error' } }) });
  const r = await runCli(['batch', input, '-o', out, '-j', '1'], { baseUrl: double.url, home });
  assert.equal(r.code, 10, r.stderr);
  assert.match(r.stderr, /5 answered, 1 failed/);
  assert.match(r.stderr, /1 failed; their lines carry "error"; run the same command again to ask them again/);
  const lines = readAnswers(out);
  assert.equal(lines.length, 6);
  const failed = lines.filter((l) => l.error);
  assert.deepEqual(failed.map((l) => l.id), ['q3']);
  assert.match(failed[0]!.error!.message, /rejected the request \(400\): bad request for this one/);
  assert.equal(failed[0]!.error!.exit_code, 1);

  const sent = double.chat.requests.length;
  const again = await runCli(['batch', input, '-o', out, '-j', '1'], { baseUrl: double.url, home });
  assert.equal(again.code, 0, again.stderr);
  assert.deepEqual(promptsAsked(double, sent), ['question q3']);
  const final = readAnswers(out);
  assert.deepEqual(final.map((l) => l.id).sort(), [...ids].sort(), 'one line per question: the error line was replaced');
  assert.ok(final.every((l) => !l.error));
});

test('429 with retry-after: nothing is sent before the time asked, concurrency is halved (as the double sees it), and every question is answered', async () => {
  const { double, home, ids, input, out } = await setup(40, 30);
  // The first 8 are refused together, as a burst meets a rate limiter: all 8 in flight, however slow the machine.
  double.chat.throttleNext(8, { status: 429, retryAfter: 1, together: true });
  const r = await runCli(['batch', input, '-o', out, '-j', '8'], { baseUrl: double.url, home });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(readAnswers(out).map((l) => l.id).sort(), [...ids].sort());
  assert.match(r.stderr, /the service is limiting requests \(429\); 8 → 4 at a time, waiting 1s as it asks/);
  const arrivals = double.chat.arrivals;
  assert.equal(arrivals.length, 48, '40 answers and the 8 refused requests');
  assert.equal(Math.max(...arrivals.slice(0, 8).map((a) => a.inFlight)), 8, 'it started at -j 8');
  assert.ok(arrivals[8]!.at - arrivals[7]!.at >= 1000, `the next request waited for retry-after (${arrivals[8]!.at - arrivals[7]!.at} ms)`);
  const next = arrivals.slice(8, 16).map((a) => a.inFlight);
  assert.ok(Math.max(...next.slice(0, 4)) <= 4, `at most 4 at a time after the 429s: ${next}`);
  assert.ok(Math.max(...arrivals.slice(8).map((a) => a.inFlight)) <= 8);
});

test('503 with retry-after as an HTTP date: the wait is until that time', async () => {
  const { double, home, input, out } = await setup(3);
  // The date is made when the refusal is sent (1 to 2 s ahead, HTTP dates count whole seconds), not when the test starts.
  double.chat.throttleNext(1, { status: 503, retryAfter: () => new Date(Date.now() + 2000).toUTCString() });
  const r = await runCli(['batch', input, '-o', out, '-j', '1'], { baseUrl: double.url, home });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(readAnswers(out).length, 3);
  const [first, second] = double.chat.arrivals;
  assert.ok(second!.at - first!.at >= 1000, `waited ${second!.at - first!.at} ms for a date 1-2 s ahead`);
});

test('503 after the retries run out: that question fails, the others are answered (exit 10)', async () => {
  const { double, home, input, out } = await setup(3);
  double.chat.throttleNext(3, { status: 503 });
  const r = await runCli(['batch', input, '-o', out, '-j', '1', '--retries', '2'], { baseUrl: double.url, home });
  assert.equal(r.code, 10, r.stderr);
  const lines = readAnswers(out);
  assert.deepEqual(lines.filter((l) => l.error).map((l) => l.id), ['q1']);
  assert.match(lines[0]!.error!.message, /the service failed \(503\)/);
  assert.equal(double.chat.requests.length, 5, 'q1: the first try and 2 retries; then q2 and q3');
});

test('SIGKILL mid-run: the file is valid JSON lines with no answer lost, and the rerun asks exactly once for each of the rest', async () => {
  const { double, home, ids, input, out } = await setup(60, 40);
  // After 20 requests the double answers no more: the run is stopped midway whatever the machine's speed.
  double.chat.holdAfter(20);
  let child: ChildProcess | undefined;
  const killed = runCli(['batch', input, '-o', out, '-j', '4'], { baseUrl: double.url, home, onSpawn: (c) => (child = c) });
  await waitFor(() => fs.existsSync(out) && readAnswers(out).length >= 10, WAIT_MS, '10 answers in the file');
  child!.kill('SIGKILL');
  const r = await killed;
  assert.equal(r.signal, 'SIGKILL');
  double.chat.release();
  const saved = readAnswers(out);
  assert.ok(saved.length >= 10 && saved.length <= 20, `${saved.length} saved`);
  assert.equal(new Set(saved.map((l) => l.id)).size, saved.length);

  const sent = double.chat.requests.length;
  const again = await runCli(['batch', input, '-o', out, '-j', '4'], { baseUrl: double.url, home });
  assert.equal(again.code, 0, again.stderr);
  const savedIds = new Set(saved.map((l) => `question ${l.id}`));
  const asked = promptsAsked(double, sent);
  assert.equal(asked.length, 60 - saved.length, 'only what was not saved is asked');
  assert.ok(asked.every((p) => !savedIds.has(p)), 'no saved answer asked again');
  assert.equal(new Set(asked).size, asked.length, 'each asked once');
  assert.deepEqual(readAnswers(out).map((l) => l.id).sort(), [...ids].sort());
});

test('a second batch on the same -o while the first runs is refused (exit 2) and changes nothing; the first ends whole', async () => {
  const { double, home, ids, input, out } = await setup(20);
  // The first run stops after 4 answers, holding its lock, until the second has been refused.
  double.chat.holdAfter(4);
  let first: ChildProcess | undefined;
  const running = runCli(['batch', input, '-o', out, '-j', '2'], { baseUrl: double.url, home, onSpawn: (c) => (first = c) });
  await waitFor(() => fs.existsSync(out) && readAnswers(out).length >= 2, WAIT_MS, 'a first answer in the file');
  const second = await runCli(['batch', input, '-o', out, '-j', '2'], { baseUrl: double.url, home });
  double.chat.release();
  assert.equal(second.code, 2, second.stderr);
  assert.equal(
    second.stderr,
    `medchat: another medchat batch (pid ${first!.pid}) is writing ${out}; wait for it to end, or choose another -o (if none runs, remove ${out}.lock)\n`,
  );
  const r = await running;
  assert.equal(r.code, 0, r.stderr);
  const lines = readAnswers(out);
  assert.deepEqual(lines.map((l) => l.id).sort(), [...ids].sort(), 'each question answered once, by the first run');
  assert.equal(double.chat.requests.length, 20, 'the second run asked nothing');
  assert.equal(fs.existsSync(`${out}.lock`), false, 'the lock is gone when the run ends');
});

test('Ctrl+C: the answers in flight are finished and written, nothing new is sent, exit 130; a second Ctrl+C leaves at once', async () => {
  const { double, home, input, out } = await setup(40);
  /** The batch run, and its stderr so far (to see when a Ctrl+C was taken). */
  const start = () => {
    const running = { child: undefined as ChildProcess | undefined, stderr: '', done: undefined as unknown as ReturnType<typeof runCli> };
    running.done = runCli(['batch', input, '-o', out, '-j', '4'], {
      baseUrl: double.url,
      home,
      onSpawn: (c) => {
        running.child = c;
        c.stderr!.on('data', (d) => (running.stderr += d));
      },
    });
    return running;
  };
  // 8 answers, then 4 requests held in flight: Ctrl+C comes while they are, whatever the machine's speed.
  double.chat.holdAfter(8);
  const first = start();
  await waitFor(() => double.chat.arrivals.length === 12 && double.chat.inFlight === 4, WAIT_MS, 'four requests in flight');
  first.child!.kill('SIGINT');
  await waitFor(() => first.stderr.includes('stopping'), WAIT_MS, 'the Ctrl+C to be taken');
  double.chat.release();
  const r = await first.done;
  assert.equal(r.code, 130, r.stderr);
  assert.match(r.stderr, /medchat batch: stopping; finishing the \d answers? in flight, for 5 s at most \(Ctrl\+C again to leave now\)/);
  assert.match(r.stderr, /interrupted with \d+ questions left; run the same command again to continue/);
  const lines = readAnswers(out);
  assert.equal(lines.length, double.chat.requests.length, 'every request sent has its answer in the file');
  assert.ok(lines.length < 40);

  // Twice: out at once, the file still whole.
  double.chat.holdAfter(double.chat.arrivals.length);
  const before = readAnswers(out).length;
  const second = start();
  await waitFor(() => double.chat.inFlight === 4, WAIT_MS, 'four requests in flight');
  second.child!.kill('SIGINT');
  await waitFor(() => second.stderr.includes('stopping'), WAIT_MS, 'the first Ctrl+C to be taken');
  second.child!.kill('SIGINT');
  const r2 = await second.done;
  double.chat.release();
  assert.equal(r2.code, 130, r2.stderr);
  assert.match(r2.stderr, /left at once/);
  assert.equal(readAnswers(out).length, before);
});

test('on a terminal: one progress line redrawn in place (bar, done/total, failures, rate, ETA, tokens), then the summary', { skip: tmuxSkip }, async () => {
  const { double, home, input, out } = await setup(40);
  // Held after 10 answers, so the bar is on screen to be read, then let go to the end.
  double.chat.holdAfter(10);
  const pane = new TmuxPane(['batch', input, '-o', out, '-j', '2'], { MEDCHAT_BASE_URL: double.url, MEDCHAT_API_KEY: TEST_KEY }, { home });
  try {
    await pane.waitForText(/\[#+\.+\] 10\/40 · 0 failed · [\d.]+\/s · ETA \S+ · tokens \d+ in \/ \d+ out/, WAIT_MS);
    double.chat.release();
    const end = await pane.exited(WAIT_MS);
    assert.equal(end.code, 0);
    const screen = pane.screen();
    const summary = screen.split('\n').findIndex((l) => l.startsWith('medchat batch: 40 answered, 0 failed'));
    assert.ok(summary >= 0, screen);
    assert.deepEqual(screen.split('\n').slice(0, summary).filter((l) => l.trim()), [], 'the bar was redrawn on one line and cleared before the summary');
  } finally {
    pane.kill();
  }
});

test('a refused key stops the run at once (exit 3): no question is worth asking with it', async () => {
  const { double, home, input, out } = await setup(30);
  double.chat.defaultScript = { status: 401, body: JSON.stringify({ error: { message: 'Incorrect API key provided', type: 'invalid_request_error' } }) };
  const r = await runCli(['batch', input, '-o', out, '-j', '2'], { baseUrl: double.url, home });
  assert.equal(r.code, 3, r.stderr);
  assert.match(r.stderr, /^medchat: the service refused the API key \(401\).*finished answers are saved: fix that and run the same command again to continue$/m);
  assert.ok(double.chat.requests.length <= 2, `${double.chat.requests.length} requests`);
  assert.deepEqual(readAnswers(out), []);
});

test('the service unreachable: the run stops after a run of failures instead of failing every question (exit 1)', async () => {
  const { home, input, out } = await setup(100);
  const r = await runCli(['batch', input, '-o', out, '-j', '2'], { baseUrl: 'http://127.0.0.1:9', home });
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /^medchat: stopped: the last 10 questions all failed; the service looks down or unreachable \(cannot connect/m);
  const lines = readAnswers(out);
  assert.ok(lines.length >= 10 && lines.length < 20 && lines.every((l) => l.error), `${lines.length} error lines`);
});

test('100,000 questions are read as a stream: resuming a run with 10 left stays under 200 MB and asks only those 10', { skip: canWatchMemory ? false : 'needs /proc' }, async (t) => {
  const { double, home } = await setup(0);
  const input = path.join(home, 'big.jsonl');
  const out = path.join(home, 'big-answers.jsonl');
  const n = 100_000;
  const q = fs.openSync(input, 'w');
  const a = fs.openSync(out, 'w');
  let qs = '';
  let as = '';
  for (let i = 0; i < n; i++) {
    qs += JSON.stringify({ id: `q${i}`, prompt: `What is the usual adult dose of drug number ${i}, and its common side effects?` }) + '\n';
    if (i % 10_000 !== 0) as += JSON.stringify({ id: `q${i}`, content: `The usual adult dose of drug ${i} is one tablet a day.`, usage: { prompt_tokens: 30, completion_tokens: 12 }, finish_reason: 'stop' }) + '\n';
    if (qs.length > 1 << 20) {
      fs.writeSync(q, qs);
      fs.writeSync(a, as);
      qs = as = '';
    }
  }
  fs.writeSync(q, qs);
  fs.writeSync(a, as);
  fs.closeSync(q);
  fs.closeSync(a);
  const r = await runWatched(['batch', input, '-o', out], { baseUrl: double.url, home, timeoutMs: 60_000, killAboveKb: 400 * 1024 });
  assert.equal(r.killed, undefined);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /99990 of 100000 already answered in .*; 10 to go/);
  assert.deepEqual(promptsAsked(double).map((p) => /number (\d+),/.exec(p)![1]).sort((x, y) => Number(x) - Number(y)), ['0', '10000', '20000', '30000', '40000', '50000', '60000', '70000', '80000', '90000']);
  t.diagnostic(`peak RSS ${mb(Math.max(r.peakRssKb, r.hwmKb))}`);
  assert.ok(Math.max(r.peakRssKb, r.hwmKb) < 200 * 1024, `peak ${mb(Math.max(r.peakRssKb, r.hwmKb))}`);
  assert.equal(readAnswers(out).length, n);
});

test('--schema: each answer checked, an invalid one asked once more with the errors; still invalid, its line says so (exit_code 9) and the run exits 10', async () => {
  const { double, home, input, out } = await setup(3);
  double.chat.defaultScript = {
    content: (req) => {
      const messages = req.body.messages as Array<{ role: string; content: string }>;
      const question = messages.find((m) => m.role === 'user')!.content;
      const repair = messages.length > 2;
      if (question.endsWith('q1')) return ['```json\n{"name": "aspirin", "dose_mg": 100}\n```'];
      if (question.endsWith('q2')) return [repair ? '{"name": "ibuprofen", "dose_mg": 400}' : 'Sure! ibuprofen, 400 mg'];
      return ['{"name": "paracetamol", "dose_mg": "a lot"}'];
    },
  };
  const r = await runCli(['batch', input, '-o', out, '-j', '1', '--schema', 'name, dose_mg number'], { baseUrl: double.url, home });
  assert.equal(r.code, 10, r.stderr);
  const byId = Object.fromEntries(readAnswers(out).map((l) => [l.id, l as Line & Record<string, unknown>]));
  assert.equal(byId.q1!.content, '{"name":"aspirin","dose_mg":100}');
  assert.deepEqual(byId.q1!.value, { name: 'aspirin', dose_mg: 100 });
  assert.equal(byId.q1!.valid, true);
  assert.equal(byId.q1!.attempts, 1);
  assert.deepEqual(byId.q2!.value, { name: 'ibuprofen', dose_mg: 400 });
  assert.equal(byId.q2!.attempts, 2, 'repaired once');
  assert.equal(byId.q2!.error, undefined);
  assert.equal(byId.q3!.valid, false);
  assert.equal(byId.q3!.error!.exit_code, 9);
  assert.match(byId.q3!.error!.message, /not valid JSON for the schema, even after one repair request/);
  assert.ok((byId.q3!.schema_errors as string[]).length > 0);
  assert.equal(byId.q3!.content, '{"name": "paracetamol", "dose_mg": "a lot"}', 'the raw answer is kept');
  assert.equal(double.chat.requests.length, 5, 'q1 once, q2 and q3 twice');
  for (const req of double.chat.requests) {
    assert.equal(req.body.enable_thinking, false, 'thinking is off for schema answers');
    assert.equal(req.body.messages[0].role, 'system');
    assert.deepEqual(Object.keys(req.body).sort(), ['enable_thinking', 'max_tokens', 'messages', 'model', 'stream']);
  }
});

test('-r ROLE: the role\'s system prompt (then -s, then the line\'s own) goes with every question', async () => {
  const { double, home, out } = await setup(0);
  const input = path.join(home, 'notes.jsonl');
  fs.writeFileSync(input, JSON.stringify({ id: 'n1', prompt: 'BP 150/95, on amlodipine', system: 'Patient is 70.' }) + '\n');
  const r = await runCli(['batch', input, '-o', out, '-r', 'explain', '-s', 'Be brief.'], { baseUrl: double.url, home });
  assert.equal(r.code, 0, r.stderr);
  const system: string = double.chat.requests[0]!.body.messages[0].content;
  assert.equal(double.chat.requests[0]!.body.messages[0].role, 'system');
  assert.match(system, /grade/i, 'the explain role\'s prompt');
  assert.ok(system.indexOf('Be brief.') > 0 && system.indexOf('Patient is 70.') > system.indexOf('Be brief.'), system);
  const unknown = await runCli(['batch', input, '-o', out, '-r', 'no-such-role'], { baseUrl: double.url, home });
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /no-such-role/);
});

/** Run medchat with stdout on a file such as /dev/full, stderr captured; killed (and failed) after 60 s. */
function runToStdoutFile(args: string[], opts: { baseUrl: string; home: string }, stdoutPath: string): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const fd = fs.openSync(stdoutPath, 'w');
    const [cmd, ...argv] = medchatCommand();
    const child = spawn(cmd!, [...argv, ...args], { env: cliEnv(opts), stdio: ['ignore', fd, 'pipe'] });
    fs.closeSync(fd);
    let stderr = '';
    child.stderr!.on('data', (c) => (stderr += c));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`medchat ${args.join(' ')} did not end within 60 s:\n${stderr}`));
    }, 60_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}

test('batch > /dev/full: one medchat: line and exit 1, every time, with one question or several', { skip: !fs.existsSync('/dev/full') && 'no /dev/full' }, async () => {
  for (const n of [1, 3, 1, 3, 1, 3]) {
    const { double, home, input } = await setup(n);
    const r = await runToStdoutFile(['batch', input, '-j', '3'], { baseUrl: double.url, home }, '/dev/full');
    assert.equal(r.code, 1, `${n} question(s):\n${r.stderr}`);
    assert.doesNotMatch(r.stderr, /\n\s+at |node:internal|Node\.js v/, r.stderr);
    const lines = r.stderr.split('\n').filter((l) => l.startsWith('medchat:'));
    assert.equal(lines.length, 1, `one medchat: line:\n${r.stderr}`);
    assert.match(lines[0]!, /^medchat: cannot write to stdout \(ENOSPC: no space left on the device\)/);
  }
});

test('batch -o with stdout on /dev/full: the answers file is whole and valid (nothing goes to stdout)', { skip: !fs.existsSync('/dev/full') && 'no /dev/full' }, async () => {
  const { double, home, ids, input, out } = await setup(3);
  const r = await runToStdoutFile(['batch', input, '-o', out], { baseUrl: double.url, home }, '/dev/full');
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(readAnswers(out).map((l) => l.id).sort(), [...ids].sort());
});

/** Run medchat batch; runCli kills it and fails the test if it has not ended within 60 s. */
const batchWithin60s = (args: string[], opts: { baseUrl: string; home: string }) => runCli(args, { ...opts, timeoutMs: 60_000 });

// Each case has a stand-in of its own, so the four 30-second waits run at once: the suite pays for one.
test('retry-after 3600, Infinity or a date in 2100 at -j 1: the run waits at most 30 s, says what it waits for, and ends with every question answered; Infinity on every try: the question gives up after its capped wait (its line says so) and the run ends', async () => {
  const capped = async (what: string, retryAfter: string) => {
    const { double, home, ids, input, out } = await setup(2);
    double.chat.throttleNext(1, { status: 429, retryAfter });
    const r = await batchWithin60s(['batch', input, '-o', out, '-j', '1'], { baseUrl: double.url, home });
    assert.equal(r.code, 0, `${what}: ${r.stderr}`);
    assert.deepEqual(readAnswers(out).map((l) => l.id).sort(), [...ids].sort(), what);
    assert.doesNotMatch(r.stderr, /TimeoutOverflowWarning|NaN|Infinity/, `${what}: ${r.stderr}`);
    assert.match(r.stderr, /the service is limiting requests \(429\); it asks to wait (1h|no end|\d+h\d*m?), medchat waits 30s at most before sending more/, what);
    const [first, second] = double.chat.arrivals;
    assert.ok(second!.at - first!.at >= 25_000, `${what}: it waited the capped 30 s (${second!.at - first!.at} ms), not nothing`);
  };
  const givesUp = async () => {
    const { double, home, input, out } = await setup(1);
    double.chat.throttleNext(10, { status: 503, retryAfter: 'Infinity' });
    const r = await batchWithin60s(['batch', input, '-o', out, '-j', '1', '--retries', '3'], { baseUrl: double.url, home });
    assert.equal(r.code, 10, r.stderr);
    const [line] = readAnswers(out);
    assert.match(line!.error!.message, /503/);
    assert.doesNotMatch(r.stderr + line!.error!.message, /TimeoutOverflowWarning|NaN|Infinity/);
    assert.equal(double.chat.requests.length, 2, 'the first try, and one more after the 30 s wait; then the 30 s in all is spent');
  };
  await Promise.all([capped('3600 (an hour)', '3600'), capped('Infinity', 'Infinity'), capped('a date in 2100', 'Fri, 01 Jan 2100 00:00:00 GMT'), givesUp()]);
});
