// Issue 19, defect 8, in a real terminal (tmux, the built medchat): the chat screen's own short
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
