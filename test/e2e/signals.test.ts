// SIGINT, SIGTERM and SIGHUP during an answer, in one-shot mode and in the chat screen (a real
// pseudo-terminal through tmux): the request is closed (the double sees the connection go), what
// arrived is kept (stdout, the session file), the terminal is restored, and the exit code says
// how it ended: 130, 143, 129.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startServiceDouble, type ServiceDouble } from '../../src/stand-in/index.js';
import { TEST_KEY, runCli, tempHome, waitFor } from '../support/cli.js';
import { TmuxPane, tmuxSkip } from '../support/tmux.js';

let double: ServiceDouble;
before(async () => {
  double = await startServiceDouble();
});
after(() => double.close());

const SIGNALS = [
  { signal: 'SIGINT', code: 130 },
  { signal: 'SIGTERM', code: 143 },
  { signal: 'SIGHUP', code: 129 },
] as const;

const words = Array.from({ length: 600 }, (_, i) => `w${i} `);

function savedTurn(home: string) {
  const dir = path.join(home, 'data', 'sessions');
  const files = fs.readdirSync(dir);
  assert.deepEqual(files.filter((f) => !f.endsWith('.json')), [], 'no temp files left');
  assert.equal(files.length, 1);
  return JSON.parse(fs.readFileSync(path.join(dir, files[0]!), 'utf8')).turns.at(-1);
}

describe('one-shot', { concurrency: 3 }, () => {
  for (const { signal, code } of SIGNALS) {
    test(`${signal} mid-answer: exit ${code}, request closed, partial answer on stdout and in the session`, async () => {
      const home = tempHome();
      double.chat.enqueue({ reasoning: ['r'], content: words, paceMs: 10 });
      const index = double.chat.requests.length;
      let seen = '';
      const r = await runCli(['Explain the causes of atrial fibrillation'], {
        baseUrl: double.url,
        home,
        onSpawn: (child) => {
          child.stdout!.on('data', (c) => {
            seen += c;
            if (seen.includes('w5 ') && !child.killed) child.kill(signal);
          });
        },
      });
      assert.equal(r.code, code);
      assert.ok(r.stdout.startsWith('w0 w1 w2 w3 w4 w5 '));
      assert.ok(!r.stdout.includes('w599'), 'the answer was cut short');
      assert.equal(r.stderr.trim().split('\n').at(-1), 'medchat: interrupted; the partial answer above is kept');
      assert.doesNotMatch(r.stderr, /\n\s+at /);
      assert.ok(!r.stderr.includes(TEST_KEY));
      // Find this test's request (tests run side by side): the one for this home's question.
      const req = double.chat.requests.slice(index).find((q) => q.body?.messages?.[0]?.content === 'Explain the causes of atrial fibrillation' && !q.finished);
      assert.ok(req, 'the request reached the double');
      await req.closed;
      assert.equal(req.finished, false, 'the double saw the connection close mid-answer');
      const turn = savedTurn(home);
      assert.equal(turn.status, 'interrupted');
      assert.equal(turn.answer, r.stdout, 'the session holds exactly what was printed');
    });
  }
});

/** Start the chat screen, ask, wait for part of the answer, send `signal`; returns what the terminal showed. */
async function chatScreenSignal(signal: NodeJS.Signals, check: (pane: TmuxPane, end: Awaited<ReturnType<TmuxPane['exited']>>, question: string) => Promise<void>) {
  const pane = new TmuxPane([], { MEDCHAT_BASE_URL: double.url, MEDCHAT_API_KEY: TEST_KEY });
  try {
    await pane.ready();
    const question = `why does the heart race? (${signal} ${pane.name})`;
    double.chat.enqueue({ reasoning: ['r'], content: words, paceMs: 15 });
    await pane.send(question);
    await pane.waitForText('w5 ');
    process.kill(pane.pid(), signal);
    await check(pane, await pane.exited(), question);
  } finally {
    pane.kill();
  }
}

describe('chat screen in a real terminal (tmux)', { concurrency: 3 }, () => {
  for (const { signal, code } of SIGNALS) {
    test(`${signal} mid-answer: exit ${code}, terminal restored (cursor shown, icanon echo), request closed`, { skip: tmuxSkip }, async () => {
      await chatScreenSignal(signal, async (pane, end, question) => {
        assert.equal(end.code, code, pane.screen());
        assert.match(end.stty, /(^|\s)icanon(\s|$)/, 'canonical mode back on');
        assert.match(end.stty, /(^|\s)echo(\s|$)/, 'echo back on');
        assert.ok(end.cursorVisible, 'the cursor is shown');
        assert.doesNotMatch(pane.screen(), /\n\s+at |TypeError|node:internal/, 'no stack trace');
        const req = double.chat.requests.find((q) => q.body?.messages?.at(-1)?.content === question);
        assert.ok(req);
        await req.closed;
        assert.equal(req.finished, false, 'the request was closed mid-answer');
      });
    });
  }
  test('SIGTERM mid-answer in the chat screen: the question and the partial answer are saved, marked interrupted', { skip: tmuxSkip }, async () => {
    await chatScreenSignal('SIGTERM', async (pane, _end, question) => {
      await waitFor(() => fs.existsSync(path.join(pane.home, 'data', 'sessions')), 2000, 'a session folder');
      const turn = savedTurn(pane.home);
      assert.equal(turn.user, question);
      assert.ok(turn.answer.startsWith('w0 w1 w2 w3 w4 w5 '), 'the partial answer is saved');
      assert.ok(!turn.answer.includes('w599'));
      assert.equal(turn.status, 'interrupted');
    });
  });
});
