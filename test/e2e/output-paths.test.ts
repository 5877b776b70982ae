// Where one-shot output goes when it cannot go there: a reader that leaves (`| head -c 10`), a
// full disk (/dev/full) on stdout or stderr, and a huge stdin. Each ends with at most one
// `medchat:` line, an exit code from the README, no stack trace, and a session holding what arrived.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startServiceDouble, type ServiceDouble } from '../../src/stand-in/index.js';
import { BIN, REPO, cliEnv, runCli, tempHome } from '../support/cli.js';
import { seededRandom } from '../support/prng.js';

let double: ServiceDouble;
const homes: string[] = [];
before(async () => {
  double = await startServiceDouble();
});
after(async () => {
  await double.close();
  for (const h of homes) fs.rmSync(h, { recursive: true, force: true, maxRetries: 5 });
});

function home(): string {
  const h = tempHome();
  homes.push(h);
  return h;
}

const sessionFiles = (h: string) => {
  const dir = path.join(h, 'data', 'sessions');
  return fs.existsSync(dir) ? fs.readdirSync(dir).filter((n) => n.endsWith('.json')) : [];
};
const savedTurn = (h: string) => {
  const files = sessionFiles(h);
  assert.equal(files.length, 1, 'one session file');
  return JSON.parse(fs.readFileSync(path.join(h, 'data', 'sessions', files[0]!), 'utf8')).turns.at(-1);
};

const words = Array.from({ length: 400 }, (_, i) => `w${i} `);
const WHOLE = words.join('');

interface Ended {
  code: number | null;
  stderr: string;
  ms: number;
}

/** Run medchat with stdout on `stdoutFd` (a file descriptor such as /dev/full's) and stderr captured. */
function runWithStdout(args: string[], h: string, stdoutPath: string, opts: { stderrPath?: string; stdout?: 'fd' } = {}): Promise<Ended> {
  return new Promise((resolve, reject) => {
    const out = fs.openSync(stdoutPath, 'w');
    const errFd = opts.stderrPath ? fs.openSync(opts.stderrPath, 'w') : 'pipe';
    const start = Date.now();
    const child = spawn(process.execPath, [BIN, ...args], { env: cliEnv({ baseUrl: double.url, home: h }), stdio: ['ignore', out, errFd] });
    fs.closeSync(out);
    if (typeof errFd === 'number') fs.closeSync(errFd);
    let stderr = '';
    child.stderr?.on('data', (c) => (stderr += c));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`medchat ${args.join(' ')} did not end within 15 s`));
    }, 15_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr, ms: Date.now() - start });
    });
  });
}

const oneLine = (stderr: string, re: RegExp) => {
  assert.doesNotMatch(stderr, /\n\s+at |node:internal|Node\.js v/, `no stack trace:\n${stderr}`);
  const lines = stderr.split('\n').filter((l) => l.startsWith('medchat:'));
  assert.equal(lines.length, 1, `one medchat: line:\n${stderr}`);
  assert.match(lines[0]!, re);
};

describe('a reader that goes away', () => {
  test('medchat -p q | head -c 10: exit 0, and the session keeps what arrived, marked interrupted', async () => {
    const h = home();
    double.chat.enqueue({ reasoning: [], content: words, paceMs: 5 });
    const r = await new Promise<{ out: string; err: string }>((resolve, reject) => {
      const child = spawn('bash', ['-c', `"${process.execPath}" "${BIN}" -p q --reasoning hide | head -c 10; echo; echo "rc=\${PIPESTATUS[0]}" >&2`], { env: cliEnv({ baseUrl: double.url, home: h }) });
      child.stdin.end();
      let out = '';
      let err = '';
      child.stdout.on('data', (c) => (out += c));
      child.stderr.on('data', (c) => (err += c));
      const timer = setTimeout(() => reject(new Error('did not end')), 15_000);
      child.on('close', () => {
        clearTimeout(timer);
        resolve({ out, err });
      });
    });
    assert.equal(r.out, 'w0 w1 w2 w\n');
    assert.equal(r.err.trim(), 'rc=0', 'quietly, exit 0');
    const turn = savedTurn(h);
    assert.ok(turn.answer.length >= 10, `the session keeps what arrived (${JSON.stringify(turn.answer)})`);
    assert.ok(WHOLE.startsWith(turn.answer), 'and only what arrived');
    assert.equal(turn.status, 'interrupted');
    assert.match(turn.error, /stdout was closed before the answer ended/);
  });

  test('a reader that leaves after the whole answer arrived: the turn is complete', async () => {
    const h = home();
    double.chat.enqueue({ reasoning: [], content: ['short answer'] });
    const r = await runCli(['-p', 'q'], { baseUrl: double.url, home: h, onSpawn: (c) => c.stdout!.once('data', () => c.stdout!.destroy()) });
    assert.equal(r.code, 0, r.stderr);
    const turn = savedTurn(h);
    assert.equal(turn.answer, 'short answer');
    assert.equal(turn.status, 'complete');
  });
});

describe('a reader that leaves at a random point (seeded; MEDCHAT_SEED=<n> replays)', { concurrency: 4 }, () => {
  const seed = Number(process.env.MEDCHAT_SEED ?? Date.now() % 2 ** 31);
  const rand = seededRandom(seed);
  const cases = Array.from({ length: 12 }, () => ({ after: Math.floor(rand() * WHOLE.length * 1.1), pace: Math.floor(rand() * 4), json: rand() < 0.25 }));
  cases.forEach((c, i) => {
    test(`case ${i}: the reader leaves after ${c.after} bytes${c.json ? ' (--jsonl)' : ''}: exit 0, quiet, and the session holds at least what the reader got`, async () => {
      const h = home();
      double.chat.enqueue({ reasoning: [], content: words, paceMs: c.pace });
      let got = '';
      const r = await runCli([...(c.json ? ['--jsonl'] : []), '-p', `q${i}`], {
        baseUrl: double.url,
        home: h,
        onSpawn: (child) =>
          child.stdout!.on('data', (chunk) => {
            got += chunk;
            if (got.length >= c.after) child.stdout!.destroy();
          }),
      });
      const why = `seed ${seed} (MEDCHAT_SEED=${seed} replays), case ${i}: ${JSON.stringify(c)}`;
      assert.equal(r.code, 0, `${why}\n${r.stderr}`);
      assert.doesNotMatch(r.stderr, /medchat:|\n\s+at /, why);
      const turn = savedTurn(h);
      assert.ok(WHOLE.startsWith(turn.answer), `${why}: the session holds only what the service sent`);
      const shown = c.json
        ? got.split('\n').filter((l) => l.startsWith('{') && l.endsWith('}')).map((l) => JSON.parse(l)).filter((e) => e.type === 'content').map((e) => e.text).join('')
        : got;
      assert.ok(turn.answer.startsWith(shown), `${why}: the session holds what the reader got`);
      if (turn.status === 'complete') assert.equal(turn.answer, WHOLE, why);
      else assert.equal(turn.status, 'interrupted', why);
    });
  });
});

describe('stdout or stderr on a full disk (/dev/full)', { concurrency: 3 }, () => {
  const full = /^medchat: cannot write to stdout \(ENOSPC: no space left on the device\); free some space or send stdout elsewhere/;
  for (const args of [['-p', 'q'], ['--json', '-p', 'q'], ['--jsonl', '-p', 'q']]) {
    test(`medchat ${args.join(' ')} > /dev/full: one line, exit 1, the answer saved`, async () => {
      const h = home();
      double.chat.enqueue({ reasoning: ['r'], content: words });
      const r = await runWithStdout(args, h, '/dev/full');
      assert.equal(r.code, 1, r.stderr);
      oneLine(r.stderr, full);
      assert.match(r.stderr, /what arrived is saved: medchat sessions show \d{8}-\d{6}-[0-9a-f]{4}/);
      const turn = savedTurn(h);
      assert.ok(turn.answer && WHOLE.startsWith(turn.answer), 'the session holds what arrived');
      if (args[0] === '--json') assert.equal(turn.status, 'complete', 'with --json the whole answer arrived before the one write');
      else assert.ok(turn.status === 'complete' || (turn.status === 'interrupted' && /ENOSPC/.test(turn.error)), JSON.stringify(turn));
    });
  }
  for (const args of [['--help'], ['--version'], ['sessions', 'list', '--json'], ['completion', 'bash']]) {
    test(`medchat ${args.join(' ')} > /dev/full: one line, exit 1`, async () => {
      const r = await runWithStdout(args, home(), '/dev/full');
      assert.equal(r.code, 1, r.stderr);
      oneLine(r.stderr, full);
    });
  }
  test('medchat -p q 2> /dev/full: the answer on stdout in full, exit 1 (the reasoning could not be written)', async () => {
    const h = home();
    double.chat.enqueue({ reasoning: ['thinking'], content: words });
    const outFile = path.join(h, 'out.txt');
    const r = await runWithStdout(['-p', 'q'], h, outFile, { stderrPath: '/dev/full' });
    assert.equal(r.code, 1);
    assert.equal(fs.readFileSync(outFile, 'utf8'), WHOLE);
    assert.equal(savedTurn(h).status, 'complete');
  });
});

describe('a huge stdin', () => {
  test('50 MB on stdin: refused within 2 s with one line and exit 2, peak memory small, no session written', async () => {
    const h = home();
    const rssFile = path.join(h, 'maxrss');
    const env = { NODE_OPTIONS: `--require ${path.join(REPO, 'test', 'support', 'max-rss.cjs')}`, MEDCHAT_TEST_MAXRSS_FILE: rssFile };
    const start = Date.now();
    const r = await new Promise<{ code: number | null; stderr: string }>((resolve, reject) => {
      const child = spawn(process.execPath, [BIN, 'summarise this'], { env: cliEnv({ baseUrl: double.url, home: h, env }), stdio: ['pipe', 'pipe', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (c) => (stderr += c));
      child.stdin.on('error', () => {}); // EPIPE once medchat stops reading
      const chunk = Buffer.alloc(1024 * 1024, 'a');
      let sent = 0;
      const pump = () => {
        while (sent < 50 && !child.stdin.destroyed) {
          sent++;
          if (!child.stdin.write(chunk)) return void child.stdin.once('drain', pump);
        }
        child.stdin.end();
      };
      pump();
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error('a 50 MB stdin was not refused within 10 s'));
      }, 10_000);
      child.on('close', (code) => {
        clearTimeout(timer);
        resolve({ code, stderr });
      });
    });
    const ms = Date.now() - start;
    assert.equal(r.code, 2, r.stderr);
    oneLine(r.stderr, /^medchat: stdin is larger than 2 MB, more than the model's context window can hold; send a smaller part of it/);
    assert.equal(r.stderr.trim().split('\n').length, 1, 'only that line');
    assert.ok(ms < 2000, `refused in ${ms} ms`);
    const maxRssMb = Number(fs.readFileSync(rssFile, 'utf8')) / 1024;
    assert.ok(maxRssMb < 150, `peak memory ${maxRssMb.toFixed(0)} MB`);
    assert.deepEqual(sessionFiles(h), [], 'no session written');
    assert.equal(double.chat.requests.filter((q) => String(q.body?.messages?.at(-1)?.content ?? '').startsWith('aaaa')).length, 0, 'nothing sent');
  });
});
