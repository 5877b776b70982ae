// The footer meter and /tokens count the next request, last answer included.
import assert from 'node:assert/strict';
import { after, afterEach, before, test } from 'node:test';
import { cleanup } from 'ink-testing-library';
import { countMessages, countText, loadTokenizer } from '../../src/core/context/tokens.js';
import { startServiceDouble, type ServiceDouble } from '../../src/stand-in/index.js';
import { meterText } from '../../src/ui/text/format.js';
import { WAIT_MS, waitFor } from '../support/cli.js';
import { renderChat, sentMessages } from '../support/tui.js';

// The double counts prompt tokens the way o200k does, so its reported usage and the meter share one count.
let double: ServiceDouble;
before(async () => {
  await loadTokenizer();
  double = await startServiceDouble({ countTokens: (messages) => countMessages(messages.map((m) => ({ role: m.role as 'user', content: m.content }))) });
});
after(() => double.close());
afterEach(() => cleanup());

type Message = { role: string; content: string };

/** About 20,000 tokens of visit notes. */
const answer = (n: number) => Array.from({ length: 3000 }, (_, i) => `Day ${n}.${i} bp`).join(' ');

test('after three 20k-token answers the meter reads the next request (85%, yellow) before the conversation is summarised', async () => {
  // The report's numbers: a 75k window, 5,000 tokens reserved for the answer; summarised past 80% of the rest.
  const window = 76_800;
  const maxTokens = 5_000;
  const t = await renderChat(double.url, { settings: { thinking: false, contextWindow: window, maxTokens, compressAt: 0.8 } });
  await t.controller.loadTokenizer();
  assert.equal(countText(answer(1)), 20_000);
  for (let n = 1; n <= 3; n++) {
    double.chat.enqueue({ content: [answer(n)] });
    await t.send(`visit ${n}?`);
    await t.idle();
  }
  // /tokens counts all three answers among the kept turns.
  await t.send('/tokens');
  await t.waitForText(/kept turns +\d/);
  assert.match(t.screen().split('\n').find((l) => l.includes('kept turns')) ?? '', /kept turns +60(\.\d)?k +\(3 turns word for word\)/);
  t.type('visit 4?');
  await waitFor(() => t.controller.tokenBreakdown().next > 0, WAIT_MS, 'the draft to be counted');
  // What the next request will be: everything sent last time, the third answer, and the draft.
  const next: Message[] = [...sentMessages(double, -1), { role: 'assistant', content: answer(3) }, { role: 'user', content: 'visit 4?' }];
  const expected = meterText({ used: countMessages(next as never) + maxTokens, window });
  assert.match(expected.text, /· 85%$/, expected.text);
  await t.waitForText(expected.text);
  assert.equal(meterText(t.controller.snapshot().meter).level, 'warn', 'yellow: summarising is near');
  double.chat.defaultScript = { content: (req) => (req.body?.stream === false ? ['Summary: three visits, blood pressure logged daily.'] : ['ok']) };
  try {
    t.press('\r');
    await t.waitForText(/Summarised \d+ earlier messages/, 10_000);
  } finally {
    double.chat.defaultScript = {};
  }
});
