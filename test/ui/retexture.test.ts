// /retexture in the chat screen against the real double: progress on one live line,
// then the URL and a preview in coloured blocks; Esc stops waiting; failures are one message.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, afterEach, before, test } from 'node:test';
import { cleanup } from 'ink-testing-library';
import { samplePng } from '../../src/demo/demo-retexture.js';
import { startServiceDouble, type ServiceDouble } from '../../src/stand-in/index.js';
import { WAIT_MS, waitFor } from '../support/cli.js';
import { renderChat } from '../support/tui.js';
import { tempDir } from '../support/temp.js';

let double: ServiceDouble;
let image: string;
before(async () => {
  double = await startServiceDouble();
  const dir = tempDir('medchat-ui-retexture-');
  image = path.join(dir, 'scan.png');
  fs.writeFileSync(image, samplePng());
});
after(() => double.close());
afterEach(() => cleanup());

const chat = () => renderChat(double.url, { retexturePollMs: 10, settings: { thinking: false } });

test('/retexture submits, shows progress on one live line, then the URL and a block preview', async () => {
  double.retexture.enqueue({
    id: '0098765432109876543210',
    life: { steps: [{ status: 'SUBMITTED', progress: '0%' }, { status: 'IN_PROGRESS', progress: '45%' }, { status: 'IN_PROGRESS', progress: '80%' }] },
  });
  const t = await chat();
  const labels = new Set<string>();
  t.controller.subscribe(() => {
    const job = t.controller.snapshot().job;
    if (job) labels.add(job.label);
  });
  await t.send(`/retexture ${image} make it a watercolour`);
  await t.waitForText(/http:\/\/127\.0\.0\.1:\d+\/mj\/image\/0098765432109876543210\.png/);
  const s = t.screen();
  assert.match(s, /✓ retexture done · task 0098765432109876543210/, 'the id is kept digit for digit');
  assert.match(s, /▀{8,}/, 'a preview drawn in blocks');
  assert.ok([...labels].some((l) => /in progress 45%/.test(l)), `progress was shown: ${[...labels].join(' | ')}`);
  // Progress lived in one updated line: the printed transcript has no line per poll.
  assert.doesNotMatch(s, /in progress 45%|in progress 80%/);
  assert.equal(t.controller.busy, false);
  const submit = double.retexture.submits.at(-1)!;
  assert.equal(submit.body.prompt, 'make it a watercolour');
  assert.match(String(submit.body.image), /^data:image\/png;base64,/);
  // The chat goes on afterwards.
  double.chat.enqueue({ content: ['Nice.'] });
  await t.send('thanks');
  await t.idle();
  assert.match(t.screen(), /Nice\./);
});

test('Esc stops waiting for a task that never ends; the screen says how to follow it later', async () => {
  double.retexture.enqueue({ id: '42', life: { end: 'never' } });
  const t = await chat();
  await t.send(`/retexture ${image} sepia`);
  await t.waitForText(/◆ retexture · task 42 · .*Esc stops waiting/);
  t.press('\x1b');
  await t.waitForText('stopped waiting; task 42 goes on — follow it with: medchat task 42 --wait');
  await waitFor(() => !t.controller.busy, WAIT_MS, 'the screen to be free again');
  double.chat.enqueue({ content: ['Still answering.'] });
  await t.send('hello');
  await t.idle();
  assert.match(t.screen(), /Still answering\./);
});

test('a failed task shows its reason; a rejected job its description; a missing prompt is a usage message', async () => {
  double.retexture.enqueue({ id: '7', life: { steps: [{ status: 'IN_PROGRESS', progress: '10%' }], end: 'FAILURE', failReason: 'image too dark to process' } });
  const t = await chat();
  await t.send(`/retexture ${image} brighter`);
  await t.waitForText('image too dark to process');
  double.retexture.enqueue({ code: 24, description: 'Banned prompt', properties: { bannedWord: 'gore' } });
  await t.send(`/retexture ${image} gore`);
  await t.waitForText('Banned prompt');
  await t.send(`/retexture ${image}`);
  await t.waitForText('add a prompt after the image: /retexture <image> <prompt>');
  await t.send('/retexture /no/such/file.png hello');
  await t.waitForText('/no/such/file.png');
  assert.doesNotMatch(t.screen(), /\n\s+at |TypeError/);
  assert.equal(t.controller.busy, false);
});
