import assert from 'node:assert/strict';
import { after, afterEach, before, test } from 'node:test';
import { cleanup } from 'ink-testing-library';
import { startServiceDouble, type ServiceDouble } from '../../src/stand-in/index.js';
import { renderChat } from '../support/tui.js';

let double: ServiceDouble;
before(async () => {
  double = await startServiceDouble();
});
after(() => double.close());
afterEach(() => cleanup());

/** The header as the transcript viewer shows it (the printed one is never reprinted). */
const header = (t: { controller: { snapshot(): { items: readonly unknown[] } } }) => {
  const h = t.controller.snapshot().items[0] as { kind: string; thinking: boolean; role?: string };
  return `thinking ${h.thinking ? 'on' : 'off'}${h.role ? ` · role ${h.role}` : ''}`;
};
/** The footer: the screen's last line. */
const footer = (t: { screen(): string }) => t.screen().trimEnd().split('\n').at(-1)!;
const lastBody = () => double.chat.requests.at(-1)!.body as { messages: Array<{ role: string; content: string }>; max_tokens: number; enable_thinking: boolean };

test('/role lists the roles; /role soap puts it in the header and its prompt and settings in the next request', async () => {
  const t = await renderChat(double.url, { system: 'Answer in German.', settings: { thinking: true, maxTokens: 8192 } });
  await t.send('/role');
  await t.waitForText(/Roles:[\s\S]*soap\s+Clinical notes into a SOAP note[\s\S]*interactions/);
  await t.send('/role soap');
  await t.waitForText('role soap: Clinical notes into a SOAP note');
  assert.match(t.screen(), /^╭─ role soap ─+╮$/m, 'the input box names the role');
  assert.deepEqual(t.writes, [], 'nothing cleared or reprinted');
  assert.equal(header(t), 'thinking off · role soap');
  double.chat.enqueue({ content: ['## Subjective'] });
  await t.send('cough 3 days');
  await t.idle();
  const body = lastBody();
  assert.match(body.messages[0]!.content, /^You are a clinical documentation assistant[\s\S]*\n\nAnswer in German\.$/);
  assert.deepEqual([body.max_tokens, body.enable_thinking], [4096, false]);

  await t.send('/role off');
  await t.waitForText('role soap off');
  assert.equal(header(t), 'thinking on', 'the header without the role');
  assert.doesNotMatch(t.screen(), /╭─ role/, 'nor the input box');
  await t.send('and now?');
  await t.idle();
  const back = lastBody();
  assert.deepEqual(back.messages[0], { role: 'system', content: 'Answer in German.' });
  assert.deepEqual([back.max_tokens, back.enable_thinking], [8192, true]);
});

test('/role with an unknown name: one line naming the roles, and nothing changes', async () => {
  const t = await renderChat(double.url);
  await t.send('/role sopa');
  await t.waitForText('no role "sopa"; the roles are: soap, discharge, explain, ddx, interactions');
  assert.equal(t.controller.role, undefined);
  assert.equal(t.controller.conversation.system, undefined);
});

test('/role lists at 60 and 100 columns: a description too long for its row wraps under the description, never back to column 0', async () => {
  for (const columns of [60, 100]) {
    const t = await renderChat(double.url, { columns });
    await t.send('/role');
    await t.waitForText('Use one with /role');
    const lines = t.screen().split('\n');
    const first = lines.findIndex((l) => /^ {2}[ ●] soap +Clinical notes/.test(l));
    assert.ok(first >= 0, t.screen());
    const column = lines[first]!.indexOf('Clinical');
    const list = lines.slice(first, lines.findIndex((l) => l.startsWith('Use one with')));
    assert.ok(list.length > 5 || columns === 100, `some descriptions wrap at ${columns} columns\n${t.screen()}`);
    for (const l of list) {
      assert.ok(l.length <= columns, `fits in ${columns} columns: ${l}`);
      if (!/^ {2}[ ●] \w/.test(l)) assert.match(l, new RegExp(`^ {${column}}\\S`), `a wrapped row hangs under the descriptions (column ${column}) at ${columns} columns:\n${t.screen()}`);
    }
    cleanup();
  }
});

test('/think off, then /role ddx (a role that reasons): thinking stays off, and the line says the role would turn it on; /role off keeps it too', async () => {
  const t = await renderChat(double.url, { settings: { thinking: true } });
  await t.send('/think off');
  await t.waitForText('thinking off: answers start sooner');
  await t.send('/role ddx');
  await t.waitForText('role ddx:');
  assert.match(t.screen().replace(/\s+/g, ' '), /role ddx: .* · thinking off \(as you set it with \/think; the role would turn it on\) · max tokens/);
  assert.match(footer(t), /· thinking off\b/, 'the footer agrees');
  double.chat.enqueue({ content: ['1. Pulmonary embolism'] });
  await t.send('pleuritic chest pain');
  await t.idle();
  assert.equal(lastBody().enable_thinking, false, 'the request does not reason');
  assert.match(lastBody().messages[0]!.content, /differential/i, 'the role is in use');

  await t.send('/role off');
  await t.waitForText('role ddx off');
  assert.match(footer(t), /· thinking off\b/);
  // The other way round: /think on survives a role that does not reason, and leaving a role.
  await t.send('/think on');
  await t.waitForText('thinking on: answers start with reasoning');
  await t.send('/role soap');
  await t.waitForText('role soap:');
  assert.match(t.screen().replace(/\s+/g, ' '), /role soap: .* · thinking on \(as you set it with \/think; the role would turn it off\)/);
  await t.send('/think off');
  await t.waitForText('thinking off: answers start sooner');
  await t.send('/role off');
  await t.waitForText('role soap off');
  assert.match(t.screen().replace(/\s+/g, ' '), /role soap off: .*; thinking stays off, as you set it with \/think/);
  assert.match(footer(t), /· thinking off\b/);
});
