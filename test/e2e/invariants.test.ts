// The property-style fault harness: a hostile server mutates answers at random —
// TCP split points, SSE and HTTP framing, cuts, RSTs, stalls, answers left open, error objects,
// HTTP errors, echoed keys, escape sequences, finish_reason variants — and every run must hold
// the invariants in test/support/invariants.ts. Hundreds of cases run in-process (the real
// one-shot code and HTTP path, no mocks), a smaller sample through the built binary, and a few
// on a pseudo-terminal.
//
// Replay a failure: MEDCHAT_SEED=<seed> [MEDCHAT_FAULT_ONLY=<case>] node test/run.mjs e2e/invariants
// (with MEDCHAT_FAULT_ONLY the case is printed first: the answer, the allowed exit codes, every write)
// More cases: MEDCHAT_FAULT_CASES=<n> (in-process), MEDCHAT_FAULT_BINARY_CASES=<n>, MEDCHAT_FAULT_PTY_CASES=<n>;
// MEDCHAT_FAULT_SHOW=<n> lists more broken cases per invariant.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { tempHome } from '../support/cli.js';
import { generateCase, type FaultCase } from '../support/fault-cases.js';
import { hasScript, runBinary, runInProcess, runOnPty } from '../support/fault-runner.js';
import { startHostileServer, type HostileServer } from '../support/hostile-server.js';
import { INVARIANTS, checkOutcome, type Outcome, type Violation } from '../support/invariants.js';
import { Prng, countFromEnv, seedFromEnv } from '../support/prng.js';

const SEED = seedFromEnv();
const ONLY = process.env.MEDCHAT_FAULT_ONLY?.trim() ? Number(process.env.MEDCHAT_FAULT_ONLY) : undefined;
const IN_PROCESS = countFromEnv('MEDCHAT_FAULT_CASES', 300);
const BINARY = countFromEnv('MEDCHAT_FAULT_BINARY_CASES', 30);
const PTY = hasScript ? countFromEnv('MEDCHAT_FAULT_PTY_CASES', 8) : 0;
/** Binary and pty cases are numbered after these, so each index names one case of the seed. */
/** How many broken cases each failing invariant lists (MEDCHAT_FAULT_SHOW). */
const SHOW = countFromEnv('MEDCHAT_FAULT_SHOW', 8);
/** The binary's --idle-timeout: its start-up (up to a second on a busy machine) must fit inside it for the left-open check. */
const BINARY_IDLE_S = 3;
const BINARY_BASE = 100_000;
const PTY_BASE = 200_000;

interface Failure {
  c: FaultCase;
  mode: string;
  v: Violation;
}

/** With MEDCHAT_FAULT_ONLY: print the case — what the service sent, write by write — before running it. */
function dump(c: FaultCase): void {
  if (ONLY === undefined) return;
  const { plans, ...rest } = c;
  console.log(`# case ${c.index}: ${JSON.stringify(rest, null, 1)}`);
  plans.forEach((p, i) => console.log(`# request ${i + 1} (then ${p.end}):\n${p.writes.map((w) => `#   ${JSON.stringify(w.toString('latin1'))}`).join('\n')}`));
}

const replay = (c: FaultCase) => `MEDCHAT_SEED=${SEED} MEDCHAT_FAULT_ONLY=${c.index}`;

function indices(base: number, n: number): number[] {
  if (ONLY !== undefined) return ONLY >= base && ONLY < base + 100_000 ? [ONLY] : [];
  return Array.from({ length: n }, (_, i) => base + i);
}

/** Run `work` over `items`, `limit` at a time. */
async function pool<T>(items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
}

/** One assertion per invariant, listing the broken cases with how to replay them. */
function assertInvariant(failures: Failure[], key: keyof typeof INVARIANTS): void {
  const broken = failures.filter((f) => f.v.invariant === key);
  if (broken.length === 0) return;
  const lines = broken.slice(0, SHOW).map((f) => `  #${f.c.index} ${f.mode} [${f.c.label}${f.c.tty ? ' tty' : ''}${f.c.stream ? '' : ' --no-stream'}]: ${f.v.detail}\n    replay: ${replay(f.c)}`);
  assert.fail(`${INVARIANTS[key]}: ${broken.length} violation(s), seed ${SEED}\n${lines.join('\n')}${broken.length > SHOW ? `\n  … and ${broken.length - SHOW} more` : ''}`);
}

describe(`fault harness (seed ${SEED})`, () => {
  let server: HostileServer;
  const failures: Failure[] = [];
  const counts = { inProcess: 0, binary: 0, pty: 0 };
  const homes: string[] = [];
  const home = () => {
    const h = tempHome();
    homes.push(h);
    return h;
  };
  const run = new Prng(SEED);

  before(async () => {
    server = await startHostileServer();
    process.setMaxListeners(0); // each in-process run listens for SIGINT/SIGTERM/SIGHUP while it lasts
    process.env.NO_COLOR = '1';

    await pool(indices(0, IN_PROCESS), 12, async (i) => {
      const c = generateCase(run, i);
      dump(c);
      const base = server.addCase(`p${i}`, c.plans);
      // An answer left open after [DONE] must end without waiting for the idle timeout: give those cases a longer
      // one (6 s), so the check tells waiting from a loaded machine (1 s: a run under load took 1.1-1.4 s).
      const idleS = c.doneLeftOpen ? 6 : 1;
      const o = await runInProcess(c, base, home(), idleS, 15_000);
      counts.inProcess++;
      for (const v of checkOutcome(c, o, { idleMs: idleS * 1000, slackMs: 2000 })) failures.push({ c, mode: 'in-process', v });
    });
    await pool(indices(BINARY_BASE, BINARY), 4, async (i) => {
      const c = { ...generateCase(run, i), tty: false };
      dump(c);
      const base = server.addCase(`b${i}`, c.plans);
      const o = await runBinary(c, base, home(), BINARY_IDLE_S, i % 3 === 0);
      counts.binary++;
      for (const v of checkOutcome(c, o, { idleMs: BINARY_IDLE_S * 1000, slackMs: 2500 })) failures.push({ c, mode: 'binary', v });
    });
    await pool(indices(PTY_BASE, PTY), 4, async (i) => {
      const c = { ...generateCase(run, i), tty: true };
      dump(c);
      const base = server.addCase(`t${i}`, c.plans);
      const o = await runOnPty(c, base, home(), BINARY_IDLE_S);
      counts.pty++;
      for (const v of checkOutcome(c, o, { idleMs: BINARY_IDLE_S * 1000, slackMs: 2500 })) failures.push({ c, mode: 'pty', v });
    });
    const line = `# fault cases: ${counts.inProcess} in-process, ${counts.binary} binary, ${counts.pty} on a pty, seed ${SEED}; ${failures.length} violation(s)`;
    console.log(line);
  });

  after(async () => {
    await server?.close();
    for (const h of homes) fs.rmSync(h, { recursive: true, force: true, maxRetries: 5 });
  });

  for (const key of Object.keys(INVARIANTS) as Array<keyof typeof INVARIANTS>) {
    test(INVARIANTS[key], () => assertInvariant(failures, key));
  }

  test('the harness ran its cases', () => {
    if (ONLY === undefined) assert.equal(counts.inProcess + counts.binary + counts.pty, IN_PROCESS + BINARY + PTY);
  });
});

describe('the invariant checks catch what they are for', () => {
  const c: FaultCase = {
    index: -1,
    label: 'synthetic',
    plans: [],
    stream: true,
    content: 'Sixty to one hundred «sk-test-SECRETKEY-a1b2» beats.',
    delivered: 'Sixty to ',
    deliveredSure: true,
    hasSecret: true,
    codes: [0],
    waits: false,
    doneLeftOpen: false,
    tty: false,
    reasoningShown: false,
  };
  const good: Outcome = {
    code: 0,
    stdout: Buffer.from('Sixty to one hundred «sk-…a1b2» beats.'),
    stderr: '',
    elapsedMs: 10,
    files: [],
    turn: { answer: 'Sixty to one hundred «sk-…a1b2» beats.', status: 'complete' },
    exports: [],
    tty: false,
  };
  const kinds = (o: Partial<Outcome>, cc: Partial<FaultCase> = {}) => checkOutcome({ ...c, ...cc }, { ...good, ...o }, { idleMs: 1000, slackMs: 2000 }).map((v) => v.invariant);

  test('a good run passes', () => assert.deepEqual(kinds({}), []));
  test('the key, whole, lower-cased or %-encoded', () => {
    assert.deepEqual(kinds({ stderr: 'medchat: warning: key sk-test-secretkey was refused\n' }), ['key']);
    assert.deepEqual(kinds({ files: [{ path: 's.json', text: 'SECRET%4BEY-a1b2' }] }), ['key']);
  });
  test('a stack trace, two outcome lines, an error line on success', () => {
    assert.ok(kinds({ code: 1, stderr: 'TypeError: x is not a function\n    at run (file:///x.js:1:2)\nmedchat: failed\n' }, { codes: [1] }).includes('stderr'));
    assert.ok(kinds({ code: 1, stderr: 'medchat: one\nmedchat: two\n' }, { codes: [1] }).includes('stderr'));
    assert.deepEqual(kinds({ stderr: 'medchat: something failed\n' }), ['stderr']);
  });
  test('stdout that is not a prefix, or short of what arrived, or a lost session turn', () => {
    assert.ok(kinds({ stdout: Buffer.from('Sixty to two') }).includes('prefix'));
    assert.ok(kinds({ code: 4, stdout: Buffer.from('Six') }, { codes: [4] }).includes('lost'));
    assert.ok(kinds({ turn: { answer: 'Sixty', status: 'complete' } }).includes('session'));
    assert.ok(kinds({ turn: { answer: good.turn!.answer, status: 'incomplete' } }).includes('session'));
  });
  test('a control on a terminal', () => {
    assert.deepEqual(kinds({ tty: true, stdout: Buffer.from('Sixty to one hundred beats \x1b]52;c;eA==\x07') }), ['terminal']);
    assert.deepEqual(kinds({ tty: true, stdout: Buffer.from('Sixty to one hundred beats \u202e') }), ['terminal']);
    assert.deepEqual(kinds({ tty: true, stdout: Buffer.from('Sixty to one hundred beats \u009b31m') }), ['terminal']);
  });
});
