// `medchat -c` in a real terminal (tmux): the chat screen reopens the last conversation, shows
// its turns, sends them as context, and keeps saving into the same session.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { startServiceDouble, type ServiceDouble } from '../../src/stand-in/index.js';
import { TEST_KEY, runCli, tempHome } from '../support/cli.js';
import { TmuxPane, tmuxSkip } from '../support/tmux.js';

let double: ServiceDouble;
before(async () => {
  double = await startServiceDouble();
});
after(() => double.close());

test('medchat -c reopens the last conversation in the chat screen and goes on with it', { skip: tmuxSkip }, async () => {
  const home = tempHome();
  double.chat.enqueue({ reasoning: ['Think of asthma.'], content: ['Use the blue inhaler, then see a doctor.'] });
  const first = await runCli(['--no-think', 'wheezing at night, what now?'], { baseUrl: double.url, home });
  assert.equal(first.code, 0, first.stderr);

  const pane = new TmuxPane(['-c', '--no-think'], { MEDCHAT_BASE_URL: double.url, MEDCHAT_API_KEY: TEST_KEY }, { home });
  try {
    await pane.ready();
    const s = pane.screen();
    assert.match(s, /resumed session \d{8}-\d{6}-[0-9a-f]{4} · wheezing at night, what now\? · 1 question/);
    assert.match(s, /› wheezing at night, what now\?[\s\S]*Use the blue inhaler, then see a doctor\./);

    double.chat.enqueue({ reasoning: [], content: ['Yes, keep a diary of the nights it happens.'] });
    await pane.send('anything else?');
    await pane.waitForText('keep a diary');
    const body = double.chat.requests.at(-1)!.body as { messages: Array<{ role: string; content: string }> };
    assert.deepEqual(
      body.messages.map((m) => m.content),
      ['wheezing at night, what now?', 'Use the blue inhaler, then see a doctor.', 'anything else?'],
    );

    pane.press('C-d');
    const end = await pane.exited();
    assert.equal(end.code, 0, pane.screen());
    const dir = path.join(home, 'data', 'sessions');
    const files = fs.readdirSync(dir);
    assert.equal(files.length, 1, 'the same session, not a new one');
    const saved = JSON.parse(fs.readFileSync(path.join(dir, files[0]!), 'utf8'));
    assert.deepEqual(
      saved.turns.map((t: { user: string; status: string }) => [t.user, t.status]),
      [
        ['wheezing at night, what now?', 'complete'],
        ['anything else?', 'complete'],
      ],
    );
  } finally {
    pane.kill();
  }
});
