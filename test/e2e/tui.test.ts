import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { startServiceDouble, type ServiceDouble } from '../../src/stand-in/index.js';
import { BIN, tempHome, waitFor } from '../support/cli.js';
import { builtSkip, hasTmux, killTmuxServer, trackTmuxServer } from '../support/tmux.js';

// The real bin/medchat.js in a real pseudo-terminal (tmux). CI installs tmux; elsewhere the test skips.
let double: ServiceDouble;
const session = `medchat-e2e-${process.pid}`;
trackTmuxServer(session);
const tmux = (...args: string[]) => execFileSync('tmux', ['-L', session, ...args], { encoding: 'utf8' });
const screen = () => tmux('capture-pane', '-p', '-t', session);

before(async () => {
  double = await startServiceDouble();
});
after(async () => {
  if (hasTmux) killTmuxServer(session);
  await double.close();
});

test('two turns in a real terminal; the second request carries user, assistant, user and no reasoning', { skip: builtSkip }, async () => {
  const home = tempHome();
  const env = [
    `MEDCHAT_BASE_URL=${double.url}`,
    'MEDCHAT_API_KEY=sk-test-e2e',
    `MEDCHAT_CONFIG_DIR=${path.join(home, 'config')}`,
    `MEDCHAT_DATA_DIR=${path.join(home, 'data')}`,
    `HOME=${home}`,
    'TERM=xterm-256color',
    'LANG=C.UTF-8',
  ];
  double.chat.enqueue(
    { reasoning: ['The user ', 'asks about fever.'], content: ['A temperature of ', '38 °C or more.'], paceMs: 5 },
    { reasoning: ['Follow-up.'], content: ['Paracetamol can help.'], paceMs: 5 },
  );
  const cmd = `env -i PATH="$PATH" ${env.join(' ')} ${process.execPath} ${BIN}; echo "medchat exited $?"; sleep 30`;
  tmux('new-session', '-d', '-s', session, '-x', '120', '-y', '40', cmd);
  await waitFor(() => screen().includes('Enter send'), 10_000, 'the chat screen');
  assert.match(screen(), /medchat \d+\.\d+\.\d+ · medical-large-latest · 127\.0\.0\.1:\d+/);
  // Thinking on/off is in the footer, which follows /think (the header is printed once).
  assert.match(screen(), /· thinking on │ Enter send/);

  tmux('send-keys', '-t', session, '-l', 'what counts as a fever?');
  tmux('send-keys', '-t', session, 'Enter');
  await waitFor(() => /38 °C or more\.[\s\S]*first token [\d.]+s/.test(screen()), 10_000, () => `the first answer\n${screen()}`);
  assert.match(screen(), /▸ Thought for [\d.]+s · 2 tokens/);

  tmux('send-keys', '-t', session, '-l', 'what helps?');
  tmux('send-keys', '-t', session, 'Enter');
  await waitFor(() => screen().includes('Paracetamol can help.'), 10_000, () => `the second answer\n${screen()}`);

  const body = double.chat.requests.at(-1)!.body as { messages: Array<Record<string, string>> };
  assert.deepEqual(body.messages, [
    { role: 'user', content: 'what counts as a fever?' },
    { role: 'assistant', content: 'A temperature of 38 °C or more.' },
    { role: 'user', content: 'what helps?' },
  ]);
  assert.doesNotMatch(JSON.stringify(body), /asks about fever|reasoning/);
  // Both answers stay on screen, each printed once.
  assert.equal(screen().split('38 °C or more.').length, 2);

  tmux('send-keys', '-t', session, 'C-d');
  await waitFor(() => screen().includes('medchat exited 0'), 10_000, () => `medchat to exit\n${screen()}`);
  const history = fs.readFileSync(path.join(home, 'data', 'prompt-history.jsonl'), 'utf8');
  assert.match(history, /what helps\?/);
});
