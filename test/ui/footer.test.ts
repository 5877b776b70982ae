// The footer and header: live figures while an answer streams, a stall sign,
// first token to the first token of anything, no old figures after Esc, and thinking on/off that
// follows /think.
import assert from 'node:assert/strict';
import { after, afterEach, before, test } from 'node:test';
import { cleanup } from 'ink-testing-library';
import { formatDuration } from '../../src/core/text/format.js';
import { startServiceDouble, type ServiceDouble } from '../support/misbehaving-service.js';
import { waitFor } from '../support/cli.js';
import { renderChat } from '../support/tui.js';

let double: ServiceDouble;
before(async () => {
  double = await startServiceDouble();
});
after(() => double.close());
afterEach(() => cleanup());

/** The footer: the screen's last non-empty line. */
const footerOf = (screen: string) => screen.trimEnd().split('\n').at(-1)!;

test("while an answer streams the footer shows its time and tokens so far, not the last answer's figures; then a stall sign", async () => {
  // An idle timeout well past the stall sign's 5 s, so the request is not given up first.
  const t = await renderChat(double.url, { settings: { thinking: false, idleTimeoutMs: 30_000 } });
  double.chat.enqueue({ content: ['Rest.'], usage: { prompt_tokens: 12, completion_tokens: 3 } });
  await t.send('cold?');
  await t.idle();
  assert.match(footerOf(t.screen()), /first token [\d.]+s · 12 in · 3 out/);
  double.chat.enqueue({ content: ['Drink ', 'water ', 'and'], stallAfter: 3 });
  await t.send('and?');
  await t.waitForText('Drink water and');
  await t.waitForText(/\d+s · 3 tokens/, 3000); // re-read every second, on the turn clock's tick
  const streaming = footerOf(t.screen());
  assert.doesNotMatch(streaming, /first token|tok\/s| in · /, `no figures of the last answer while this one streams: ${streaming}`);
  assert.match(streaming, /Esc stop/);
  // The service has gone quiet: the footer says so, and counts.
  await t.waitForText(/· 3 tokens · no data for [5-9]s/, 10_000);
  t.press('\x1b');
  await t.waitForText('■ interrupted');
  await t.idle();
  const stopped = footerOf(t.screen());
  assert.doesNotMatch(stopped, /first token|tok\/s| in · |no data/, `no old figures beside "interrupted": ${stopped}`);
  assert.match(stopped, /Enter send/);
});

test('the footer and Thinking… count the same seconds from one clock, 1s then 2s, and the tokens move as they come', async () => {
  // About 2.4 s of reasoning, paced: shorter than the 5 s the footer once waited between looks.
  const reasoning = Array.from({ length: 16 }, (_, i) => `step${i} `);
  double.chat.enqueue({ reasoning, content: ['Done.'], paceMs: 150 });
  const t = await renderChat(double.url);
  await t.send('think slowly');
  const pairs: Array<[number, number, number]> = [];
  await waitFor(
    () => {
      const s = t.screen();
      const thinking = /Thinking… (\d+)s/.exec(s);
      const footer = /(\d+)s · (\d+) tokens? │/.exec(footerOf(s));
      if (thinking && footer) pairs.push([Number(thinking[1]), Number(footer[1]), Number(footer[2])]);
      return /Thought for/.test(s);
    },
    10_000,
    () => `the reasoning to fold\n${t.screen()}`,
  );
  for (const [thinking, footer] of pairs) assert.equal(thinking, footer, `Thinking… ${thinking}s beside a footer at ${footer}s`);
  const seconds = pairs.map((p) => p[1]);
  assert.ok(seconds.includes(1) && seconds.includes(2), `1s and 2s both shown: ${[...new Set(seconds)].join(', ')}`);
  const at1 = pairs.find((p) => p[1] === 1)!;
  assert.ok(at1[2] > 0, `by 1s the footer counts the reasoning tokens streamed: ${at1[2]}`);
  await t.idle();
});

test('"first token" is the first token of anything: reasoning counts, not only the answer after it', async () => {
  // The answer starts 800 ms after the reasoning: the wait for the first answer token is longer than the one for the first token.
  double.chat.enqueue({ reasoning: ['Weigh ', 'the ', 'child.'], content: ['By weight: ', '10 mg/kg.'], firstContentDelayMs: 800, usage: { prompt_tokens: 20, completion_tokens: 5 } });
  const t = await renderChat(double.url);
  await t.send('dose for a child?');
  await t.idle();
  const last = t.controller.snapshot().last!;
  const turn = t.controller.conversation.lastTurn!;
  assert.ok(last.firstTokenMs !== undefined && turn.firstTokenMs !== undefined);
  assert.ok(last.firstTokenMs < turn.firstTokenMs, `first token ${last.firstTokenMs} ms, first answer token ${turn.firstTokenMs} ms`);
  const shown = /first token ([\d.]+s)/.exec(footerOf(t.screen()))?.[1];
  assert.equal(shown, formatDuration(last.firstTokenMs));
});

test('/think off: the footer says thinking off at once, and no line on the screen still says thinking on', async () => {
  const t = await renderChat(double.url);
  await t.waitForText('thinking on');
  assert.doesNotMatch(t.screen().split('\n')[0]!, /thinking/, 'the header, printed once, does not claim a setting that can change');
  await t.send('/think off');
  await t.waitForText('thinking off: answers start sooner');
  assert.match(footerOf(t.screen()), /· thinking off/);
  assert.doesNotMatch(t.screen(), /thinking on(?!:)/);
  await t.send('/think on');
  await t.waitForText('thinking on: answers start with reasoning');
  assert.match(footerOf(t.screen()), /· thinking on/);
});
