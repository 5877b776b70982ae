// The files of a batch: the input (checked whole before anything is sent, with line numbers) and
// the answers file (read back to resume; a torn tail cut off; a full disk leaves whole lines).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import { AnswersFile } from '../../src/core/batch/answers-file.js';
import { BatchInput } from '../../src/core/batch/input.js';
import { readLines } from '../../src/core/batch/lines.js';
import { FileWriteError } from '../../src/core/io/atomic-file.js';
import { lockLine } from '../../src/core/io/file-lock.js';
import { nodeFileOps, type FileOps } from '../../src/core/io/file-ops.js';
import { Prng } from '../support/prng.js';
import { FaultyFileOps, SEED } from '../support/faulty-fs.js';
import { tempDir } from '../support/temp.js';

/** A folder of its own, removed when the file ends (test/support/temp.ts). */
const tmp = () => tempDir('medchat-batch-files-');
function write(name: string, text: string | Buffer): string {
  const f = path.join(tmp(), name);
  fs.writeFileSync(f, text);
  return f;
}
/** Every line of the file is a JSON object and the file ends with a line break (or is empty). */
function validJsonl(file: string): object[] {
  const text = fs.readFileSync(file, 'utf8');
  if (!text) return [];
  assert.ok(text.endsWith('\n'), 'the file ends with a whole line');
  return text.slice(0, -1).split('\n').map((l) => JSON.parse(l));
}
const lineOf = (o: object) => JSON.stringify(o) + '\n';

test('lines: numbers, byte offsets, CRLF and a BOM, whatever the chunking (seeded)', async () => {
  const text = '\uFEFFfirst\r\nsécond\n\nlast without newline';
  const bytes = Buffer.from(text);
  const prng = new Prng(SEED);
  for (let round = 0; round < 50; round++) {
    const chunks: Buffer[] = [];
    for (let i = 0; i < bytes.length; ) {
      const n = prng.int(1, 7);
      chunks.push(bytes.subarray(i, i + n));
      i += n;
    }
    const got = [];
    for await (const l of readLines((async function* () { yield* chunks; })(), 1000)) got.push(l);
    assert.deepEqual(got.map((l) => l.text), ['first', 'sécond', '', 'last without newline'], `seed ${SEED}`);
    assert.deepEqual(got.map((l) => l.terminated), [true, true, true, false]);
    assert.equal(got.at(-1)!.end, bytes.length);
    assert.equal(bytes.subarray(got[1]!.start, got[1]!.end).toString(), 'sécond\n');
  }
});

test('input: every unusable line is named with its number before anything is sent', async () => {
  const file = write(
    'q.jsonl',
    [
      '{"id": "a", "prompt": "fever in a child"}',
      '',
      'what is a fever?',
      '{"id": "b"}',
      '{"id": "a", "prompt": "again"}',
      '{"prompt": "no id"}',
      '{"id": "c", "messages": [{"role": "user", "content": "hi"}], "system": "s"}',
      '{"id": "d", "messages": [{"role": "doctor", "content": "hi"}]}',
      '{"id": 7, "prompt": "ok", "extra": {"arm": 2}}',
      '{"id": "7", "prompt": "same id as 7"}',
    ].join('\n') + '\n',
  );
  const input = await BatchInput.open(file, { mode: 'jsonl', maxLineBytes: 1 << 20 });
  const scan = await input.scan();
  assert.equal(scan.problemCount, 6);
  assert.deepEqual(
    scan.problems.map((p) => p.replace(/:.*/, '')),
    ['line 3', 'line 4', 'line 5', 'line 6', 'line 8', 'line 10'],
  );
  assert.match(scan.problems[0]!, /not valid JSON.*use --lines/);
  assert.match(scan.problems[2]!, /id "a" is already used on line 1/);
  assert.match(scan.problems[5]!, /id "7" is already used on line 9/);
});

test('input: --lines takes each non-blank line as a question, its line number as its id; stdin is read twice from a private copy', async () => {
  const stdin = new PassThrough();
  stdin.end('what is a fever?\n\n  \nwhat is pain?');
  const input = await BatchInput.open('-', { mode: 'lines', maxLineBytes: 1 << 20, stdin });
  const copy = input.file;
  assert.equal(fs.statSync(copy).mode & 0o777, 0o600);
  assert.equal(fs.statSync(path.dirname(copy)).mode & 0o777, 0o700);
  const scan = await input.scan();
  assert.equal(scan.total, 2);
  const items = [];
  for await (const item of input.items()) items.push(item);
  assert.deepEqual(items, [
    { id: 1, line: 1, prompt: 'what is a fever?' },
    { id: 4, line: 4, prompt: 'what is pain?' },
  ]);
  input.dispose();
  assert.equal(fs.existsSync(path.dirname(copy)), false, 'the copy of stdin is removed');
});

test('answers file: answered ids are read back; lines with an error are dropped when asked again', async () => {
  const file = write(
    'a.jsonl',
    lineOf({ id: 'a', content: 'A' }) + lineOf({ id: 'b', content: '', error: { message: 'x', exit_code: 1 } }) + lineOf({ id: 'c', content: 'C' }) + lineOf({ id: 'z', content: '', error: { message: 'y', exit_code: 1 } }),
  );
  const { out, resume } = await AnswersFile.open(file, { inputIds: new Map([['a', 1], ['b', 2], ['c', 3]]) });
  assert.deepEqual([...resume.answered].sort(), ['a', 'c']);
  assert.equal(resume.retried, 1, 'b is asked again; z is not in this input and is kept');
  out.append({ id: 'b', content: 'B' });
  out.close();
  assert.deepEqual(validJsonl(file).map((o) => (o as { id: string }).id), ['a', 'c', 'z', 'b']);
});

test('answers file: a torn last line (a power cut mid-write, zeros from the file system) is cut off, and nothing before it', async () => {
  for (const tail of ['{"id": "c", "cont', '{', '{"i', '\u0000'.repeat(4096), '{"id":"c","content":"C\u0000\u0000\u0000', '\u0000\u0000{"id":"c"']) {
    const good = lineOf({ id: 'a', content: 'A' }) + lineOf({ id: 'b', content: 'B' });
    const file = write('a.jsonl', good + tail);
    const { out, resume } = await AnswersFile.open(file);
    assert.equal(resume.tornBytes, Buffer.byteLength(tail));
    assert.deepEqual([...resume.answered], ['a', 'b']);
    out.append({ id: 'c', content: 'C' });
    out.close();
    assert.deepEqual(validJsonl(file).map((o) => (o as { id: string }).id), ['a', 'b', 'c']);
  }
});

test('answers file: a whole last line without its line break is kept, and the next line starts on a line of its own', async () => {
  const file = write('a.jsonl', lineOf({ id: 'a', content: 'A' }) + JSON.stringify({ id: 'b', content: 'B' }));
  const { out, resume } = await AnswersFile.open(file);
  assert.deepEqual([...resume.answered], ['a', 'b']);
  out.append({ id: 'c', content: 'C' });
  out.close();
  assert.equal(validJsonl(file).length, 3);
});

test('answers file: a bad line in the middle is refused with its number (never appended to blindly)', async () => {
  const file = write('a.jsonl', lineOf({ id: 'a' }) + 'hello\n' + lineOf({ id: 'b' }));
  const before = fs.readFileSync(file);
  await assert.rejects(AnswersFile.open(file), /line 2 is not an answer line/);
  assert.deepEqual(fs.readFileSync(file), before);
});

test('answers file: only an answers file is opened; prose, a complete non-answer line after the answers, or an unterminated one that is no torn answer are refused, unchanged', async () => {
  const answers = lineOf({ id: 'a', content: 'A' }) + lineOf({ id: 'b', content: 'B' });
  const cases: Array<[string, number]> = [
    ['Ward 7 notes\nBed 2: chest pain, troponin pending\n', 1],
    ['one line of notes with no line break', 1],
    [answers + 'note added by hand\n', 3],
    [answers + '{"id": "c"}garbage\n\u0000\u0000', 3],
    [answers + '\n' + lineOf({ content: 'no id' }), 4],
    [answers + 'reviewed', 3],
    [answers + '{}', 3],
    [answers + '[{"id": "c"', 3],
  ];
  for (const [text, lineNo] of cases) {
    const file = write('a.jsonl', text);
    const before = fs.readFileSync(file);
    await assert.rejects(AnswersFile.open(file), (err: Error & { kind?: string }) => {
      assert.equal(err.kind, 'usage');
      assert.match(err.message, new RegExp(`is not an answers file medchat can add to: line ${lineNo} is not an answer line`), JSON.stringify(text));
      return true;
    });
    assert.deepEqual(fs.readFileSync(file), before, JSON.stringify(text));
    assert.equal(fs.existsSync(`${file}.lock`), false);
  }
});

test('answers file: an empty file, or answers with blank lines among them, is opened; blank lines are not cut', async () => {
  const empty = write('a.jsonl', '');
  const e = await AnswersFile.open(empty);
  assert.equal(e.resume.tornBytes, 0);
  e.out.append({ id: 'a', content: 'A' });
  e.out.close();
  assert.equal(validJsonl(empty).length, 1);
  const text = lineOf({ id: 'a', content: 'A' }) + '\n' + lineOf({ id: 'b', content: 'B' }) + '\n\n';
  const file = write('b.jsonl', text);
  const { out, resume } = await AnswersFile.open(file);
  assert.equal(resume.tornBytes, 0);
  assert.deepEqual([...resume.answered], ['a', 'b']);
  out.close();
  assert.equal(fs.readFileSync(file, 'utf8'), text);
});

test('answers file: a full disk at any write leaves whole lines only, and says so once (seeded short writes)', async () => {
  const records = Array.from({ length: 12 }, (_, i) => ({ id: `q${i}`, content: `answer ${i} `.repeat(40 + i * 13) }));
  // A probe: how many write calls the 12 lines take with seeded short writes.
  const dir = tmp();
  const probe = new FaultyFileOps();
  const { out: p } = await AnswersFile.open(path.join(dir, 'probe.jsonl'), { ops: probe });
  for (const r of records) p.append(r);
  p.close();
  const writes = probe.calls.filter((c) => c === 'write').length;
  for (let at = 1; at <= probe.calls.length; at++) {
    for (const kind of ['ENOSPC', 'short', 'EIO'] as const) {
      const file = path.join(dir, `a-${at}-${kind}.jsonl`);
      const ops = new FaultyFileOps({ at, kind });
      let error: unknown;
      let appended = 0;
      try {
        const { out } = await AnswersFile.open(file, { ops });
        for (const r of records) {
          out.append(r);
          appended++;
        }
        out.close();
      } catch (err) {
        error = err;
      }
      const what = `fault ${kind} at call ${at} of ${probe.calls.length} (${writes} writes), seed ${SEED}`;
      if (!fs.existsSync(file)) {
        assert.ok(error instanceof FileWriteError, what);
        continue;
      }
      const lines = validJsonl(file);
      assert.deepEqual(lines, records.slice(0, lines.length), `${what}: the file holds whole answers in order`);
      if (ops.fired) {
        assert.ok(error instanceof FileWriteError, what);
        assert.doesNotMatch((error as Error).message, /\n/);
        assert.equal(lines.length, appended, `${what}: every answer reported written is in the file, and no other`);
      }
    }
  }
});

test('answers file: one run at a time; a second open is refused naming the holder, and the file is free again after close', async () => {
  const file = write('a.jsonl', lineOf({ id: 'a', content: 'A' }));
  // A holder that is running: this test's parent (a process that is certainly alive and not us).
  fs.writeFileSync(`${file}.lock`, `${process.ppid}\n`);
  await assert.rejects(AnswersFile.open(file), (err: Error) => {
    assert.equal(err.message, `another medchat batch (pid ${process.ppid}) is writing ${file}; wait for it to end, or choose another -o (if none runs, remove ${file}.lock)`);
    return true;
  });
  assert.equal(fs.readFileSync(file, 'utf8'), lineOf({ id: 'a', content: 'A' }), 'the file is left alone');
  // A batch runs for hours: a lock is never stale by its age while its holder runs.
  const anHourAgo = new Date(Date.now() - 3_600_000);
  fs.utimesSync(`${file}.lock`, anHourAgo, anHourAgo);
  await assert.rejects(AnswersFile.open(file), /another medchat batch \(pid \d+\) is writing/);
  fs.rmSync(`${file}.lock`);

  const { out } = await AnswersFile.open(file);
  assert.equal(fs.readFileSync(`${file}.lock`, 'utf8'), lockLine(), 'the lock names this run and its host');
  assert.match(lockLine(), new RegExp(`^${process.pid} ${os.hostname()}( start:\\d+ boot:[0-9a-f-]+)?\n$`));
  out.append({ id: 'b', content: 'B' });
  out.close();
  assert.equal(fs.existsSync(`${file}.lock`), false, 'closing lets the next run in');
  const again = await AnswersFile.open(file);
  again.out.close();
});

test('answers file: a lock left by a run that was killed is taken over; an empty one is refused only while it is new', async () => {
  const file = write('a.jsonl', '');
  // A process id that no longer exists: a child that has ended and been reaped.
  const { spawnSync } = await import('node:child_process');
  const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout;
  fs.writeFileSync(`${file}.lock`, `${gone}\n`);
  const taken = await AnswersFile.open(file);
  assert.equal(fs.readFileSync(`${file}.lock`, 'utf8'), lockLine());
  assert.equal(taken.resume.lockNote, `took over ${file}.lock, left by pid ${gone}, which no longer runs`, 'the run says whose lock it took over');
  taken.out.close();

  fs.writeFileSync(`${file}.lock`, '');
  await assert.rejects(AnswersFile.open(file), /another medchat batch \(a process that is just starting\) is writing .*; wait for it to end/);
  const old = new Date(Date.now() - 60_000);
  fs.utimesSync(`${file}.lock`, old, old);
  const after = await AnswersFile.open(file);
  after.out.close();
  assert.equal(fs.existsSync(`${file}.lock`), false);
});

/** nodeFileOps, except that no lock file can be made next to the answers (a folder this user cannot write). */
const noLocksBeside = (file: string): FileOps => ({
  ...nodeFileOps,
  open: (f, flags, mode) => {
    if (f === `${file}.lock`) throw Object.assign(new Error(`EACCES: permission denied, open '${f}'`), { code: 'EACCES' });
    return nodeFileOps.open(f, flags, mode);
  },
});

test('answers file: where no lock can be made beside it, the lock is in the data folder, keyed by the file itself, and still keeps a second run out', async () => {
  const file = write('a.jsonl', lineOf({ id: 'a', content: 'A' }));
  const lockDir = path.join(path.dirname(file), 'data-locks');
  const ops = noLocksBeside(file);
  const st = fs.statSync(file);
  const lock = path.join(lockDir, `${st.dev}-${st.ino}.lock`);
  const { out } = await AnswersFile.open(file, { ops, lockDir });
  assert.equal(fs.readFileSync(lock, 'utf8'), lockLine());
  assert.equal(fs.statSync(lockDir).mode & 0o777, 0o700, 'a private folder');
  await assert.rejects(AnswersFile.open(file, { ops, lockDir }), (err: Error) => {
    assert.equal(err.message, `another medchat batch (pid ${process.pid}) is writing ${file}; wait for it to end, or choose another -o (if none runs, remove ${lock})`);
    return true;
  });
  out.close();
  assert.equal(fs.existsSync(lock), false, 'closing lets the next run in');
  // A file not made yet in such a folder cannot be made either: the write error, before anything is sent.
  const missing = path.join(path.dirname(file), 'new.jsonl');
  await assert.rejects(AnswersFile.open(missing, { ops: noLocksBeside(missing), lockDir }), (err: Error) => {
    assert.equal(err.message, `cannot write ${missing}: permission denied (EACCES)`);
    return true;
  });
});

test('answers file: through a link, the lock is beside the file it points to, so a run by the link and one by the real path exclude each other', async () => {
  const file = write('real.jsonl', '');
  const link = path.join(path.dirname(file), 'link.jsonl');
  fs.symlinkSync(file, link);
  const { out } = await AnswersFile.open(link);
  assert.ok(fs.existsSync(`${file}.lock`));
  await assert.rejects(AnswersFile.open(file), /another medchat batch \(pid \d+\) is writing/);
  out.append({ id: 'x', content: 'X' });
  out.close();
  assert.ok(fs.lstatSync(link).isSymbolicLink());
  assert.equal(fs.readFileSync(file, 'utf8'), lineOf({ id: 'x', content: 'X' }));
});
