import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startServiceDouble, type ServiceDouble } from '../../src/stand-in/index.js';
import type { RecordedRequest } from '../../src/stand-in/server.js';
import { runCli } from '../support/cli.js';

/** Names written in passing (issue 23), through the real binary and the service double. */
let double: ServiceDouble;
before(async () => {
  double = await startServiceDouble();
});
after(() => double.close());

const NOTE = "Spoke to Tom this morning; Addison's disease, on hydrocortisone. Gastro (Rajesh) prefers to scope Thursday.";
const echo = (req: RecordedRequest) => ['Received: ', (req.body.messages as Array<{ content: string }>).at(-1)!.content];

test('privacy check finds the names said in passing and leaves the eponym alone', async () => {
  const r = await runCli(['privacy', 'check'], { stdin: NOTE });
  assert.equal(r.code, 11);
  assert.equal(r.stdout, ['1:10     NAME    Tom', '1:74     NAME    Rajesh', ''].join('\n'));
});

test('one-shot --privacy redact: "Tom" and "Rajesh" never reach the service, "Addison\'s disease" does, and the answer has them back', async () => {
  double.chat.enqueue({ content: echo });
  const r = await runCli(['--privacy', 'redact', NOTE], { baseUrl: double.url });
  assert.equal(r.code, 0, r.stderr);
  const sent = double.chat.requests.at(-1)!.rawBody;
  assert.ok(!sent.includes('Tom') && !sent.includes('Rajesh'), sent);
  assert.ok(sent.includes("Addison's disease"), sent);
  assert.match(sent, /Spoke to \[NAME-1\] this morning/);
  assert.equal(r.stdout, `Received: ${NOTE}`);
});
