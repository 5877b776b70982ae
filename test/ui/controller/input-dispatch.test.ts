import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AfterAnswer } from '../../../src/ui/controller/after-answer.js';
import { InputDispatch, type DispatchHost } from '../../../src/ui/controller/input-dispatch.js';
import type { ChatCommandHost, SlashCommand } from '../../../src/ui/slash/types.js';

// What Enter does, alone (no screen, no service): run, ask, or queue behind a streaming answer.

function setup() {
  const log: string[] = [];
  const state = { streaming: false, working: false, leaving: false };
  const cmd = (name: string, extra: Partial<SlashCommand> = {}): SlashCommand => ({ name, help: name, run: (_chat, args) => void log.push(`run /${name}${args ? ` ${args}` : ''}`), ...extra });
  const commands = [cmd('tokens'), cmd('new', { whileStreaming: true }), cmd('exit', { whileStreaming: true }), cmd('compact', { idleOnly: true })];
  const history: string[] = [];
  const host: DispatchHost = {
    commands,
    history: { add: (l) => history.push(l) },
    streaming: () => state.streaming,
    working: () => state.working,
    leaving: () => state.leaving,
    ask: (text) => {
      log.push(`ask ${text}`);
      state.streaming = true;
    },
    notice: (text, tone = 'info') => log.push(`${tone}: ${text}`),
    changed: () => {},
    commandHost: {} as ChatCommandHost,
  };
  const after = new AfterAnswer();
  return { input: new InputDispatch(host, after), after, log, state, history };
}

const tick = () => new Promise((r) => setImmediate(r));

test('idle: a question is asked, a command run; both go into the prompt history; a blank line does nothing', async () => {
  const { input, log, history } = setup();
  assert.equal(input.submit('   '), false);
  assert.equal(input.submit('/tokens'), true);
  await tick();
  assert.equal(input.submit('fever?'), true);
  assert.deepEqual(log, ['run /tokens', 'ask fever?']);
  assert.deepEqual(history, ['/tokens', 'fever?']);
});

test('while an answer streams: questions and commands queue in order; /new and /exit act at once; then they go one by one', async () => {
  const { input, after, log, state } = setup();
  state.streaming = true;
  input.submit('/tokens');
  input.submit('and children?');
  input.submit('/compact');
  input.submit('/new');
  await tick();
  assert.deepEqual(log, ['run /new']);
  assert.deepEqual(after.view()?.queued, [
    { text: '/tokens', command: true },
    { text: 'and children?', command: false },
    { text: '/compact', command: true },
  ]);
  state.streaming = false;
  input.drain();
  await tick();
  await tick();
  // /tokens ran, then the question was asked (streaming again): /compact waits for that answer.
  assert.deepEqual(log, ['run /new', 'run /tokens', 'ask and children?']);
  state.streaming = false;
  input.drain();
  await tick();
  assert.deepEqual(log.at(-1), 'run /compact');
  assert.equal(after.view(), undefined);
});

test('Esc takes back the last queued line; a dropped queue is said, with how to get it back', () => {
  const { input, after, log, state } = setup();
  state.streaming = true;
  input.submit('first');
  input.submit('second');
  assert.deepEqual(input.cancelLast(), { text: 'second', command: false });
  assert.deepEqual(after.view()?.queued.map((l) => l.text), ['first']);
  input.dropQueued('not sent');
  assert.deepEqual(log, ['warn: not sent: "first"; Up recalls it']);
  assert.equal(input.cancelLast(), undefined, 'nothing queued');
});

test('while a job runs: a question is refused (the draft stays); a command that needs the screen too', async () => {
  const { input, log, state } = setup();
  state.working = true;
  assert.equal(input.submit('fever?'), false);
  input.submit('/compact');
  input.submit('/tokens');
  await tick();
  assert.deepEqual(log, [
    'warn: still working on the last command: wait for it, or press Esc to stop it',
    'warn: /compact waits until the current command has finished (Esc stops it)',
    'run /tokens',
  ]);
});

test('leaving: nothing queued starts', () => {
  const { input, log, state } = setup();
  state.streaming = true;
  input.submit('later');
  state.streaming = false;
  state.leaving = true;
  input.drain();
  assert.deepEqual(log, []);
});
