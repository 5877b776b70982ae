import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, beforeEach, test } from 'node:test';
import { startServiceDouble, type ServiceDouble } from '../../src/stand-in/index.js';
import type { RecordedRequest } from '../../src/stand-in/server.js';
import { BIN, cliEnv, runCli, tempHome, type CliOptions, type CliResult } from '../support/cli.js';

/**
 * Data durability with the built binary: a full disk never costs a saved conversation, two
 * medchat at once never lose an answer, and an export never writes through a link.
 *
 * A full disk is simulated with a file-size limit (`ulimit -f`), which holds for root too: the
 * kernel accepts the bytes up to the limit (a short write), then refuses the rest (EFBIG),
 * exactly what a disk filling up does to a write.
 */
let double: ServiceDouble;
const homes: string[] = [];
before(async () => {
  double = await startServiceDouble({ contextWindow: 131072 });
});
after(async () => {
  await double.close();
  for (const h of homes) fs.rmSync(h, { recursive: true, force: true, maxRetries: 5 });
});
beforeEach(() => {
  double.server.requests.length = 0;
  double.chat.defaultScript = {};
});

function home(): string {
  const h = tempHome();
  homes.push(h);
  return h;
}
const sessionsDir = (h: string) => path.join(h, 'data', 'sessions');
const sessionFile = (h: string) => {
  const names = fs.readdirSync(sessionsDir(h)).filter((n) => n.endsWith('.json'));
  assert.equal(names.length, 1, names.join(', '));
  return path.join(sessionsDir(h), names[0]!);
};
const leftovers = (h: string) => fs.readdirSync(sessionsDir(h)).filter((n) => !n.endsWith('.json'));

/** runCli, with the file-size limit set to `blocks` × 512 bytes. */
function runLimited(blocks: number, args: string[], opts: CliOptions): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', `ulimit -f ${blocks} && exec "$0" "$@"`, process.execPath, BIN, ...args], { env: cliEnv(opts), stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => err.push(c));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`medchat ${args.join(' ')} did not finish within 20 s\nstderr: ${Buffer.concat(err)}`));
    }, 20_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const stdoutBytes = Buffer.concat(out);
      resolve({ code, signal, stdout: stdoutBytes.toString('utf8'), stderr: Buffer.concat(err).toString('utf8'), stdoutBytes });
    });
  });
}

const lastUser = (req: RecordedRequest): string => {
  const msgs = (req.body as { messages: Array<{ role: string; content: string }> }).messages;
  return msgs.filter((m) => m.role === 'user').at(-1)!.content;
};

test('a full disk during -c: the answer on stdout, exit 0, one warning line, and the earlier conversation intact', async () => {
  const h = home();
  double.chat.enqueue({ content: ['Amoxicillin is a penicillin: avoid it after anaphylaxis. ', 'Consider a macrolide. '.repeat(80)] });
  const first = await runCli(['--reasoning', 'hide', 'Penicillin anaphylaxis in 2019: what can she take for otitis media?'], { baseUrl: double.url, home: h });
  assert.equal(first.code, 0, first.stderr);
  const file = sessionFile(h);
  const good = fs.readFileSync(file);

  // Room for the file as it is, not for the next version of it.
  const question = 'And if she is pregnant? ' + 'She is 31, 12 weeks, no other medicines. '.repeat(40);
  const r = await runLimited(Math.ceil(good.length / 512) + 1, ['--reasoning', 'hide', '-c', question], { baseUrl: double.url, home: h });
  assert.equal(r.code, 0, r.stderr);
  assert.ok(r.stdout.startsWith('You said: And if she is pregnant? She is 31'), `the answer arrives: ${r.stdout.slice(0, 80)}`);
  const lines = r.stderr.split('\n').filter(Boolean);
  assert.equal(lines.length, 1, r.stderr);
  assert.match(lines[0]!, /^medchat: warning: cannot save the session \d{8}-\d{6}-[0-9a-f]{4} in .*sessions: the file is larger than this system allows \(EFBIG\); free some disk space or set MEDCHAT_DATA_DIR; this conversation is not being saved$/);
  assert.deepEqual(fs.readFileSync(file), good, 'the earlier conversation is byte for byte what it was');
  assert.deepEqual(leftovers(h), [], 'no temporary file or lock left');

  // With room again, -c continues the intact conversation.
  const again = await runCli(['--reasoning', 'hide', '-c', 'Thanks'], { baseUrl: double.url, home: h });
  assert.equal(again.code, 0, again.stderr);
  const saved = JSON.parse(fs.readFileSync(file, 'utf8'));
  assert.deepEqual(
    saved.turns.map((t: { status: string }) => t.status),
    ['complete', 'complete'],
  );
});

test('config set on a full disk: exit 2, one line, the config file unchanged', async () => {
  const h = home();
  assert.equal((await runCli(['config', 'set', 'base-url', 'https://service.example'], { home: h })).code, 0);
  const file = path.join(h, 'config', 'config.json');
  const good = fs.readFileSync(file);
  const r = await runLimited(0, ['config', 'set', 'model', 'medical-small'], { home: h });
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /^medchat: cannot write the config file .*config\.json: the file is larger than this system allows \(EFBIG\); nothing was changed; free some disk space\n$/);
  assert.deepEqual(fs.readFileSync(file), good);
  assert.deepEqual(fs.readdirSync(path.dirname(file)), ['config.json']);
});

test('two medchat -c at once, five times over: both answers of every round are saved, complete', async () => {
  const h = home();
  const first = await runCli(['--reasoning', 'hide', 'first question'], { baseUrl: double.url, home: h });
  assert.equal(first.code, 0, first.stderr);
  // Paced answers (~0.6 s each), so the two runs stream, and save, at the same time.
  let overlaps = 0; // rounds in which one answer started while the other was still streaming
  double.chat.defaultScript = {
    reasoning: [],
    content: (req) => {
      if (double.chat.requests.some((r) => r !== req && !r.finished)) overlaps++;
      return [`Answer to ${lastUser(req)}:`, ...Array.from({ length: 20 }, (_, i) => ` w${i}`)];
    },
    paceMs: 30,
  };
  const expected: string[] = ['first question'];
  for (let round = 1; round <= 5; round++) {
    const qs = [`round ${round} question A`, `round ${round} question B`];
    const runs = await Promise.all(qs.map((q) => runCli(['--reasoning', 'hide', '-c', q], { baseUrl: double.url, home: h })));
    runs.forEach((r, i) => {
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stderr, '', `round ${round}: no warning`);
      assert.match(r.stdout, new RegExp(`^Answer to ${qs[i]}: w0`));
    });
    expected.push(...qs);
    const saved = JSON.parse(fs.readFileSync(sessionFile(h), 'utf8'));
    const turns = saved.turns as Array<{ user: string; answer: string; status: string }>;
    assert.deepEqual(turns.map((t) => t.user).sort(), [...expected].sort(), `round ${round}: every question is saved`);
    for (const t of turns.slice(1)) {
      assert.equal(t.status, 'complete', `round ${round}: ${t.user}`);
      assert.equal(t.answer, `Answer to ${t.user}:${Array.from({ length: 20 }, (_, i) => ` w${i}`).join('')}`);
    }
    assert.deepEqual(leftovers(h), []);
  }
  assert.ok(overlaps >= 3, `the two runs overlapped in ${overlaps} of 5 rounds`);
});

test('sessions export -o never writes through a symbolic link; a regular file is replaced whole, 0600', async () => {
  const h = home();
  assert.equal((await runCli(['--reasoning', 'hide', 'What is a normal resting heart rate?'], { baseUrl: double.url, home: h })).code, 0);
  const id = path.basename(sessionFile(h), '.json');
  const outside = path.join(h, 'someone-elses-file.txt');
  fs.writeFileSync(outside, 'must not change\n');
  const link = path.join(h, 'export.md');
  fs.symlinkSync(outside, link);
  const r = await runCli(['sessions', 'export', id, '-o', link], { home: h });
  assert.equal(r.code, 2);
  assert.equal(r.stderr, `medchat: cannot write ${link}: it is a symbolic link, and medchat does not write through links (ELOOP); nothing was written; give the real path instead of the link\n`);
  assert.equal(fs.readFileSync(outside, 'utf8'), 'must not change\n');
  assert.ok(fs.lstatSync(link).isSymbolicLink());

  const plain = path.join(h, 'plain.md');
  fs.writeFileSync(plain, 'an older, longer export '.repeat(500), { mode: 0o644 });
  const ok = await runCli(['sessions', 'export', id, '-o', plain], { home: h });
  assert.equal(ok.code, 0, ok.stderr);
  assert.match(fs.readFileSync(plain, 'utf8'), /^# What is a normal resting heart rate\?\n[\s\S]*You said: What is a normal resting heart rate\?\n$/);
  assert.equal(fs.statSync(plain).mode & 0o777, 0o600);
  assert.deepEqual(fs.readdirSync(h).filter((n) => n.endsWith('.tmp')), []);
});
