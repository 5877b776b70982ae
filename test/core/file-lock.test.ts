// The lock between medchat processes (src/core/io/file-lock.ts), in process: what a lock records,
// whose lock is stale (a pid now used by another process, a lock from before a restart), a stale
// lock medchat cannot remove, and a lock that timed out once not being waited for again. The cases
// that spun forever before (a folder, another user's lock) run the built binary: test/e2e/locks.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { holdFileLock, lockLine, LockTimeoutError, LockUnusableError, withFileLock } from '../../src/core/io/file-lock.js';
import { nodeFileOps, type FileOps } from '../../src/core/io/file-ops.js';
import { tempDir } from '../support/temp.js';

const linux = fs.existsSync('/proc/self/stat') && fs.existsSync('/proc/sys/kernel/random/boot_id');
const startOf = (pid: number) => fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[19]!;
const boot = () => fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
const lockIn = () => path.join(tempDir('medchat-lock-'), 's.json.lock');

test('a lock records its holder: pid and host, and on Linux its start time and boot', { skip: !linux && 'no /proc here: pid and host only' }, () => {
  assert.equal(lockLine(), `${process.pid} ${os.hostname()} start:${startOf(process.pid)} boot:${boot()}\n`);
  const lock = lockIn();
  withFileLock(lock, () => assert.equal(fs.readFileSync(lock, 'utf8'), lockLine()));
  assert.equal(fs.existsSync(lock), false);
});

test('a lock naming a live pid that is another process (other start, or another boot) is taken over and says whose it was; its real holder is waited for, then refused', { skip: !linux && 'no /proc here: pid and host only' }, () => {
  const lock = lockIn();
  const holder = process.ppid; // alive, and not this process
  fs.writeFileSync(lock, `${holder} ${os.hostname()} start:${Number(startOf(holder)) + 1} boot:${boot()}\n`);
  const release = holdFileLock(lock, { waitMs: 200 });
  assert.equal(release.tookOver, `pid ${holder}, which no longer runs (that pid is now another process)`);
  assert.equal(fs.readFileSync(lock, 'utf8'), lockLine());
  release();

  fs.writeFileSync(lock, `${holder} ${os.hostname()} start:${startOf(holder)} boot:00000000-0000-4000-8000-000000000000\n`);
  const again = holdFileLock(lock, { waitMs: 200 });
  assert.equal(again.tookOver, `pid ${holder}, before the machine last started`);
  again();

  fs.writeFileSync(lock, `${holder} ${os.hostname()} start:${startOf(holder)} boot:${boot()}\n`);
  assert.throws(
    () => holdFileLock(lock, { waitMs: 200 }),
    (err: unknown) => err instanceof LockTimeoutError && err.holder === `pid ${holder}` && err.owner === undefined,
  );
  // An older medchat's lock (pid and host only) is judged by the pid alone, as before.
  fs.writeFileSync(lock, `${holder} ${os.hostname()}\n`);
  assert.throws(() => holdFileLock(lock, { waitMs: 100 }), LockTimeoutError);
});

test('a stale lock that cannot be removed is reported at once, in one line naming it, not broken again and again', () => {
  const lock = lockIn();
  fs.writeFileSync(lock, `999999999 ${os.hostname()}\n`); // no such pid
  let unlinks = 0;
  const ops: FileOps = {
    ...nodeFileOps,
    unlink: (f) => {
      unlinks++;
      throw Object.assign(new Error(`EPERM: operation not permitted, unlink '${f}'`), { code: 'EPERM' });
    },
  };
  assert.throws(
    () => withFileLock(lock, () => assert.fail('never runs'), { ops, waitMs: 3000 }),
    (err: unknown) => {
      assert.ok(err instanceof LockUnusableError);
      assert.equal(err.message, `${lock} was left by pid 999999999, which no longer runs, but medchat cannot remove it (EPERM); remove it, or check the folder's permissions`);
      return true;
    },
  );
  assert.equal(unlinks, 1, 'one try');
});

test('a lock that kept this process out once is reported at once the next time while it is the same file; a new lock is waited for again', () => {
  const lock = lockIn();
  const live = `${process.ppid} ${os.hostname()}\n`;
  fs.writeFileSync(lock, live);
  const waitMs = 1500;
  let t = Date.now();
  assert.throws(() => withFileLock(lock, () => {}, { waitMs }), LockTimeoutError);
  const first = Date.now() - t;
  assert.ok(first >= waitMs - 50, `the first time it waits (${first} ms)`);
  t = Date.now();
  assert.throws(() => withFileLock(lock, () => {}, { waitMs }), LockTimeoutError);
  const second = Date.now() - t;
  assert.ok(second < waitMs / 2, `the second time it does not wait again (${second} ms)`);
  fs.rmSync(lock);
  fs.writeFileSync(lock, live);
  const later = new Date(Date.now() + 5000);
  fs.utimesSync(lock, later, later); // another file now, whatever the clock's resolution
  t = Date.now();
  assert.throws(() => withFileLock(lock, () => {}, { waitMs }), LockTimeoutError);
  assert.ok(Date.now() - t >= waitMs - 50, 'a new lock is waited for');
  fs.rmSync(lock);
  assert.equal(withFileLock(lock, () => 'ran', { waitMs }), 'ran', 'and once it is gone, the lock is taken');
});
