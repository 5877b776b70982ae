// core/io/bounded-read.ts: the one reader of a path. It opens without blocking, refuses what is not
// a regular file by the opened fd, reads until EOF (never trusting stat's size) and stops the
// moment the bound is passed; readStreamBounded does the same for a stream.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { test } from 'node:test';
import { FileReadError, decodeText, readFileBounded, readStreamBounded, readTextFileBounded } from '../../src/core/io/bounded-read.js';
import { tempHome } from '../support/cli.js';
import { Prng, seedFromEnv } from '../support/prng.js';

const refused = (fn: () => unknown, problem: string, message: RegExp) =>
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof FileReadError, String(e));
    assert.equal(e.problem, problem);
    assert.match(e.message, message);
    assert.equal(e.exitCode, 2);
    assert.ok(!e.message.includes('\n'), 'one line');
    return true;
  });

test('a FIFO with no writer, a link to /dev/zero, /dev/zero and a folder are refused at once by what the opened file is', { skip: spawnSync('mkfifo', ['--version']).status !== 0 && 'needs mkfifo' }, () => {
  const dir = tempHome();
  const fifo = path.join(dir, 'pipe');
  assert.equal(spawnSync('mkfifo', [fifo]).status, 0);
  const link = path.join(dir, 'zero-link');
  fs.symlinkSync('/dev/zero', link);
  const started = performance.now();
  refused(() => readFileBounded(fifo, { maxBytes: 1024, what: 'the note' }), 'not-regular', /^the note: not a regular file but a FIFO \(named pipe\); give a regular file$/);
  refused(() => readFileBounded(link, { maxBytes: 1024 }), 'not-regular', /zero-link: not a regular file but a character device/);
  refused(() => readFileBounded('/dev/zero', { maxBytes: 1024, notRegularHint: 'pipe it in' }), 'not-regular', /^\/dev\/zero: not a regular file but a character device; pipe it in$/);
  refused(() => readFileBounded(dir, { maxBytes: 1024 }), 'folder', /it is a folder; give a file$/);
  refused(() => readFileBounded(path.join(dir, 'nope'), { maxBytes: 1024 }), 'missing', /nope: no such file$/);
  assert.ok(performance.now() - started < 5000, 'nothing waited');
});

test('a link to a regular file is read; a /proc file whose size says 0 is read to its end', () => {
  const dir = tempHome();
  fs.writeFileSync(path.join(dir, 'note.txt'), '\uFEFFChest pain.\n');
  fs.symlinkSync(path.join(dir, 'note.txt'), path.join(dir, 'link.txt'));
  assert.equal(readTextFileBounded(path.join(dir, 'link.txt'), { maxBytes: 100 }), 'Chest pain.\n');
  if (fs.existsSync('/proc/self/status')) {
    assert.equal(fs.statSync('/proc/self/status').size, 0);
    assert.match(readTextFileBounded('/proc/self/status', { maxBytes: 1024 * 1024 }), /^Name:[\s\S]*\nVmRSS:/m);
    // Longer than the bound, though its size says 0: stopped there.
    refused(() => readFileBounded('/proc/self/status', { maxBytes: 100 }), 'too-big', /is larger still \(reading stopped there\), more than the 100 bytes it may be/);
  }
});

test('generated sizes around the bound: at most the bound is read, one byte more is refused, with the numbers', () => {
  const seed = seedFromEnv();
  const rng = new Prng(seed);
  const dir = tempHome();
  let cases = 0;
  for (let i = 0; i < 60; i++) {
    const max = rng.int(1, 300_000);
    const size = rng.pick([max, max + 1, rng.int(0, max), max + rng.int(1, 100_000)]);
    const file = path.join(dir, `f${i}`);
    fs.writeFileSync(file, Buffer.alloc(size, 0x61));
    const what = `MEDCHAT_SEED=${seed} case ${i}: ${size} bytes, at most ${max}`;
    if (size <= max) assert.equal(readFileBounded(file, { maxBytes: max }).length, size, what);
    else refused(() => readFileBounded(file, { maxBytes: max, tooBigHint: 'send less' }), 'too-big', /: is [\d.]+ (bytes|KB), more than the [\d.]+ (bytes|KB) it may be; send less$/);
    cases++;
  }
  console.log(`# bounded reads: ${cases} generated sizes, seed ${seed}`);
});

test('a stream is read until it passes the bound, then destroyed, holding no more', async () => {
  let pulled = 0;
  const endless = new Readable({
    read() {
      pulled += 64 * 1024;
      this.push(Buffer.alloc(64 * 1024, 0x79));
    },
  });
  await assert.rejects(
    readStreamBounded(endless, 1024 * 1024, () => new Error('too big')),
    /too big/,
  );
  assert.ok(endless.destroyed, 'the stream is destroyed');
  assert.ok(pulled <= 2 * 1024 * 1024, `read ${pulled} bytes for a 1 MB bound`);
  assert.equal((await readStreamBounded(Readable.from([Buffer.from('ab'), 'cd']), 4, () => new Error('x'))).toString(), 'abcd');
});

test('text: a NUL byte or bytes that are not UTF-8 are refused with where; a BOM is dropped', () => {
  assert.equal(decodeText(Buffer.from('\uFEFFok'), 'x'), 'ok');
  assert.throws(() => decodeText(Buffer.from('ab\0c'), 'role ward.md'), /^MedchatError: role ward\.md: looks binary \(a NUL byte at byte 2 of 4\)/);
  assert.throws(() => decodeText(Buffer.from([0x63, 0xe9]), 'stdin'), /^MedchatError: stdin: is not UTF-8 text/);
});
