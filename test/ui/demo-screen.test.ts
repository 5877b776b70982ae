// `medchat demo` opens the chat screen with demo: true. Header and footer say so, so a screenshot
// cannot pass for real output; the welcome line points at /retexture demo.png.
import assert from 'node:assert/strict';
import { afterEach, test } from 'node:test';
import { cleanup } from 'ink-testing-library';
import { startDemoService } from '../../src/demo/demo-service.js';
import { DEMO_MODEL } from '../../src/cli/commands/demo-run.js';
import { renderChat } from '../support/tui.js';

afterEach(() => cleanup());

test('the demo chat screen says DEMO in the header and the footer, and offers /retexture demo.png', async () => {
  const service = await startDemoService({ paceMs: 0, firstContentDelayMs: 0 });
  try {
    const t = await renderChat(service.url, { demo: true, incognito: true, settings: { model: DEMO_MODEL } });
    await t.waitForText('medchat 0.0.0-test · DEMO · medchat-demo');
    assert.match(t.screen(), /\/retexture demo\.png/);
    assert.match(t.screen().split('\n').at(-1)!, /^  demo  .*\/ 128k/);
    await t.send('vital signs');
    await t.idle();
    assert.match(t.screen(), /Demo reply/);
    assert.match(t.screen().split('\n').at(-1)!, /^  demo /, 'the badge stays after an answer');
  } finally {
    await service.close();
  }
});

test('outside the demo there is no demo label', async () => {
  const service = await startDemoService({ paceMs: 0, firstContentDelayMs: 0 });
  try {
    const t = await renderChat(service.url);
    await t.waitForText('Enter send');
    assert.doesNotMatch(t.screen(), /DEMO|^  demo /m);
  } finally {
    await service.close();
  }
});
