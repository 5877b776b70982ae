// In a real terminal (tmux, the built medchat): the chat screen's own short
// lines say what happened and fit, and an answer cut short still reads like a formatted one.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TEST_KEY } from '../support/cli.js';
import { builtSkip, paneFixture, TmuxPane } from '../support/tmux.js';

const skip = builtSkip;
const fixture = paneFixture();
const words = (s: string) => s.split(/(?<= )/);
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

function pane(width = 100, env: Record<string, string> = {}): TmuxPane {
  const p = new TmuxPane([], { MEDCHAT_BASE_URL: fixture.double.url, MEDCHAT_API_KEY: TEST_KEY, ...env }, { width, height: 40 });
  fixture.panes.push(p);
  return p;
}

test('Esc while an answer streams: its unfinished paragraph is formatted like a finished one, not left as raw Markdown', { skip }, async () => {
  const content = [...words('## Red flags\n\n- **Chest pain** with `sweating`\n- pain that is **worse on exertion and spreading to the left'), ...Array(300).fill(' arm')];
  fixture.double.chat.enqueue({ content, paceMs: 40 });
  const p = pane();
  await p.ready();
  await p.send('red flags?');
  await p.waitForText('worse on exertion');
  await pause(200);
  p.press('Escape');
  await p.waitForText('■ interrupted');
  const s = p.screen();
  assert.match(s, /• Chest pain with sweating/, `the finished part is formatted\n${s}`);
  assert.match(s, /• pain that is worse on exertion/, `the cut item too\n${s}`);
  assert.doesNotMatch(s, /\*\*|`/, `no raw Markdown markers left\n${s}`);
});

test('leaving after a saved conversation prints one line saying how to continue it; not in incognito, not when nothing was asked', { skip }, async () => {
  const saved = pane();
  await saved.ready();
  fixture.double.chat.enqueue({ content: ['Rest and fluids.'] });
  await saved.send('sore throat');
  await saved.waitForText('Rest and fluids.');
  saved.press('C-d');
  const end = await saved.exited();
  assert.equal(end.code, 0);
  const lines = saved.all();
  const exited = lines.findIndex((l) => l.startsWith('medchat exited'));
  assert.match(lines[exited - 1]!, /^Saved as session \d{8}-\d{6}-[0-9a-f]{4}; continue it later with: medchat -c$/, `the last line before the shell's\n${lines.join('\n')}`);
  assert.equal(lines.filter((l) => l.includes('continue it later')).length, 1, 'said once');

  for (const [args, why] of [[['--incognito'], 'incognito'], [[], 'nothing asked']] as const) {
    const p = new TmuxPane([...args], { MEDCHAT_BASE_URL: fixture.double.url, MEDCHAT_API_KEY: TEST_KEY }, { width: 100, height: 40 });
    fixture.panes.push(p);
    await p.ready();
    if (args.length) {
      fixture.double.chat.enqueue({ content: ['Rest and fluids.'] });
      await p.send('sore throat');
      await p.waitForText('Rest and fluids.');
    }
    p.press('C-d');
    assert.equal((await p.exited()).code, 0);
    assert.doesNotMatch(p.all().join('\n'), /continue it later|Saved as session/, why);
  }
});

test('a refused key in the chat screen: the advice names MEDCHAT_API_KEY, where the key came from', { skip }, async () => {
  fixture.double.chat.enqueue({ status: 401, body: JSON.stringify({ error: { message: 'Invalid API key' } }) });
  const p = pane();
  await p.ready();
  await p.send('hello');
  await p.waitForText('refused the API key');
  const s = p.screen().replace(/\s+/g, ' ');
  assert.match(s, /the service refused the API key \(401\): Invalid API key; this key came from MEDCHAT_API_KEY: set it to a valid one/);
  assert.doesNotMatch(s, /config set api-key/);
});

for (const width of [60, 100]) {
  test(`at ${width} columns, "press Ctrl+C again to exit" and the queued line are shown whole, beside long footer figures`, { skip }, async () => {
    const p = pane(width);
    await p.ready();
    // Big figures make the footer as long as it gets.
    fixture.double.chat.enqueue({ content: ['Fine.'], usage: { prompt_tokens: 123_456, completion_tokens: 65_432 } });
    await p.send('first question');
    await p.waitForText('Fine.');
    await p.waitForText('123k in · 65.4k out');
    p.press('C-c');
    await p.waitForText('press Ctrl+C again to exit');

    const long = 'and what about the dose for a child of six who weighs twenty kilograms and has asthma';
    fixture.double.chat.enqueue({ content: words('Paragraph one about dosing. ').concat(Array(200).fill('more ')), paceMs: 50 });
    await p.send('second question');
    await p.waitForText('Paragraph one');
    p.type(long);
    p.press('Enter');
    await p.waitForText('queued:');
    await p.waitForText('Esc to cancel)');
    const s = p.screen();
    const row = s.split('\n').findIndex((l) => l.startsWith('queued: '));
    assert.match(s.split('\n').slice(row, row + 3).join(' ').replace(/\s+/g, ' '), /^queued: and what about the dose.* \(sent when this answer ends; Esc to cancel\)/, s);
    for (const l of s.split('\n')) assert.ok(l.length <= width, `fits: ${l}`);
    p.press('Escape');
    await p.waitForText(/taken back: "and what about/);
  });
}

test('/role ddx: the input box names the role on its top edge, until /role off', { skip }, async () => {
  const p = pane(60);
  await p.ready();
  await p.send('/role ddx');
  await p.waitForText('╭─ role ddx ─');
  const edge = p.screen().split('\n').find((l) => l.startsWith('╭─ role ddx'))!;
  assert.match(edge, /^╭─ role ddx ─+╮$/);
  assert.equal(edge.length, 60, 'as wide as the box');
  await p.send('/role off');
  await p.waitForText('role ddx off');
  await p.waitForText(/^╭─+╮$/m);
  assert.doesNotMatch(p.screen().split('\n').slice(-6).join('\n'), /role ddx/);
});
