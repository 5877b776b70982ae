// While the service sends nothing, the screen is never frozen: the waiting line counts the
// seconds, and the idle timeout ends the wait with one line; the screen then takes a question.
import { after, afterEach, before, test } from 'node:test';
import { cleanup } from 'ink-testing-library';
import { startServiceDouble, type ServiceDouble } from '../support/misbehaving-service.js';
import { renderChat } from '../support/tui.js';

let double: ServiceDouble;
before(async () => {
  double = await startServiceDouble();
});
after(() => double.close());
afterEach(() => cleanup());

test('a silent service: "Waiting for the answer…" counts 0s, 1s, 2s, then the idle timeout says so and the next question is answered', async () => {
  double.chat.enqueue({ raw: { parts: [], end: 'stall' } }, { reasoning: [], content: ['Still here.'] });
  const t = await renderChat(double.url, { settings: { idleTimeoutMs: 3000 } });
  await t.waitForText('Enter send');
  await t.send('what is a normal heart rate?');
  for (const s of [0, 1, 2]) await t.waitForText(`Waiting for the answer… ${s}s`);
  await t.waitForText('no response from the service within 3s');
  await t.idle();
  await t.send('are you there?');
  await t.waitForText('Still here.');
});
