import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startServiceDouble, type ServiceDouble } from '../../src/stand-in/index.js';
import type { RecordedRequest } from '../../src/stand-in/server.js';
import { runCli, tempHome } from '../support/cli.js';
import { forgedQuestion } from '../support/forgeries.js';
import { restoredProblems } from '../support/invariants.js';
import { Prng, seedFromEnv } from '../support/prng.js';

const SEED = seedFromEnv();

/**
 * Redact mode through the real binary: placeholder-looking text the user typed is never put back
 * as the patient (issue 21, item 1). The double echoes the question it received, placeholders
 * and all, a few characters at a time.
 */
let double: ServiceDouble;
before(async () => {
  double = await startServiceDouble();
});
after(() => double.close());

const echo = (req: RecordedRequest) => {
  const messages = req.body.messages as Array<{ content: string }>;
  return ['Received: ', ...messages.at(-1)!.content.match(/[\s\S]{1,3}/g)!];
};

for (const forged of ['[NAME 1]', 'NAME-1', '[name-1]']) {
  test(`one-shot redact: "${forged}" typed by the user stays as typed; only medchat's own placeholder is put back`, async () => {
    const typed = `Patient: John Smith. His neighbour ${forged} called the ambulance.`;
    double.chat.enqueue({ content: echo });
    const r = await runCli(['--privacy', 'redact', typed], { baseUrl: double.url });
    assert.equal(r.code, 0, r.stderr);
    assert.ok(!double.chat.requests.at(-1)!.rawBody.includes('John Smith'), 'the name was sent');
    assert.equal(r.stdout, `Received: ${typed}`);
    assert.doesNotMatch(r.stdout, /neighbour John Smith/);
  });
}

test('one-shot redact: [NAME-999999] in the text does not push the patient\'s placeholder out of reach', async () => {
  const typed = 'Patient: John Smith. Compare [NAME-999999] in the old letter.';
  double.chat.enqueue({ content: echo });
  const r = await runCli(['--privacy', 'redact', typed], { baseUrl: double.url });
  assert.equal(r.code, 0, r.stderr);
  const sent = double.chat.requests.at(-1)!.body.messages.at(-1).content as string;
  assert.match(sent, /^Patient: \[NAME-1\]\./);
  assert.equal(r.stdout, `Received: ${typed}`);
  assert.match(r.stderr, /put back in the answer: \[NAME-1\] → John Smith/);
});

/**
 * Generated (seeded): placeholder-like text in every path a question takes in redact mode: the
 * argument, -f FILE, stdin, a batch line, a -c continuation (the earlier turn resent) and --schema.
 * The double echoes every user message it got, in seeded small pieces (a placeholder split across
 * chunks); the answer shown in redact mode must be what the same command shows with --privacy off
 * (the message as composed, as typed): only medchat's own placeholders were put back, where they
 * stood. And the patient's name never reaches the service.
 */
describe(`generated: every path a question takes (seed ${SEED})`, { concurrency: 2 }, () => {
  const root = new Prng(SEED);
  const counts: Record<string, number> = {};
  let forged = 0;
  after(() => console.log(`# privacy-forgery paths: seed ${SEED} (replay with MEDCHAT_SEED=${SEED}); cases ${JSON.stringify(counts)}; ${forged} placeholder-like texts`));

  /** The double's answer: every user message, joined, in pieces of 1 to 6 characters. */
  const echoAll = (p: Prng, wrap: (s: string) => string) => (req: RecordedRequest) => {
    const text = wrap((req.body.messages as Array<{ role: string; content: string }>).filter((m) => m.role === 'user').map((m) => m.content).join('\n§\n'));
    const pieces: string[] = [];
    for (let i = 0; i < text.length; ) {
      const n = p.int(1, 6);
      pieces.push(text.slice(i, i + n));
      i += n;
    }
    return pieces;
  };

  type Path = { name: string; run: (mode: 'redact' | 'off', q: () => ReturnType<typeof forgedQuestion>, home: string, d: ServiceDouble, shared: string) => Promise<string> };
  const asked = async (args: string[], home: string, d: ServiceDouble, opts: { stdin?: string } = {}) => {
    const r = await runCli(args, { baseUrl: d.url, home, stdin: opts.stdin, env: { NO_COLOR: '1' } });
    assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  };
  const PATHS: Path[] = [
    { name: 'argument', run: (mode, q, home, d) => asked(['--privacy', mode, q().text], home, d) },
    {
      name: '-f FILE',
      run: (mode, q, home, d, shared) => {
        const note = path.join(shared, 'note.txt');
        fs.writeFileSync(note, q().text + '\n');
        return asked(['--privacy', mode, '-f', note, q().text], home, d);
      },
    },
    { name: 'stdin', run: (mode, q, home, d) => asked(['--privacy', mode, q().text], home, d, { stdin: q().text + '\n' }) },
    {
      name: 'batch line',
      run: async (mode, q, home, d) => {
        const input = path.join(home, 'q.jsonl');
        fs.writeFileSync(input, [1, 2].map((id) => JSON.stringify({ id, prompt: q().text })).join('\n') + '\n');
        const out = await asked(['batch', input, '-j', '1', '--privacy', mode], home, d);
        return out.trimEnd().split('\n').map((l) => (JSON.parse(l) as { content: string }).content).join('\n');
      },
    },
    {
      name: '-c',
      run: async (mode, q, home, d) => {
        await asked(['--privacy', mode, q().text], home, d);
        return asked(['--privacy', mode, '-c', q().text], home, d);
      },
    },
    {
      name: '--schema',
      run: async (mode, q, home, d) => {
        const out = await asked(['--privacy', mode, '--schema', 'name', q().text], home, d);
        return (JSON.parse(out) as { name: string }).name;
      },
    },
  ];

  PATHS.forEach((route, r) => {
    for (let i = 0, n = root.fork(r).int(2, 3); i < n; i++) {
      const c = root.fork(r).fork(i);
      test(`${route.name}, case ${i + 1}: the answer shows what was typed, forgeries and all; the name is never sent`, async () => {
        counts[route.name] = (counts[route.name] ?? 0) + 1;
        const shown: Record<string, string> = {};
        const shared = tempHome(); // files both modes read, at the same path
        for (const mode of ['redact', 'off'] as const) {
          // The same questions and the same pieces in both modes.
          const qp = c.fork(1);
          const ep = c.fork(2);
          const d = await startServiceDouble();
          try {
            d.chat.defaultScript = { content: echoAll(ep, route.name === '--schema' ? (s) => JSON.stringify({ name: s }) : (s) => s) };
            const questions = () => {
              const q = forgedQuestion(qp);
              if (mode === 'redact') forged += q.forged.length;
              return q;
            };
            shown[mode] = await route.run(mode, questions, tempHome(), d, shared);
            if (mode === 'redact') for (const req of d.chat.requests) assert.ok(!req.rawBody.includes('John Smith'), `the name was sent (seed ${SEED})`);
          } finally {
            await d.close();
          }
        }
        assert.ok(shown.off!.includes('John Smith'), 'the echo holds the question');
        assert.deepEqual(restoredProblems(shown.redact!, shown.off!, `${route.name} in redact mode`), [], `seed ${SEED}`);
      });
    }
  });
});
