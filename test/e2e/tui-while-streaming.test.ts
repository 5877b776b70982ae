import assert from 'node:assert/strict';
import { test } from 'node:test';
import { waitFor } from '../support/cli.js';
import { builtSkip, paneFixture, TmuxPane } from '../support/tmux.js';

// Typing while an answer streams, in a real terminal (the frame writer draws the streaming text there):
// a command typed mid-answer prints after the answer, and the footer counts while it streams.
const skip = builtSkip;

const fixture = paneFixture();

const PARAGRAPHS = [
  'Paragraph one says that paracetamol is taken every four to six hours.',
  'Paragraph two says that ibuprofen is taken with food.',
  'Paragraph three ends the answer.',
];
const words = (s: string) => s.split(/(?<= )/);

test('/tokens typed mid-answer prints after the whole answer; the footer counts time and tokens as it streams', { skip }, async () => {
  const reasoning = words('First the usual doses, then the warnings. ');
  fixture.double.chat.enqueue({ reasoning, content: PARAGRAPHS.flatMap((p, i) => [...words(p), i < PARAGRAPHS.length - 1 ? '\n\n' : '']), paceMs: 150 });
  const p = new TmuxPane([], { MEDCHAT_BASE_URL: fixture.double.url, MEDCHAT_API_KEY: 'sk-test-midanswer' }, { width: 80, height: 50 });
  fixture.panes.push(p);
  await p.ready();
  await p.send('doses?');
  await p.waitForText('Paragraph one says');
  const footer = () => /(\d+)s · (\d+) tokens │ Esc stop/.exec(p.screen());
  // The footer is redrawn on its own clock (every few seconds while text flows): wait for it.
  await waitFor(() => footer() !== null, 10_000, () => `the footer to count while the answer streams\n${p.screen()}`);
  const first = footer()!;
  assert.doesNotMatch(p.screen(), /first token/, 'no figures of an earlier answer');
  await p.send('/tokens');
  await p.waitForText('queued: /tokens (runs when this answer ends; Esc to cancel)');
  // The count grows while the answer streams; on a loaded machine the answer may be over before
  // the next look, which ends the live figures (the room-left line of /tokens then shows).
  await waitFor(() => Number(footer()?.[2] ?? 0) > Number(first[2]) || /room left +\d/.test(p.screen()), 10_000, () => `the token count to grow\n${p.screen()}`);
  await p.waitForText(/room left +\d/, 20_000);
  const text = p.screen().replace(/\s+/g, ' ');
  let at = 0;
  for (const part of ['› doses?', '▸ Thought for', ...PARAGRAPHS, 'first token', 'Context window', 'room left', '│ ›']) {
    const i = text.indexOf(part, at);
    assert.ok(i >= at, `${part} in order\n--- screen ---\n${p.screen()}`);
    at = i + part.length;
  }
  assert.doesNotMatch(p.screen(), /queued:/);
  for (const para of PARAGRAPHS) assert.equal(text.split(para).length, 2, `printed once: ${para}`);
});
