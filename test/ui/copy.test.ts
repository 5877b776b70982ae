import assert from 'node:assert/strict';
import { after, afterEach, before, test } from 'node:test';
import { cleanup } from 'ink-testing-library';
import { startServiceDouble, type ServiceDouble } from '../../src/stand-in/index.js';
import { renderChat } from '../support/tui.js';

// /copy on the chat screen, with no clipboard program and outside tmux: what it copies is read
// back from the OSC 52 it writes, so the exact text is checked.
let double: ServiceDouble;
const saved = { ...process.env };
before(async () => {
  double = await startServiceDouble();
  process.env.MEDCHAT_NO_CLIPBOARD_TOOL = '1';
  delete process.env.TMUX;
  delete process.env.STY;
});
after(async () => {
  for (const k of ['MEDCHAT_NO_CLIPBOARD_TOOL', 'TMUX', 'STY']) {
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
  }
  await double.close();
});
afterEach(() => cleanup());

/** The texts sent by OSC 52, decoded. */
const clipboard = (writes: string[]) => writes.flatMap((w) => [...w.matchAll(/\x1b\]52;c;([A-Za-z0-9+/=]*)\x07/g)].map((m) => Buffer.from(m[1]!, 'base64').toString('utf8')));

const LONG = `curl -s "https://api.example.org/v1/doses?drug=paracetamol&weight=${'9'.repeat(120)}" | jq .`;
const ANSWER = ['Two steps.', '', '```python', 'dose = 15 * kg\tmg', '```', '', 'Then:', '', '```bash', LONG, '```', '', 'Done.'].join('\n');

test('/copy code copies the last code block, /copy code N the Nth, exactly as sent (no ↪, no colour), and says how many there are', async () => {
  double.chat.enqueue({ reasoning: [], content: [ANSWER] });
  const t = await renderChat(double.url);
  await t.send('how?');
  await t.idle();
  // On screen the long line is cut with a marker…
  assert.match(t.screen(), /↪ /);
  await t.send('/copy code');
  await t.waitForText('code block 2 of 2 (bash)');
  // …but what is copied is the line as the service sent it.
  assert.equal(clipboard(t.writes).at(-1), LONG);
  assert.match(t.screen().replace(/\n/g, ' '), new RegExp(`sent code block 2 of 2 \\(bash\\) \\(${LONG.length} characters\\) to the terminal by OSC 52: your terminal may ignore it`));
  await t.send('/copy code 1');
  await t.waitForText('code block 1 of 2 (python)');
  assert.equal(clipboard(t.writes).at(-1), 'dose = 15 * kg\tmg');
  await t.send('/copy code 3');
  await t.waitForText('the last answer has 2 code blocks: /copy code 1 to 2');
  await t.send('/copy code x');
  await t.waitForText('the last answer has 2 code blocks: /copy code 1 to 2');
  const before = clipboard(t.writes).length;
  await t.send('/copy');
  await t.waitForText(`the last answer (${ANSWER.length} characters)`);
  assert.equal(clipboard(t.writes).at(-1), ANSWER);
  await t.send('/copy all');
  await t.waitForText('the conversation as Markdown');
  assert.match(clipboard(t.writes).at(-1)!, /## You[^\n]*\n\nhow\?[\s\S]*## medchat\n\nTwo steps\./);
  assert.equal(clipboard(t.writes).length, before + 2);
});

test('/copy code when the last answer has none, or before any answer; /copy with other words says how to use it', async () => {
  const t = await renderChat(double.url);
  await t.send('/copy code');
  await t.waitForText('no answer to copy yet');
  double.chat.enqueue({ reasoning: [], content: ['Rest and fluids.'] });
  await t.send('cold?');
  await t.idle();
  await t.send('/copy code');
  await t.waitForText('the last answer has no code block; /copy copies the whole answer');
  await t.send('/copy everything');
  await t.waitForText('/copy takes nothing (the last answer), code [N] (a code block of it) or all (the conversation)');
});

test('/copy after a redacted question copies the answer as shown, with the values put back (not the placeholders)', async () => {
  double.chat.enqueue({ reasoning: [], content: ['Mrs [NAME-1] (MRN [MRN-1]) may go home.'] });
  const t = await renderChat(double.url, { privacy: { mode: 'redact' } });
  await t.send('Is Mrs Margaret Ellison (MRN K4471902) fit for discharge?');
  await t.waitForText('⟦K4471902⟧');
  await t.idle();
  await t.send('/copy');
  await t.waitForText('the last answer');
  assert.deepEqual(clipboard(t.writes), ['Mrs Margaret Ellison (MRN K4471902) may go home.']);
});
