// Every file write a `medchat batch` run makes, with a fault at each file-system call in turn
// (ENOSPC, EIO, and at each write a short write then a full disk; test/support/faulty-fs.ts): the
// lock, the rewrite that drops last run's error lines, the answers appended, the flushes and the
// close. Run in-process (runBatchCommand, the real HTTP path against the double) so the faults reach
// the FileOps seam. Each case must end with one `medchat:` line and no stack trace, exit 1 (a disk
// to fix) or 2 (a path to change) as docs/manual.md says, the answers file whole JSON lines
// (byte for byte the previous file when the fault came before anything was committed), no
// temporary file or lock left, and the next run (a healthy disk) asks exactly what is missing.
//
// Replay: MEDCHAT_SEED=<seed> node test/run.mjs core/file-writes-newer
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { after, before, test } from 'node:test';
import { runBatchCommand, type BatchFlags } from '../../src/cli/commands/batch-run.js';
import type { FileOps } from '../../src/core/io/file-ops.js';
import { startServiceDouble, type ServiceDouble } from '../support/misbehaving-service.js';
import { FaultyFileOps, SEED, describe as describeFault, faultCases, leftovers } from '../support/faulty-fs.js';
import { answerLinesProblems, keyProblems, stderrProblems } from '../support/invariants.js';
import { tempDir } from '../support/temp.js';
import { capture } from '../support/capture.js';

const KEY = 'sk-QvX7mK2pRRw9LbZ4';
let double: ServiceDouble;
before(async () => {
  double = await startServiceDouble();
});
after(() => double.close());

async function batch(dir: string, input: string, flags: BatchFlags, ops?: FileOps) {
  const stdout = capture();
  const stderr = capture();
  let code: number;
  try {
    code = await runBatchCommand(input, flags, { 'base-url': double.url, 'api-key': KEY }, {
      stdin: new PassThrough(),
      stdout,
      stderr,
      ops,
      signals: false,
      env: { MEDCHAT_CONFIG_DIR: path.join(dir, 'config'), MEDCHAT_DATA_DIR: path.join(dir, 'data') },
    });
  } catch (err) {
    // What main does with a throw: one line and its exit code (a throw that is no MedchatError is a bug: exit 1 with its name).
    const e = err as { message?: string; exitCode?: number };
    stderr.write(`medchat: ${e.message}\n`);
    code = typeof e.exitCode === 'number' ? e.exitCode : -1;
  }
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

/** The call is the folder flush right after a rename (open, fsync, close of the folder). */
function folderSync(at: number, calls: readonly string[]): boolean {
  return [1, 2, 3].some((back) => calls[at - 1 - back] === 'rename' && calls.slice(at - back, at).every((op, i) => op === ['open', 'fsync', 'close'][i]));
}

/** Until the double has had no request in flight and none new for 50 ms. */
async function settle(): Promise<void> {
  let seen = -1;
  while (double.chat.inFlight > 0 || seen !== double.chat.requests.length) {
    seen = double.chat.requests.length;
    await new Promise((r) => setTimeout(r, 50));
  }
}

const IDS = ['q1', 'q2', 'q3', 'q4', 'q5', 'q6'];

/**
 * A folder with six questions and an answers file from an earlier run: q1 and q2 answered, then
 * q3 failed (this run rewrites the file without q3's error line before it appends), or a torn
 * line (a power cut: cut off before this run appends).
 */
function previousRun(dir: string, tail: 'error line' | 'torn line'): { input: string; out: string; previous: Buffer } {
  const input = path.join(dir, 'q.jsonl');
  fs.writeFileSync(input, IDS.map((id) => JSON.stringify({ id, prompt: `question ${id} `.repeat(8) })).join('\n') + '\n');
  const out = path.join(dir, 'answers.jsonl');
  const previous = Buffer.from(
    [
      { id: 'q1', content: 'first answer '.repeat(30) },
      { id: 'q2', content: 'second answer '.repeat(30) },
    ]
      .map((l) => JSON.stringify(l) + '\n')
      .join('') + (tail === 'error line' ? JSON.stringify({ id: 'q3', content: '', error: { message: 'the service failed', exit_code: 1 } }) + '\n' : '{"id":"q3","conte'),
  );
  fs.writeFileSync(out, previous);
  for (const f of leftovers(dir)) fs.rmSync(f);
  return { input, out, previous };
}

for (const [tail, jobs] of [['error line', '1'], ['torn line', '4']] as const) {
  test(`batch -o -j ${jobs} after a run that left ${tail === 'error line' ? 'an error line' : 'a torn line'}: a fault at every file call (lock, ${tail === 'error line' ? 'rewrite, ' : ''}appends, flush, close) leaves whole lines and one line of error; the next run asks only what is missing`, async (t) => {
    const dir = tempDir('medchat-writes-');
    const flags: BatchFlags = { output: path.join(dir, 'answers.jsonl'), jobs };
    const probe = new FaultyFileOps();
    let setup = previousRun(dir, tail);
    const clean = await batch(dir, setup.input, flags, probe);
    assert.equal(clean.code, 0, `the run works without a fault (seed ${SEED}): ${clean.stderr}`);
    assert.deepEqual(answerLinesProblems(fs.readFileSync(setup.out, 'utf8')).lines.map((l) => l.id).sort(), IDS);
    const cases = faultCases(probe.calls);
    t.diagnostic(`the run makes ${probe.calls.length} file calls: ${probe.calls.join(',')}`);
    const codes: Record<string, number> = {};
    const broken: string[] = [];
    for (const c of cases) {
      setup = previousRun(dir, tail);
      const ops = new FaultyFileOps({ at: c.at, kind: c.kind });
      const from = double.chat.requests.length;
      const r = await batch(dir, setup.input, flags, ops);
      const why = describeFault(c);
      const problems: string[] = [];
      codes[r.code] = (codes[r.code] ?? 0) + 1;
      if (!ops.fired || folderSync(c.at, probe.calls)) {
        // After a rename only the folder's flush is left: it cannot undo the new file (as in file-writes.test.ts).
        if (r.code !== 0) problems.push(`${ops.fired ? 'a fault after the commit' : 'no fault fired'}, yet exit ${r.code}`);
      } else {
        if (r.code !== 1 && r.code !== 2) problems.push(`exit ${r.code}, expected 1 (a disk to fix) or 2`);
        problems.push(...stderrProblems(r.stderr.split('\n').filter((l) => !/^medchat batch: /.test(l) && !/^\s+/.test(l)).join('\n'), r.code));
        const line = r.stderr.split('\n').find((l) => l.startsWith('medchat: '));
        if (line && !/disk is full|input\/output error/.test(line)) problems.push(`the error line does not say what happened: ${line}`);
      }
      problems.push(...keyProblems({ stdout: r.stdout, stderr: r.stderr }, KEY));
      const text = fs.existsSync(setup.out) ? fs.readFileSync(setup.out, 'utf8') : '';
      const { lines, problems: lineProblems } = answerLinesProblems(text);
      // The previous file untouched (the fault came before anything changed) is fine, torn line and all: the next run cuts it.
      if (text !== setup.previous.toString('utf8')) problems.push(...lineProblems);
      // Nothing committed: the file as it was. Else every line is the previous run's or one this run was told was written.
      const sent = new Set(double.chat.requests.slice(from).map((q) => String(q.body.messages.at(-1).content).trim().split(' ')[1]));
      for (const l of lines) if (!l.error && !['q1', 'q2'].includes(String(l.id)) && !sent.has(String(l.id))) problems.push(`line ${l.id} was never asked`);
      if (!lines.some((l) => l.id === 'q1') || !lines.some((l) => l.id === 'q2')) problems.push(`an answer of the earlier run was lost: ${JSON.stringify(text.slice(0, 200))}`);
      if (r.code !== 0 && !text.includes('"q1"')) problems.push('the previous answers are gone');
      const left = leftovers(dir);
      if (left.length) problems.push(`left behind: ${left.map((f) => path.basename(f)).join(', ')}`);
      // The disk has room again: the next run asks exactly what has no answer line.
      const answered = new Set(lines.filter((l) => !l.error).map((l) => String(l.id)));
      // A request the stopped run had handed to the network may still reach the double: let it land first.
      await settle();
      const before = double.chat.requests.length;
      const rerun = await batch(dir, setup.input, flags);
      if (rerun.code !== 0) problems.push(`the rerun: exit ${rerun.code}: ${rerun.stderr.trim().split('\n').at(-1)}`);
      const asked = double.chat.requests.slice(before).map((q) => String(q.body.messages.at(-1).content).trim().split(' ')[1]!);
      const missing = IDS.filter((id) => !answered.has(id));
      if (asked.sort().join() !== missing.join()) problems.push(`the rerun asked ${asked.join(',') || 'nothing'}, not the missing ${missing.join(',') || 'nothing'}`);
      const final = answerLinesProblems(fs.existsSync(setup.out) ? fs.readFileSync(setup.out, 'utf8') : '');
      if (final.problems.length || final.lines.filter((l) => !l.error).map((l) => String(l.id)).sort().join() !== IDS.join()) problems.push(`after the rerun: ${final.problems.join('; ') || final.lines.map((l) => l.id).join(',')}`);
      if (problems.length) broken.push(`${why}:\n    ${problems.join('\n    ')}\n    stderr: ${JSON.stringify(r.stderr.slice(-300))}`);
    }
    t.diagnostic(`batch -o (${tail}, -j ${jobs}): ${cases.length} fault cases, exit codes ${JSON.stringify(codes)}, seed ${SEED}`);
    console.log(`# file-writes-newer batch -o (${tail}, -j ${jobs}): ${cases.length} fault cases over ${probe.calls.length} calls, exit codes ${JSON.stringify(codes)}, seed ${SEED} (replay with MEDCHAT_SEED=${SEED})`);
    assert.deepEqual(broken, [], `${broken.length} of ${cases.length} cases broke (seed ${SEED})`);
  });
}
