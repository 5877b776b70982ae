import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startServiceDouble, type ServiceDouble } from '../../src/stand-in/index.js';
import type { RecordedRequest } from '../../src/stand-in/server.js';
import { runCli } from '../support/cli.js';

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
