// Locks that are not what medchat made, for `batch -o` (`<answers>.lock`) and a session (`-c`,
// `<session>.json.lock`): a folder, another user's lock medchat cannot read or remove, a pid now
// used by another process, a folder medchat cannot write, and `-o` through a symbolic link. Each run
// ends within a bound with the outcome docs/manual.md gives; SIGTERM while a run waits gives 143.
// (Before: the lock loop spun forever ignoring SIGTERM, batch ran unlocked where it could not make
// its lock, a reused pid was refused forever, and a rerun replaced a linked -o with a plain file.)
//
// The other-user cases need root (to make a lock nobody else can read) and setpriv (util-linux) to
// run medchat as nobody; elsewhere they are skipped with the reason printed.
import assert from 'node:assert/strict';
import { spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, test } from 'node:test';
import { startServiceDouble, type ServiceDouble } from '../support/misbehaving-service.js';
import { BIN, runCli, tempHome, waitFor, type CliOptions } from '../support/cli.js';
import { tempDir } from '../support/temp.js';

/** "Ends at all": on the code before, each of these runs spun until killed. */
const BOUND_MS = 20_000;

const doubles: ServiceDouble[] = [];
afterEach(async () => {
  for (const d of doubles.splice(0)) await d.close();
});

async function setup(n: number, home = tempHome()) {
  const double = await startServiceDouble({});
  doubles.push(double);
  const ids = Array.from({ length: n }, (_, i) => `q${i + 1}`);
  const input = path.join(home, 'questions.jsonl');
  fs.writeFileSync(input, ids.map((id) => JSON.stringify({ id, prompt: `question ${id}` })).join('\n') + '\n');
  fs.chmodSync(input, 0o644);
  return { double, home, ids, input, out: path.join(home, 'answers.jsonl') };
}

const answerIds = (file: string) =>
  fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { id: string; error?: unknown });

// ---- running medchat as another user (nobody) ----

const NOBODY = 65534;
const AS_NOBODY = ['setpriv', `--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups'];

/** Why the other-user cases cannot run here, or false when they can. */
const otherUserSkip: string | false = (() => {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return 'needs root on Linux, to make a lock another user cannot read';
  const probe = spawnSync(AS_NOBODY[0]!, [...AS_NOBODY.slice(1), process.execPath, '-e', '0'], { stdio: 'ignore' });
  if (probe.status !== 0) return 'needs setpriv (util-linux) and a node binary the user nobody can run';
  return false;
})();
if (otherUserSkip) console.log(`locks: the other-user cases are skipped: ${otherUserSkip}`);

/** A copy of the built launcher and bundle that nobody can read (the checkout may sit in root's home). */
let nobodyBin: string | undefined;
function binForNobody(): string {
  if (nobodyBin) return nobodyBin;
  const dir = openToOthers(tempDir('medchat-bin-'));
  const repo = path.dirname(path.dirname(BIN));
  fs.cpSync(path.join(repo, 'bin'), path.join(dir, 'bin'), { recursive: true });
  fs.cpSync(path.join(repo, 'dist'), path.join(dir, 'dist'), { recursive: true });
  spawnSync('chmod', ['-R', 'a+rX', dir]);
  nobodyBin = path.join(dir, 'bin', 'medchat.js');
  return nobodyBin;
}

/** Let other users pass through `dir` and the folders above it (the test run's temp folder is 0700). */
function openToOthers(dir: string): string {
  for (let d = dir; d !== path.dirname(d); d = path.dirname(d)) {
    const st = fs.statSync(d);
    if ((st.mode & 0o001) === 0 && st.uid === process.getuid?.()) fs.chmodSync(d, (st.mode & 0o7777) | 0o711);
  }
  return dir;
}

/** A home that belongs to nobody. */
function nobodyHome(): string {
  const home = openToOthers(tempHome());
  fs.chownSync(home, NOBODY, NOBODY);
  return home;
}

const runAsNobody = (args: string[], opts: CliOptions) => runCli(args, { ...opts, wrap: AS_NOBODY, bin: binForNobody(), timeoutMs: BOUND_MS });

/**
 * Whether the process is asleep in the lock's wait (Linux: its main thread in the futex call the
 * wait sleeps in; a process spinning or reading the network is not).
 */
function inLockWait(pid: number): boolean {
  try {
    return fs.readFileSync(`/proc/${pid}/syscall`, 'utf8').startsWith('202 ');
  } catch {
    return false;
  }
}

// ---- batch -o ----

test('batch: a lock that is a folder is refused at once in one line naming it (exit 2), nothing is sent and the folder is left; SIGTERM meanwhile ends it as well', async () => {
  const { double, home, input, out } = await setup(3);
  fs.mkdirSync(`${out}.lock`);
  const r = await runCli(['batch', input, '-o', out], { baseUrl: double.url, home, timeoutMs: BOUND_MS });
  assert.equal(r.code, 2, r.stderr);
  assert.equal(r.stderr, `medchat: cannot lock ${out} for this run: ${out}.lock is a folder, not a lock medchat made; move or remove that folder, then run again; nothing was sent\n`);
  assert.equal(double.chat.requests.length, 0, 'nothing was sent');
  assert.ok(fs.statSync(`${out}.lock`).isDirectory(), 'the folder is left as it was');
  assert.equal(fs.existsSync(out), false);

  // The same with a SIGTERM soon after the start: it ends, refused or stopped, never spinning on.
  const t = await runCli(['batch', input, '-o', out], { baseUrl: double.url, home, timeoutMs: BOUND_MS, onSpawn: (c) => setTimeout(() => c.kill('SIGTERM'), 150) });
  assert.ok(t.code === 2 || t.code === 143 || t.signal === 'SIGTERM', `exit ${t.code} ${t.signal}: ${t.stderr}`);
});

test('batch: a lock naming a live pid that is another process (it started later, or before a restart) is taken over with one line; the live holder is still refused', async (t) => {
  if (!fs.existsSync('/proc/1/stat')) return t.skip('no /proc: the lock holds only pid and host here, as before');
  const startOf = (pid: number) => fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[19]!;
  const boot = fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  const { double, home, ids, input, out } = await setup(5);

  // pid 1 always runs; the lock says it started at another moment, so pid 1 is not its writer.
  fs.writeFileSync(`${out}.lock`, `1 ${os.hostname()} start:${Number(startOf(1)) + 1} boot:${boot}\n`);
  const r = await runCli(['batch', input, '-o', out], { baseUrl: double.url, home, timeoutMs: BOUND_MS });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stderr.split('\n')[0], `medchat batch: took over ${out}.lock, left by pid 1, which no longer runs (that pid is now another process)`);
  assert.deepEqual(answerIds(out).map((l) => l.id).sort(), [...ids].sort());
  assert.equal(fs.existsSync(`${out}.lock`), false, 'released at the end');

  // Written by this test's process in an earlier boot: the pid runs, but the boot is another.
  fs.writeFileSync(`${out}.lock`, `${process.pid} ${os.hostname()} start:${startOf(process.pid)} boot:00000000-0000-4000-8000-000000000000\n`);
  const again = await runCli(['batch', input, '-o', out], { baseUrl: double.url, home, timeoutMs: BOUND_MS });
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stderr, new RegExp(`^medchat batch: took over .*, left by pid ${process.pid}, before the machine last started\\n`));

  // The holder itself (this process, with its own start time and boot) is refused, as before.
  fs.writeFileSync(`${out}.lock`, `${process.pid} ${os.hostname()} start:${startOf(process.pid)} boot:${boot}\n`);
  const refused = await runCli(['batch', input, '-o', out], { baseUrl: double.url, home, timeoutMs: BOUND_MS });
  assert.equal(refused.code, 2);
  assert.equal(refused.stderr, `medchat: another medchat batch (pid ${process.pid}) is writing ${out}; wait for it to end, or choose another -o (if none runs, remove ${out}.lock)\n`);
  assert.equal(double.chat.requests.length, 5, 'the refused run sent nothing');
});

test("batch: another user's lock that cannot be read, or names a run that is gone but cannot be removed, is refused at once saying whom to ask (exit 2)", async (t) => {
  if (otherUserSkip) return t.skip(otherUserSkip);
  const home = nobodyHome();
  const { double, input } = await setup(3, home);
  // A folder all may write in, where only a file's owner may remove it (like /tmp).
  const shared = path.join(home, 'shared');
  fs.mkdirSync(shared);
  fs.chmodSync(shared, 0o1777);
  const out = path.join(shared, 'answers.jsonl');
  fs.writeFileSync(`${out}.lock`, `${process.pid} ${os.hostname()}\n`, { mode: 0o600 });
  const hidden = await runAsNobody(['batch', input, '-o', out], { baseUrl: double.url, home });
  assert.equal(hidden.code, 2, hidden.stderr);
  assert.equal(
    hidden.stderr,
    `medchat: another medchat batch (a process of user root; its lock cannot be read) is writing ${out}; wait for it to end, or choose another -o (if none runs, ask user root to remove ${out}.lock)\n`,
  );

  // Readable, naming a process that has ended, but not ours to remove.
  const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout;
  fs.writeFileSync(`${out}.lock`, `${gone} ${os.hostname()}\n`);
  fs.chmodSync(`${out}.lock`, 0o644);
  const stuck = await runAsNobody(['batch', input, '-o', out], { baseUrl: double.url, home });
  assert.equal(stuck.code, 2, stuck.stderr);
  assert.equal(
    stuck.stderr,
    `medchat: cannot lock ${out} for this run: ${out}.lock was left by pid ${gone}, which no longer runs, but medchat cannot remove it (EPERM); ask user root to remove it; nothing was sent\n`,
  );
  assert.equal(double.chat.requests.length, 0, 'nothing was sent');
  assert.equal(fs.existsSync(out), false);
});

test('batch: in a folder it cannot write, the lock is taken in its own data folder, so a second run on the same -o is still refused; if that cannot be made either, nothing runs', async (t) => {
  if (otherUserSkip) return t.skip(otherUserSkip);
  const home = nobodyHome();
  const { double, ids, input } = await setup(20, home);
  const ro = path.join(home, 'readonly');
  fs.mkdirSync(ro, { mode: 0o755 }); // root's: nobody may not make files here
  const out = path.join(ro, 'answers.jsonl');
  fs.writeFileSync(out, '');
  fs.chownSync(out, NOBODY, NOBODY);
  const st = fs.statSync(out);
  const lock = path.join(home, 'data', 'locks', `${st.dev}-${st.ino}.lock`);

  double.chat.holdAfter(4);
  let first: ChildProcess | undefined;
  const running = runAsNobody(['batch', input, '-o', out, '-j', '2'], { baseUrl: double.url, home, onSpawn: (c) => (first = c) });
  await waitFor(() => answerIds(out).length >= 2, BOUND_MS, 'a first answer in the file');
  assert.ok(fs.existsSync(lock), 'the run holds its lock in the data folder');
  const second = await runAsNobody(['batch', input, '-o', out, '-j', '2'], { baseUrl: double.url, home });
  double.chat.release();
  assert.equal(second.code, 2, second.stderr);
  assert.equal(second.stderr, `medchat: another medchat batch (pid ${first!.pid}) is writing ${out}; wait for it to end, or choose another -o (if none runs, remove ${lock})\n`);
  const r = await running;
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(answerIds(out).map((l) => l.id).sort(), [...ids].sort(), 'each question answered once, by the first run');
  assert.equal(double.chat.requests.length, 20, 'the second run asked nothing');
  assert.equal(fs.existsSync(lock), false, 'released at the end');

  // No lock anywhere: refused before anything is sent.
  const out2 = path.join(ro, 'more.jsonl');
  fs.writeFileSync(out2, '');
  fs.chownSync(out2, NOBODY, NOBODY);
  const noData = path.join(home, 'nodata');
  fs.mkdirSync(noData, { mode: 0o755 });
  const refused = await runAsNobody(['batch', input, '-o', out2], { baseUrl: double.url, home, env: { MEDCHAT_DATA_DIR: noData } });
  assert.equal(refused.code, 2, refused.stderr);
  assert.equal(
    refused.stderr,
    `medchat: cannot lock ${out2} for this run: its folder cannot be written (EACCES) and neither can ${noData}/locks (EACCES); nothing was sent: fix the permissions of one of them, or set MEDCHAT_DATA_DIR\n`,
  );
  assert.equal(double.chat.requests.length, 20, 'nothing more was sent');
});

test('batch -o through a symbolic link: the answers go to the file it points to and the link stays a link, also when a rerun removes failed lines', async () => {
  const { double, home, ids, input } = await setup(4);
  const real = path.join(home, 'kept', 'answers.jsonl');
  fs.mkdirSync(path.dirname(real));
  fs.writeFileSync(real, [{ id: 'q1', content: 'A1' }, { id: 'q2', content: '', error: { message: 'no', exit_code: 1 } }].map((l) => JSON.stringify(l) + '\n').join(''));
  const link = path.join(home, 'link.jsonl');
  fs.symlinkSync(real, link);

  const r = await runCli(['batch', input, '-o', link], { baseUrl: double.url, home, timeoutMs: BOUND_MS });
  assert.equal(r.code, 0, r.stderr);
  assert.ok(fs.lstatSync(link).isSymbolicLink(), 'the link is still a link');
  assert.equal(fs.readlinkSync(link), real);
  const lines = answerIds(real);
  assert.deepEqual(lines.map((l) => l.id).sort(), [...ids].sort(), 'the target holds every answer once');
  assert.ok(lines.every((l) => !l.error), 'the failed line was asked again and replaced');
  assert.equal(double.chat.requests.length, 3, 'q1 was not asked again');
  assert.deepEqual(fs.readdirSync(path.dirname(real)), ['answers.jsonl'], 'no lock or temporary file left beside the target');
});

// ---- a session's lock (-c) ----

const sessionsDir = (home: string) => path.join(home, 'data', 'sessions');
const sessionId = (home: string) => fs.readdirSync(sessionsDir(home)).find((n) => n.endsWith('.json'))!.replace(/\.json$/, '');

test("-c: a session lock that is a folder: the answer is given with one warning naming it, without waiting; SIGTERM while the answer is awaited gives 143", async () => {
  const home = tempHome();
  const double = await startServiceDouble({});
  doubles.push(double);
  const first = await runCli(['What is a normal heart rate?'], { baseUrl: double.url, home, timeoutMs: BOUND_MS });
  assert.equal(first.code, 0, first.stderr);
  const id = sessionId(home);
  const lock = path.join(sessionsDir(home), `${id}.json.lock`);
  fs.mkdirSync(lock);

  const r = await runCli(['-c', 'And for a child?'], { baseUrl: double.url, home, timeoutMs: BOUND_MS });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, 'You said: And for a child?');
  assert.equal(r.stderr.match(/medchat: warning/g)?.length, 1, r.stderr);
  assert.equal(
    r.stderr.split('\n')[0],
    `medchat: warning: cannot save the session ${id}: its lock ${lock} is a folder, not a lock medchat made; move or remove that folder, then run again; this conversation is not being saved`,
  );
  assert.ok(fs.statSync(lock).isDirectory(), 'the folder is left as it was');

  double.chat.holdAfter(double.chat.arrivals.length);
  let child: ChildProcess | undefined;
  const held = runCli(['-c', 'And for an infant?'], { baseUrl: double.url, home, timeoutMs: BOUND_MS, onSpawn: (c) => (child = c) });
  const asked = double.chat.arrivals.length;
  await waitFor(() => double.chat.arrivals.length > asked, BOUND_MS, 'the question to reach the service (past the lock)');
  child!.kill('SIGTERM');
  const stopped = await held;
  double.chat.release();
  assert.equal(stopped.code, 143, stopped.stderr);
});

test("-c: another user's session lock that cannot be read is waited for (3 s at most), then the answer is given with one warning saying whom to ask; SIGTERM during the wait gives 143", async (t) => {
  if (otherUserSkip) return t.skip(otherUserSkip);
  const home = nobodyHome();
  const double = await startServiceDouble({});
  doubles.push(double);
  const first = await runAsNobody(['What is a normal heart rate?'], { baseUrl: double.url, home });
  assert.equal(first.code, 0, first.stderr);
  const id = sessionId(home);
  const lock = path.join(sessionsDir(home), `${id}.json.lock`);
  const plant = () => fs.writeFileSync(lock, `${process.pid} ${os.hostname()}\n`, { mode: 0o600 }); // root's, new: maybe held
  plant();

  const r = await runAsNobody(['-c', 'And for a child?'], { baseUrl: double.url, home });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, 'You said: And for a child?');
  assert.equal(r.stderr.match(/medchat: warning/g)?.length, 1, r.stderr);
  assert.equal(
    r.stderr.split('\n')[0],
    `medchat: warning: cannot save the session ${id}: another medchat (a process of user root; its lock cannot be read) kept it locked; if none is running, ask user root to delete ${lock}; this conversation is not being saved`,
  );
  assert.ok(fs.existsSync(lock), "the other user's lock is left alone");

  fs.rmSync(lock);
  plant();
  let child: ChildProcess | undefined;
  const waiting = runAsNobody(['-c', 'And for an infant?'], { baseUrl: double.url, home, onSpawn: (c) => (child = c) });
  // Asleep in a futex a second after it started: the lock wait (start-up can wait in a futex too,
  // before medchat's signal handlers are there, which made this flaky on a loaded machine).
  const spawnedAt = Date.now();
  await waitFor(() => child?.pid !== undefined && Date.now() - spawnedAt > 1000 && inLockWait(child.pid), BOUND_MS, 'medchat asleep in the lock wait');
  const sent = Date.now();
  child!.kill('SIGTERM');
  const stopped = await waiting;
  t.diagnostic(`SIGTERM to exit: ${Date.now() - sent} ms (the wait is 3 s at most)`);
  assert.equal(stopped.code, 143, `${stopped.signal} ${stopped.stderr}`);
});
