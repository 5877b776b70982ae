// SIGTERM and SIGHUP in every phase of the newer commands (issue 21, "every phase answering SIGTERM"),
// generated from a seed: batch (reading stdin, waiting on a 429's retry-after, mid-answer of item k at
// -j 1 and -j 4, writing the answers fast), --schema (streaming, during the repair request), -r ROLE,
// -f FILE, -c, privacy check (stdin held open, a big file), sessions list and sessions export. The
// signal comes at a seeded point, or at a phase the double shows (a request arrived, a 429 was sent).
// Each run must end 143 (SIGTERM) or 129 (SIGHUP) within BOUND_MS with no stack trace and no key, keep
// what the service sent (stdout, the session, the answers file: whole JSON lines), and a batch rerun
// asks exactly what is missing. A command that may finish before the signal lands (sessions, privacy
// check of a file) may also end 0, with its whole output.
//
// Replay: MEDCHAT_SEED=<seed> node test/run.mjs e2e/signals-newer (the seed and the case counts are printed).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { WAIT_MS, runCli, tempHome, waitFor, type CliResult } from '../support/cli.js';
import { startBinary, type RunningCli } from '../support/fault-runner.js';
import {
  SIGNAL_EXIT,
  answerLinesProblems,
  keptProblems,
  keyProblems,
  signalEnd,
  signalProblems,
  stackTraces,
} from '../support/invariants.js';
import { startServiceDouble, type ServiceDouble } from '../support/misbehaving-service.js';
import { Prng, seedFromEnv } from '../support/prng.js';

const SEED = seedFromEnv();
const root = new Prng(SEED);
/** After the signal, the run ends within this (generous: a loaded machine; the phases here take well under a second). */
const BOUND_MS = 10_000;
const counts: Record<string, number> = {};
const ends = { handled: 0, default: 0, finished: 0 };
/** Phases where the signal's default ended the process (before medchat took the signal over). */
const defaults: Record<string, number> = {};
const doubles: ServiceDouble[] = [];

after(async () => {
  console.log(`# signals-newer: seed ${SEED} (replay with MEDCHAT_SEED=${SEED}); cases ${JSON.stringify(counts)}; ended by medchat ${ends.handled}, by the signal's default ${ends.default}, finished first ${ends.finished}; by the default in ${JSON.stringify(defaults)}`);
  for (const d of doubles) await d.close();
});

type Sig = 'SIGTERM' | 'SIGHUP';
const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));
const words = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag}${i} `);

async function double(latencyMs = 0): Promise<ServiceDouble> {
  const d = await startServiceDouble({ latencyMs });
  doubles.push(d);
  return d;
}

/** Send `signal`, wait for the end; check the exit, the time it took, stack traces and the key. Returns the result. */
async function stop(run: RunningCli, signal: Sig, what: string, opts: { mayFinish?: boolean; doneCode?: number } = {}): Promise<CliResult & { endedAt: number }> {
  const sentAt = Date.now();
  run.child.kill(signal);
  const r = await run.done;
  const problems: string[] = [];
  const finished = opts.mayFinish && r.code === (opts.doneCode ?? 0); // it ended by itself before the signal came
  if (finished) ends.finished++;
  else {
    problems.push(...signalProblems(r, signal));
    const how = signalEnd(r);
    if (how !== 'other') ends[how]++;
    if (how === 'default') defaults[what] = (defaults[what] ?? 0) + 1;
  }
  if (r.endedAt - sentAt > BOUND_MS) problems.push(`ended ${r.endedAt - sentAt} ms after ${signal} (bound ${BOUND_MS} ms)`);
  problems.push(...stackTraces(r.stderr));
  problems.push(...keyProblems({ stdout: r.stdout, stderr: r.stderr }));
  assert.deepEqual(problems, [], `${what}, seed ${SEED}\nstderr: ${r.stderr.slice(-600)}`);
  return r;
}

function count(phase: string): void {
  counts[phase] = (counts[phase] ?? 0) + 1;
}

/** A questions file of `n` items in a fresh home. */
function questions(n: number) {
  const home = tempHome();
  const ids = Array.from({ length: n }, (_, i) => `q${i + 1}`);
  const input = path.join(home, 'questions.jsonl');
  fs.writeFileSync(input, ids.map((id) => JSON.stringify({ id, prompt: `question ${id}` })).join('\n') + '\n');
  return { home, ids, input, out: path.join(home, 'answers.jsonl') };
}

/** The answers (a file or stdout) are whole JSON lines; returns them. */
function answersIn(text: string, what: string) {
  const { lines, problems } = answerLinesProblems(text);
  assert.deepEqual(problems, [], `${what}: the answers are whole JSON lines, seed ${SEED}`);
  return lines;
}

/** A rerun on the same -o asks exactly the questions with no answer line, and the file ends with each id once. */
async function rerunAsksOnlyWhatIsMissing(d: ServiceDouble, q: ReturnType<typeof questions>, what: string): Promise<void> {
  d.chat.defaultScript = {};
  const saved = answersIn(fs.existsSync(q.out) ? fs.readFileSync(q.out, 'utf8') : '', what).filter((l) => !l.error);
  const savedIds = new Set(saved.map((l) => String(l.id)));
  const from = d.chat.requests.length;
  const again = await runCli(['batch', q.input, '-o', q.out, '-j', '4'], { baseUrl: d.url, home: q.home });
  assert.equal(again.code, 0, `${what}: the rerun, seed ${SEED}: ${again.stderr}`);
  const asked = d.chat.requests.slice(from).map((r) => String(r.body.messages.at(-1).content).replace(/^question /, ''));
  assert.deepEqual(asked.sort(), q.ids.filter((id) => !savedIds.has(id)).sort(), `${what}: the rerun asks only what is missing, each once, seed ${SEED}`);
  const final = answersIn(fs.readFileSync(q.out, 'utf8'), what);
  assert.deepEqual(final.map((l) => String(l.id)).sort(), [...q.ids].sort(), `${what}: every question answered exactly once, seed ${SEED}`);
  assert.equal(fs.existsSync(`${q.out}.lock`), false, `${what}: no lock left`);
}

/** The saved session's turns (one session in the home). */
function savedTurns(home: string): Array<{ user: string; answer: string; status: string }> {
  const dir = path.join(home, 'data', 'sessions');
  const files = fs.readdirSync(dir).filter((f) => f.endsWith('.json'));
  assert.equal(files.length, 1, `one session in ${dir}: ${fs.readdirSync(dir).join(', ')}`);
  assert.deepEqual(fs.readdirSync(dir).filter((f) => !f.endsWith('.json')), [], 'no temporary file or lock left');
  return JSON.parse(fs.readFileSync(path.join(dir, files[0]!), 'utf8')).turns;
}

describe(`batch (seed ${SEED})`, { concurrency: 2 }, () => {
  const p = root.fork(1);
  for (let i = 0, n = p.int(2, 3); i < n; i++) {
    const c = p.fork(i);
    const signal: Sig = c.chance(0.6) ? 'SIGTERM' : 'SIGHUP';
    const lines = c.int(1, 60);
    const waitMs = c.int(50, 600);
    test(`reading the questions from stdin held open (${lines} lines, ${signal} after ${waitMs} ms): ${SIGNAL_EXIT[signal]}, nothing sent, the spool copy removed`, async () => {
      count('batch: reading stdin');
      const d = await double();
      const home = tempHome();
      const tmp = path.join(home, 'tmp');
      fs.mkdirSync(tmp);
      const out = path.join(home, 'answers.jsonl');
      const run = startBinary(['batch', '-', '-o', out], { baseUrl: d.url, home, holdStdin: true, env: { TMPDIR: tmp } });
      const text = Array.from({ length: lines }, (_, k) => JSON.stringify({ id: k, prompt: `question ${k}` })).join('\n');
      run.child.stdin!.write(text.slice(0, c.int(0, text.length)));
      await delay(waitMs);
      await stop(run, signal, 'batch reading stdin');
      assert.equal(d.chat.requests.length, 0, 'nothing was sent');
      assert.deepEqual(fs.readdirSync(tmp), [], 'the private copy of stdin is removed');
      assert.ok(!fs.existsSync(out) || fs.readFileSync(out, 'utf8') === '', 'no answers file content');
      assert.equal(fs.existsSync(`${out}.lock`), false, 'no lock left');
    });
  }

  for (let i = 0, n = p.int(2, 3); i < n; i++) {
    const c = p.fork(100 + i);
    const signal: Sig = c.chance(0.6) ? 'SIGTERM' : 'SIGHUP';
    const jobs = c.pick(['1', '4']);
    const size = c.int(3, 6);
    const extraMs = c.int(0, 300);
    test(`waiting on a 429's retry-after (25 s) at -j ${jobs}, ${size} questions, ${signal} ${extraMs} ms into the wait: ${SIGNAL_EXIT[signal]} at once, whole lines; the rerun asks the rest`, async () => {
      count('batch: retry-after wait');
      const d = await double();
      const q = questions(size);
      d.chat.throttleNext(1, { retryAfter: 25 });
      const run = startBinary(['batch', q.input, '-o', q.out, '-j', jobs], { baseUrl: d.url, home: q.home });
      await waitFor(() => run.stderr().includes('limiting requests'), WAIT_MS, 'the 429 to be taken');
      await delay(extraMs);
      const r = await stop(run, signal, `batch -j ${jobs} in a retry-after wait`);
      assert.match(r.stderr, /interrupted with \d+ questions? left; run the same command again to continue/);
      await rerunAsksOnlyWhatIsMissing(d, q, 'retry-after wait');
    });
  }

  for (let i = 0, n = p.int(4, 6); i < n; i++) {
    const c = p.fork(200 + i);
    const signal: Sig = c.chance(0.6) ? 'SIGTERM' : 'SIGHUP';
    const jobs = c.pick(['1', '4']);
    const size = c.int(4, 12);
    const k = c.int(1, size - 1);
    const chunks = c.int(5, 40);
    const paceMs = c.int(3, 25);
    const extraMs = c.int(0, 150);
    const toFile = c.chance(0.7);
    const flags = c.pick([[], [], ['-r', 'soap'], ['--schema', 'answer']]);
    const schema = flags[0] === '--schema';
    test(`mid-answer of item ${k}/${size} at -j ${jobs}${flags.length ? ` with ${flags.join(' ')}` : ''} (${chunks} chunks, ${paceMs} ms apart) ${toFile ? 'into -o' : 'to stdout'}, ${signal} +${extraMs} ms: ${SIGNAL_EXIT[signal]}, the answers in flight written whole, nothing received lost`, async () => {
      count(`batch: mid-answer -j ${jobs}${flags.length ? ` ${flags[0]}` : ''}`);
      const d = await double();
      const q = questions(size);
      const text = words(chunks, 'w');
      const content = schema ? ['{"answer": "', ...text, '"}'] : text;
      d.chat.defaultScript = { content, paceMs };
      const args = ['batch', q.input, '-j', jobs, ...flags, ...(toFile ? ['-o', q.out] : [])];
      // Requests after item k are held unanswered until the signal is taken: the run is midway whatever the machine's speed.
      d.chat.holdAfter(k);
      const run = startBinary(args, { baseUrl: d.url, home: q.home });
      await waitFor(() => d.chat.arrivals.length >= k, WAIT_MS, `request ${k} to arrive`);
      await delay(extraMs);
      const stopped = stop(run, signal, `batch -j ${jobs} mid-answer of item ${k}`);
      await waitFor(() => run.stderr().includes('stopping') || run.child.exitCode !== null, WAIT_MS, 'the signal to be taken');
      d.chat.release();
      const r = await stopped;
      const got = answersIn(toFile ? fs.readFileSync(q.out, 'utf8') : r.stdout, 'mid-answer');
      // The first signal lets the answers in flight finish: every request sent has its line, whole.
      assert.equal(got.length, d.chat.requests.length, `every request sent has its answer line, seed ${SEED}`);
      for (const l of got) {
        if (schema) assert.deepEqual(l.value, { answer: text.join('') }, `line ${l.id} holds the whole answer the service sent`);
        else assert.equal(l.content, content.join(''), `line ${l.id} holds the whole answer the service sent`);
      }
      if (toFile) await rerunAsksOnlyWhatIsMissing(d, q, 'mid-answer');
    });
  }

  for (let i = 0, n = p.int(1, 2); i < n; i++) {
    const c = p.fork(500 + i);
    const signal: Sig = c.chance(0.6) ? 'SIGTERM' : 'SIGHUP';
    const jobs = c.pick(['1', '4']);
    const answered = c.int(0, 6);
    const twice = c.chance(0.5);
    test(`a service that stalls the answers in flight (-j ${jobs}, after ${answered}), ${signal}${twice ? ' twice' : ''}: ${SIGNAL_EXIT[signal]} ${twice ? 'at once' : 'within --idle-timeout + 2 s'}, whole lines, the rerun asks the rest`, async () => {
      count(`batch: stalled in flight${twice ? ', signalled twice' : ''}`);
      const d = await double();
      const q = questions(12);
      d.chat.holdAfter(answered);
      const run = startBinary(['batch', q.input, '-o', q.out, '-j', jobs, '--idle-timeout', '3'], { baseUrl: d.url, home: q.home });
      await waitFor(() => d.chat.arrivals.length > answered && d.chat.inFlight >= 1, WAIT_MS, 'a request held in flight');
      const sentAt = Date.now();
      if (twice) {
        run.child.kill(signal);
        await waitFor(() => run.stderr().includes('stopping') || run.child.exitCode !== null, WAIT_MS, 'the first signal to be taken');
      }
      const r = await stop(run, signal, `batch stalled in flight, ${signal}${twice ? ' twice' : ''}`);
      const took = r.endedAt - sentAt;
      assert.ok(took < (twice ? 3000 : 3000 + 2000 + 3000), `ended ${took} ms after the first signal (seed ${SEED})`);
      if (twice) assert.match(r.stderr, /left at once/);
      d.chat.release();
      await rerunAsksOnlyWhatIsMissing(d, q, 'stalled in flight');
    });
  }

  test('a service that stalls the answers in flight with the default idle timeout (120 s), one SIGTERM: 143 within the 5 s given to answers in flight (docker stop kills after 10 s), whole lines, the rerun asks the rest', async () => {
    count('batch: stalled in flight, default idle timeout');
    const d = await double();
    const q = questions(8);
    d.chat.holdAfter(2);
    const run = startBinary(['batch', q.input, '-o', q.out, '-j', '2'], { baseUrl: d.url, home: q.home });
    await waitFor(() => d.chat.arrivals.length > 2 && d.chat.inFlight >= 1, WAIT_MS, 'a request held in flight');
    const sentAt = Date.now();
    const r = await stop(run, 'SIGTERM', 'batch stalled in flight, default idle timeout');
    const took = r.endedAt - sentAt;
    assert.ok(took < 5000 + 3000, `ended ${took} ms after SIGTERM; a stop must not wait on the 120 s idle timeout`);
    assert.match(r.stderr, /finishing the \d+ answers? in flight, for 5 s at most/);
    d.chat.release();
    await rerunAsksOnlyWhatIsMissing(d, q, 'stalled in flight, default idle timeout');
  });

  for (let i = 0, n = p.int(1, 2); i < n; i++) {
    const c = p.fork(400 + i);
    const signal: Sig = c.chance(0.6) ? 'SIGTERM' : 'SIGHUP';
    const extraMs = c.int(0, 100);
    test(`rewriting a big answers file without last run's error line, ${signal} +${extraMs} ms into the rewrite: ${SIGNAL_EXIT[signal]}, the file is the old one or the new one, no temporary copy or lock left`, async () => {
      count('batch: rewriting the answers file');
      const d = await double();
      const q = questions(4);
      // 60,000 answered lines (ids a0…) and q1's error line: this run asks q1 again, so it first rewrites the file without that line.
      const answered = Array.from({ length: 60_000 }, (_, k) => JSON.stringify({ id: `a${k}`, content: 'an earlier answer '.repeat(20) }) + '\n').join('');
      const old = answered + JSON.stringify({ id: 'q1', content: '', error: { message: 'the service failed', exit_code: 1 } }) + '\n';
      fs.writeFileSync(q.out, old);
      const dir = path.dirname(q.out);
      const temps = () => fs.readdirSync(dir).filter((f) => f.endsWith('.tmp'));
      const run = startBinary(['batch', q.input, '-o', q.out, '-j', '1'], { baseUrl: d.url, home: q.home });
      await waitFor(() => temps().length > 0 || run.child.exitCode !== null, WAIT_MS, 'the rewrite to start');
      await delay(extraMs);
      await stop(run, signal, 'batch rewriting the answers file', { mayFinish: true });
      const now = fs.readFileSync(q.out, 'utf8');
      assert.ok(now === old || now.startsWith(answered), `the answers file is the old one or the rewritten one, seed ${SEED}`);
      assert.deepEqual(answerLinesProblems(now).problems, []);
      assert.deepEqual(temps(), [], `no temporary copy of the answers left behind (seed ${SEED})`);
      assert.equal(fs.existsSync(`${q.out}.lock`), false, 'no lock left');
    });
  }

  for (let i = 0, n = p.int(2, 3); i < n; i++) {
    const c = p.fork(300 + i);
    const signal: Sig = c.chance(0.6) ? 'SIGTERM' : 'SIGHUP';
    const jobs = c.pick(['1', '4', '8']);
    const size = c.int(80, 200);
    const after = c.int(1, 40);
    test(`writing answers fast (${size} questions, -j ${jobs}), ${signal} once ${after} lines are down: ${SIGNAL_EXIT[signal]}, no torn line, the rerun asks only the rest`, async () => {
      count('batch: writing the answers file');
      const d = await double();
      const q = questions(size);
      const run = startBinary(['batch', q.input, '-o', q.out, '-j', jobs], { baseUrl: d.url, home: q.home });
      const linesDown = () => (fs.existsSync(q.out) ? fs.readFileSync(q.out, 'utf8').split('\n').length - 1 : 0);
      await waitFor(() => linesDown() >= after || run.child.exitCode !== null, WAIT_MS, `${after} lines in the file`);
      const r = await stop(run, signal, `batch -j ${jobs} writing`, { mayFinish: true });
      if (r.code !== 0) assert.match(r.stderr, /interrupted with \d+ questions? left/);
      await rerunAsksOnlyWhatIsMissing(d, q, 'writing');
    });
  }
});

describe(`one question: --schema, -r, -f, -c (seed ${SEED})`, { concurrency: 2 }, () => {
  const p = root.fork(2);

  /** A JSON answer for `name, dose_mg number`, in many chunks (a long name, so there is time to stop it). */
  const jsonChunks = (n: number) => ['{"name": "', ...words(n, 'aspirin'), '", "dose_mg": 100}'];

  for (let i = 0, n = p.int(2, 3); i < n; i++) {
    const c = p.fork(i);
    const signal: Sig = c.chance(0.6) ? 'SIGTERM' : 'SIGHUP';
    const repair = c.chance(0.5);
    const chunks = c.int(30, 80);
    const waitMs = c.int(20, 300);
    test(`--schema ${repair ? 'during the repair request' : 'while the answer streams'} (${chunks} chunks), ${signal} +${waitMs} ms: ${SIGNAL_EXIT[signal]}, the session keeps what arrived, marked interrupted`, async () => {
      count(`--schema: ${repair ? 'repair request' : 'streaming'}`);
      const d = await double();
      const home = tempHome();
      const content = jsonChunks(chunks);
      if (repair) d.chat.enqueue({ content: ['Sure! aspirin, 100 mg'] });
      d.chat.enqueue({ content, paceMs: 15 });
      const run = startBinary(['--schema', 'name, dose_mg number', 'What is the usual dose of aspirin?'], { baseUrl: d.url, home });
      await waitFor(() => d.chat.requests.length >= (repair ? 2 : 1), WAIT_MS, 'the request to arrive');
      await delay(waitMs);
      const r = await stop(run, signal, `--schema ${repair ? 'repair' : 'streaming'}`);
      if (repair) assert.match(r.stderr, /asking once for a corrected answer/);
      const turn = savedTurns(home).at(-1)!;
      assert.equal(turn.status, 'interrupted', `the turn is marked interrupted, seed ${SEED}`);
      assert.deepEqual(keptProblems(turn.answer, '', content.join(''), 'the saved answer'), [], `seed ${SEED}`);
      // Nothing half-checked reaches stdout: either nothing, or what arrived (never more than was sent).
      assert.ok(content.join('').startsWith(r.stdout) || r.stdout === '', `stdout ${JSON.stringify(r.stdout.slice(0, 200))}`);
    });
  }

  /** One question with `extra` args, stopped once stdout shows word `at`: stdout keeps all it showed, the session holds exactly stdout. */
  async function midAnswer(label: string, c: Prng, setup: (home: string, d: ServiceDouble) => string[] | Promise<string[]>, check?: (turns: ReturnType<typeof savedTurns>) => void): Promise<void> {
    count(label);
    const signal: Sig = c.chance(0.6) ? 'SIGTERM' : 'SIGHUP';
    const d = await double();
    const home = tempHome();
    const args = await setup(home, d);
    const content = words(c.int(60, 300), 'w');
    const at = c.int(0, 40);
    d.chat.enqueue({ content, paceMs: c.int(5, 20) });
    const run = startBinary(args, { baseUrl: d.url, home });
    await waitFor(() => run.stdout().includes(`w${at} `), WAIT_MS, `word ${at} on stdout`);
    const seen = run.stdout();
    await delay(c.int(0, 60));
    const r = await stop(run, signal, `${label} mid-answer (word ${at}, ${signal})`);
    assert.deepEqual(keptProblems(r.stdout, seen, content.join('')), [], `${label}, seed ${SEED}`);
    assert.equal(r.stderr.trim().split('\n').at(-1), 'medchat: interrupted; the partial answer above is kept');
    const turns = savedTurns(home);
    assert.equal(turns.at(-1)!.status, 'interrupted');
    assert.equal(turns.at(-1)!.answer, r.stdout, `${label}: the session holds exactly what was printed, seed ${SEED}`);
    check?.(turns);
  }

  for (let i = 0, n = p.int(1, 2); i < n; i++) {
    const c = p.fork(100 + i);
    test(`-r ROLE (a role file of the user's) mid-answer: exit 143/129, stdout and the session keep what arrived`, async () => {
      await midAnswer('-r role', c, (home) => {
        const dir = path.join(home, 'config', 'roles');
        fs.mkdirSync(dir, { recursive: true });
        fs.writeFileSync(path.join(dir, 'cardio.md'), '---\ndescription: a cardiologist\n---\nYou are a cardiologist. Answer briefly.\n');
        return ['-r', 'cardio', 'Explain atrial fibrillation'];
      });
    });
  }
  for (let i = 0, n = p.int(1, 2); i < n; i++) {
    const c = p.fork(200 + i);
    test(`-f FILE mid-answer: exit 143/129, stdout and the session keep what arrived`, async () => {
      await midAnswer('-f file', c, (home) => {
        const note = path.join(home, 'note.txt');
        fs.writeFileSync(note, 'Discharge summary: admitted with chest pain, troponin negative.\n'.repeat(c.int(1, 200)));
        return ['-f', note, 'Summarise this note'];
      });
    });
  }
  for (let i = 0, n = p.int(1, 2); i < n; i++) {
    const c = p.fork(300 + i);
    test(`-c (continuing a saved conversation) mid-answer: exit 143/129, the earlier turn intact, the new one kept and marked interrupted`, async () => {
      let first = '';
      await midAnswer(
        '-c',
        c,
        async (home, d) => {
          first = `What is a normal resting heart rate? (${path.basename(home)})`;
          d.chat.enqueue({ content: ['Sixty to a hundred beats a minute.'] });
          const r = await runCli([first], { baseUrl: d.url, home });
          assert.equal(r.code, 0, r.stderr);
          return ['-c', 'And in athletes?'];
        },
        (turns) => {
          assert.equal(turns.length, 2);
          assert.equal(turns[0]!.user, first);
          assert.equal(turns[0]!.status, 'complete');
          assert.equal(turns[0]!.answer, 'Sixty to a hundred beats a minute.');
        },
      );
    });
  }
});

describe(`privacy check and sessions (seed ${SEED})`, { concurrency: 2 }, () => {
  const p = root.fork(3);
  const note = (n: number) => 'Patient: John Smith, DOB 12/03/1961, MRN 4481923. Seen for chest pain; ECG normal.\n'.repeat(n);

  for (let i = 0, n = p.int(1, 2); i < n; i++) {
    const c = p.fork(i);
    const signal: Sig = c.chance(0.6) ? 'SIGTERM' : 'SIGHUP';
    const waitMs = c.int(50, 600);
    test(`privacy check - with stdin held open, ${signal} after ${waitMs} ms: ${SIGNAL_EXIT[signal]}`, async () => {
      count('privacy check: reading stdin');
      const run = startBinary(['privacy', 'check', '-'], { holdStdin: true });
      run.child.stdin!.write(note(c.int(0, 50)));
      await delay(waitMs);
      await stop(run, signal, 'privacy check reading stdin');
    });
  }

  for (let i = 0, n = p.int(1, 2); i < n; i++) {
    const c = p.fork(100 + i);
    const signal: Sig = c.chance(0.6) ? 'SIGTERM' : 'SIGHUP';
    const waitMs = c.int(0, 800);
    test(`privacy check of a 1 MB note, ${signal} at ${waitMs} ms: ${SIGNAL_EXIT[signal]} (or done first), stdout a prefix of the whole report`, async () => {
      count('privacy check: a file');
      const home = tempHome();
      const file = path.join(home, 'note.txt');
      fs.writeFileSync(file, note(12_000));
      const whole = await runCli(['privacy', 'check', file], { home, timeoutMs: 60_000 });
      assert.equal(whole.code, 11, 'the whole run finds identifiers');
      const run = startBinary(['privacy', 'check', file], { home });
      await delay(waitMs);
      // Done first, it exits as the whole run did: 11, identifiers found.
      const r = await stop(run, signal, 'privacy check of a file', { mayFinish: true, doneCode: whole.code ?? undefined });
      if (r.code === whole.code) assert.equal(r.stdout, whole.stdout);
      else assert.ok(whole.stdout.startsWith(r.stdout), `stdout is a prefix of the whole report, seed ${SEED}`);
    });
  }

  /** A home with `n` saved sessions (copies of one made by a real run), and the session files' bytes. */
  async function sessionsHome(n: number, turnsText: number) {
    const d = await double();
    const home = tempHome();
    d.chat.enqueue({ content: ['A long answer. '.repeat(turnsText)] });
    const made = await runCli(['What is a normal resting heart rate?'], { baseUrl: d.url, home });
    assert.equal(made.code, 0, made.stderr);
    const dir = path.join(home, 'data', 'sessions');
    const [file] = fs.readdirSync(dir);
    const id = file!.slice(0, -5);
    const text = fs.readFileSync(path.join(dir, file!), 'utf8');
    for (let k = 0; k < n; k++) {
      const other = `20250101-0000${String(k % 60).padStart(2, '0')}-${(0x1000 + k).toString(16).slice(-4)}`;
      if (other !== id) fs.writeFileSync(path.join(dir, `${other}.json`), text.split(id).join(other));
    }
    const snapshot = () => Object.fromEntries(fs.readdirSync(dir).map((f) => [f, fs.readFileSync(path.join(dir, f), 'utf8')]));
    return { home, id, dir, snapshot, before: snapshot() };
  }

  for (let i = 0, n = p.int(1, 2); i < n; i++) {
    const c = p.fork(200 + i);
    const signal: Sig = c.chance(0.6) ? 'SIGTERM' : 'SIGHUP';
    const waitMs = c.int(0, 400);
    const json = c.chance(0.5);
    test(`sessions list${json ? ' --json' : ''} over 400 sessions, ${signal} at ${waitMs} ms: ${SIGNAL_EXIT[signal]} (or done first), the sessions untouched`, async () => {
      count('sessions list');
      const h = await sessionsHome(400, 5);
      const args = ['sessions', 'list', ...(json ? ['--json'] : [])];
      const whole = await runCli(args, { home: h.home });
      assert.equal(whole.code, 0, whole.stderr);
      const run = startBinary(args, { home: h.home });
      await delay(waitMs);
      const r = await stop(run, signal, 'sessions list', { mayFinish: true });
      if (r.code === 0) assert.equal(r.stdout, whole.stdout);
      else assert.ok(whole.stdout.startsWith(r.stdout), `stdout is a prefix of the whole list, seed ${SEED}`);
      assert.deepEqual(h.snapshot(), h.before, 'every session file as it was');
    });
  }

  for (let i = 0, n = p.int(2, 3); i < n; i++) {
    const c = p.fork(300 + i);
    const signal: Sig = c.chance(0.6) ? 'SIGTERM' : 'SIGHUP';
    const waitMs = c.int(0, 400);
    const toFile = c.chance(0.5);
    const format = c.pick(['md', 'json']);
    test(`sessions export -f ${format}${toFile ? ' -o FILE' : ''} of a long session, ${signal} at ${waitMs} ms: ${SIGNAL_EXIT[signal]} (or done first); the file is the old one or the whole export, nothing left behind`, async () => {
      count(`sessions export${toFile ? ' -o' : ''}`);
      const h = await sessionsHome(0, 40_000);
      const outDir = path.join(h.home, 'exports');
      fs.mkdirSync(outDir);
      const out = path.join(outDir, `chat.${format}`);
      const args = ['sessions', 'export', h.id, '-f', format, '--reasoning'];
      const whole = await runCli(args, { home: h.home });
      assert.equal(whole.code, 0, whole.stderr);
      fs.writeFileSync(out, 'an older export\n');
      const run = startBinary([...args, ...(toFile ? ['-o', out] : [])], { home: h.home });
      await delay(waitMs);
      const r = await stop(run, signal, 'sessions export', { mayFinish: true });
      if (toFile) {
        const now = fs.readFileSync(out, 'utf8');
        if (r.code === 0) assert.equal(now, whole.stdout);
        else assert.ok(now === 'an older export\n' || now === whole.stdout, `the -o file is the old one or the whole export, seed ${SEED}`);
        assert.deepEqual(fs.readdirSync(outDir), [`chat.${format}`], 'no temporary file left');
      } else if (r.code === 0) assert.equal(r.stdout, whole.stdout);
      else assert.ok(whole.stdout.startsWith(r.stdout), `stdout is a prefix of the whole export, seed ${SEED}`);
      assert.deepEqual(h.snapshot(), h.before, 'the session file as it was');
    });
  }
});
