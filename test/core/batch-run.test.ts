// `medchat batch` run in-process against the double, where the test needs to reach inside: a disk
// that fills up under the answers file (test/support/faulty-fs.ts).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { after, before, test } from 'node:test';
import { runBatchCommand, type BatchFlags } from '../../src/cli/commands/batch-run.js';
import type { FileOps } from '../../src/core/io/file-ops.js';
import { startServiceDouble, type ServiceDouble } from '../../src/stand-in/index.js';
import { FaultyFileOps, SEED } from '../support/faulty-fs.js';
import { tempDir } from '../support/temp.js';
import { capture } from '../support/capture.js';

let double: ServiceDouble;
before(async () => {
  double = await startServiceDouble({ latencyMs: 5 });
});
after(() => double.close());

async function batch(dir: string, args: { input: string; flags: BatchFlags; ops?: FileOps }) {
  const stdout = capture();
  const stderr = capture();
  const code = await runBatchCommand(args.input, args.flags, { 'base-url': double.url, 'api-key': 'sk-test-batch' }, {
    stdin: new PassThrough(),
    stdout,
    stderr,
    ops: args.ops,
    signals: false,
    env: { MEDCHAT_CONFIG_DIR: path.join(dir, 'config'), MEDCHAT_DATA_DIR: path.join(dir, 'data') },
  });
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

test('a disk that fills up mid-run: one line saying so, exit 1, the file holds whole answers; the rerun asks only for the rest', async (t) => {
  const dir = tempDir('medchat-batch-run-');
  const input = path.join(dir, 'q.jsonl');
  const ids = Array.from({ length: 30 }, (_, i) => `q${i}`);
  fs.writeFileSync(input, ids.map((id) => JSON.stringify({ id, prompt: `question ${id} `.repeat(20) })).join('\n') + '\n');
  const out = path.join(dir, 'answers.jsonl');
  const before = double.chat.requests.length;
  // Call 1 opens the file; each line then takes a few short writes: the disk fills up mid-line.
  const full = await batch(dir, { input, flags: { output: out, jobs: '4' }, ops: new FaultyFileOps({ at: 40, kind: 'short' }) });
  t.diagnostic(`seed ${SEED}`);
  assert.equal(full.code, 1, full.stderr);
  const errors = full.stderr.split('\n').filter((l) => l.startsWith('medchat:'));
  assert.equal(errors.length, 1, full.stderr);
  assert.match(errors[0]!, /cannot write .*answers\.jsonl: the disk is full \(ENOSPC\).*run the same command again/);
  const text = fs.readFileSync(out, 'utf8');
  assert.ok(text.endsWith('\n'));
  const saved = text.trimEnd().split('\n').map((l) => JSON.parse(l) as { id: string; error?: unknown });
  assert.ok(saved.length > 0 && saved.length < ids.length, `${saved.length} lines saved`);
  assert.ok(saved.every((l) => !l.error));

  const between = double.chat.requests.length;
  const rerun = await batch(dir, { input, flags: { output: out, jobs: '4' } });
  assert.equal(rerun.code, 0, rerun.stderr);
  assert.match(rerun.stderr, new RegExp(`${saved.length} of 30 already answered`));
  assert.equal(double.chat.requests.length - between, ids.length - saved.length, 'the rerun asks only for what was not saved');
  const final = fs.readFileSync(out, 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l) as { id: string });
  assert.deepEqual(final.map((l) => l.id).sort(), [...ids].sort(), 'each question answered exactly once');
  assert.ok(between - before >= saved.length);
});
