// The shared invariants (test/support/invariants.ts) over the newer commands, with an answer the
// service fills with what a hostile or broken service sends: escape sequences, C1 controls, bidi
// overrides, a bare CR, and the user's own API key echoed back. For -r ROLE, -f FILE, -c, --schema,
// batch (stdout), sessions export and sessions list, and privacy check of a file holding the same,
// through pipes and on a pseudo-terminal:
//   - exit 0, no stack trace, no `medchat:` error line;
//   - no run of 8 characters of the key anywhere: stdout, stderr, every file under the home;
//   - through a pipe, stdout is what the service sent (the key masked), to the byte;
//   - on a terminal, no ESC, C1, bidi control or bare CR from the service reaches it.
// Also: a temporary folder batch - cannot use is one line that says so, not an "unexpected error".
//
// Replay: MEDCHAT_SEED=<seed> node test/run.mjs e2e/invariants-newer (the seed and the case counts are printed).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { TEST_KEY, runCli, tempHome } from '../support/cli.js';
import { filesUnder, hasScript, runArgsOnPty } from '../support/fault-runner.js';
import { controlProblems, keyProblems, stackTraces, stderrProblems } from '../support/invariants.js';
import { startServiceDouble, type ServiceDouble } from '../support/misbehaving-service.js';
import { Prng, seedFromEnv } from '../support/prng.js';

const SEED = seedFromEnv();
const root = new Prng(SEED);
const counts: Record<string, number> = {};
/** Each test has a double of its own (their queued answers must not mix). */
const doubles: ServiceDouble[] = [];
after(async () => {
  console.log(`# invariants-newer: seed ${SEED} (replay with MEDCHAT_SEED=${SEED}); cases ${JSON.stringify(counts)}`);
  for (const d of doubles) await d.close();
});

/** The key as medchat shows it when a service echoes it: its first three and last four characters (keys run together: one). */
const masked = (text: string) => text.replace(new RegExp(`(?:${TEST_KEY.replace(/[-]/g, '\\-')})+`, 'g'), `${TEST_KEY.slice(0, 3)}…${TEST_KEY.slice(-4)}`);

/** What a hostile answer holds, besides words. */
const HOSTILE = ['\u001b[2J', '\u001b]0;owned\u0007', '\u001b]8;;https://evil.example\u0007link\u001b]8;;\u0007', '\u009b31m', '\u202e', '\u2066', '\r', '\u0007', '\u001bc', TEST_KEY, `key=${TEST_KEY}.`];
const WORDS = ['Take ', 'aspirin ', '75 mg ', 'daily. ', 'Check ', 'the ', 'INR. ', '\n', 'Review ', 'in ', 'two ', 'weeks. '];

/** Seeded answer text: words with hostile pieces among them, and the chunks it is sent in. */
function hostileAnswer(p: Prng): { text: string; chunks: string[] } {
  const parts: string[] = [];
  for (let i = 0, n = p.int(8, 30); i < n; i++) parts.push(p.chance(0.3) ? p.pick(HOSTILE) : p.pick(WORDS));
  parts.push(p.pick(HOSTILE), 'Done.');
  const text = parts.join('');
  const chunks: string[] = [];
  for (let i = 0; i < text.length; ) {
    const n = p.int(1, 12);
    chunks.push(text.slice(i, i + n));
    i += n;
  }
  return { text, chunks };
}

interface Command {
  name: string;
  /** Set up the home, enqueue what the service answers; returns the arguments and what stdout must be through a pipe (undefined: not checked to the byte). */
  prepare: (home: string, answer: ReturnType<typeof hostileAnswer>, double: ServiceDouble) => Promise<{ args: string[]; stdout?: string }>;
}

/** One saved conversation in `home` whose answer is `answer` (made by a real run). */
async function saved(home: string, answer: ReturnType<typeof hostileAnswer>, double: ServiceDouble): Promise<string> {
  double.chat.enqueue({ content: answer.chunks });
  const r = await runCli(['What is the usual dose of aspirin?'], { baseUrl: double.url, home });
  assert.equal(r.code, 0, r.stderr);
  return fs.readdirSync(path.join(home, 'data', 'sessions'))[0]!.replace(/\.json$/, '');
}

const COMMANDS: Command[] = [
  {
    name: '-r ROLE',
    prepare: async (home, a, double) => {
      const dir = path.join(home, 'config', 'roles');
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(path.join(dir, 'pharm.md'), '---\ndescription: a pharmacist\n---\nYou are a pharmacist.\n');
      double.chat.enqueue({ content: a.chunks });
      return { args: ['-r', 'pharm', 'Dose of aspirin?'], stdout: a.text };
    },
  },
  {
    name: '-f FILE',
    prepare: async (home, a, double) => {
      fs.writeFileSync(path.join(home, 'note.txt'), 'On warfarin. Asks about aspirin.\n');
      double.chat.enqueue({ content: a.chunks });
      return { args: ['-f', path.join(home, 'note.txt'), 'Any interaction?'], stdout: a.text };
    },
  },
  {
    name: '-c',
    prepare: async (home, a, double) => {
      await saved(home, { text: 'Fine.', chunks: ['Fine.'] }, double);
      double.chat.enqueue({ content: a.chunks });
      return { args: ['-c', 'And with warfarin?'], stdout: a.text };
    },
  },
  {
    name: '--schema',
    prepare: async (_home, a, double) => {
      // The hostile text inside a JSON string, as a model writes it (controls escaped, C1 and bidi raw).
      double.chat.enqueue({ content: [JSON.stringify({ advice: a.text })] });
      return { args: ['--schema', 'advice', 'Advice?'] };
    },
  },
  {
    name: 'batch',
    prepare: async (home, a, double) => {
      fs.writeFileSync(path.join(home, 'q.jsonl'), '{"id":1,"prompt":"Dose of aspirin?"}\n');
      double.chat.enqueue({ content: a.chunks });
      return { args: ['batch', path.join(home, 'q.jsonl')] };
    },
  },
  {
    name: 'sessions export',
    prepare: async (home, a, double) => ({ args: ['sessions', 'export', await saved(home, a, double), '--reasoning'] }),
  },
  {
    name: 'sessions list',
    prepare: async (home, a, double) => {
      // The question (the title) holds the hostile text too: typed or pasted by the user from a file.
      double.chat.enqueue({ content: a.chunks });
      const r = await runCli([`Dose? ${a.text}`], { baseUrl: double.url, home });
      assert.equal(r.code, 0, r.stderr);
      return { args: ['sessions', 'list'] };
    },
  },
  {
    name: 'privacy check',
    prepare: async (home, a, double) => {
      fs.writeFileSync(path.join(home, 'note.txt'), `Patient: John Smith ${a.text}\nMRN: 4481923 ${a.text}\n`);
      return { args: ['privacy', 'check', path.join(home, 'note.txt')] };
    },
  },
];

describe(`the newer commands hold the shared invariants (seed ${SEED})`, { concurrency: 2 }, () => {
  COMMANDS.forEach((cmd, k) => {
    for (const tty of [false, true]) {
      const c = root.fork(k * 2 + (tty ? 1 : 0));
      const answer = hostileAnswer(c);
      test(`${cmd.name} ${tty ? 'on a terminal' : 'through a pipe'}: no key, no stack trace, ${tty ? 'no control from the service reaches the terminal' : 'stdout is what the service sent'}`, { skip: tty && !hasScript && 'no script(1)' }, async () => {
        counts[`${cmd.name}${tty ? ' (tty)' : ''}`] = 1;
        const home = tempHome();
        const double = await startServiceDouble();
        doubles.push(double);
        const { args, stdout } = await cmd.prepare(home, answer, double);
        const why = `${cmd.name}, answer ${JSON.stringify(answer.text)}, seed ${SEED}`;
        const problems: string[] = [];
        let out: string;
        let err: string;
        if (tty) {
          const r = await runArgsOnPty(args, { baseUrl: double.url, home });
          out = err = r.text;
          if (r.code !== 0 && !(cmd.name === 'privacy check' && r.code === 11)) problems.push(`exit ${r.code}`);
          problems.push(...controlProblems(r.text, 'the terminal'));
          problems.push(...stackTraces(r.text));
        } else {
          const r = await runCli(args, { baseUrl: double.url, home, env: { NO_COLOR: '1' } });
          out = r.stdout;
          err = r.stderr;
          if (r.code !== 0 && !(cmd.name === 'privacy check' && r.code === 11)) problems.push(`exit ${r.code}`);
          problems.push(...stderrProblems(r.stderr, r.code ?? -1));
          if (stdout !== undefined && r.stdout !== masked(stdout)) problems.push(`stdout ${JSON.stringify(r.stdout)} is not what the service sent, key masked: ${JSON.stringify(masked(stdout))}`);
        }
        // Every file medchat wrote (its config and data folders; not the test's own input files).
        const written = filesUnder(home).filter((f) => /^(config|data)\//.test(f.path) && !f.path.endsWith('.md'));
        problems.push(...keyProblems({ stdout: out, stderr: err, ...Object.fromEntries(written.map((f) => [f.path, f.text])) }));
        assert.deepEqual(problems, [], why);
      });
    }
  });
});

test('batch - with a temporary folder it cannot use: one line that names the folder and what to do, nothing sent', async () => {
  counts['batch - TMPDIR'] = 3;
  const double = await startServiceDouble();
  doubles.push(double);
  for (const tmp of ['/nonexistent-medchat-tmp', '/dev/null', '/proc']) {
    const before = double.chat.requests.length;
    const r = await runCli(['batch', '-'], { baseUrl: double.url, stdin: '{"id":1,"prompt":"q"}\n', env: { TMPDIR: tmp } });
    const lines = r.stderr.trim().split('\n');
    assert.ok(r.code === 1 || r.code === 2, `TMPDIR=${tmp}: exit ${r.code}`);
    assert.equal(lines.length, 1, r.stderr);
    assert.doesNotMatch(r.stderr, /unexpected error/, `TMPDIR=${tmp}: a known failure, said as one: ${r.stderr}`);
    assert.ok(r.stderr.includes(tmp) && /TMPDIR/.test(r.stderr), `TMPDIR=${tmp}: names the folder and the variable to change: ${r.stderr}`);
    assert.equal(double.chat.requests.length, before, 'nothing sent');
  }
});

test('roles edit where the roles folder cannot be made (a file holds its name) or the role is a link: one line saying so, nothing written', async () => {
  counts['roles edit: unwritable'] = 2;
  const home = tempHome();
  const config = path.join(home, 'config');
  fs.mkdirSync(config, { recursive: true });
  fs.writeFileSync(path.join(config, 'roles'), 'not a folder');
  const r = await runCli(['roles', 'edit', 'triage'], { home });
  assert.ok(r.code === 1 || r.code === 2, `exit ${r.code}`);
  assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
  assert.doesNotMatch(r.stderr, /unexpected error/, `a known failure, said as one: ${r.stderr}`);
  assert.match(r.stderr, /roles/);
  assert.equal(fs.readFileSync(path.join(config, 'roles'), 'utf8'), 'not a folder');

  fs.rmSync(path.join(config, 'roles'));
  fs.mkdirSync(path.join(config, 'roles'));
  fs.symlinkSync(path.join(home, 'elsewhere.md'), path.join(config, 'roles', 'triage.md'));
  const link = await runCli(['roles', 'edit', 'triage'], { home });
  assert.equal(link.code, 2, link.stderr);
  assert.match(link.stderr, /^medchat: cannot write .*triage\.md: it is a symbolic link.*\n$/);
  assert.equal(fs.existsSync(path.join(home, 'elsewhere.md')), false, 'nothing written through the link');
});
