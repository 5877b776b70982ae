import assert from 'node:assert/strict';
import { test } from 'node:test';
import { builtSkip, paneFixture, TmuxPane } from '../support/tmux.js';

// In a real terminal: the footer's live figures and the `Thinking… Ns` line
// tick every second from the first second, and, read from one clock, always show the same second.
const skip = builtSkip;

const fixture = paneFixture();

const words = (s: string) => s.split(/(?<= )/);

interface Look {
  footer?: { seconds: number; tokens: number };
  thinking?: number;
  screen: string;
}

/** What one look at the pane shows of the live figures. */
function look(p: TmuxPane): Look {
  const screen = p.screen();
  const f = /(\d+)s · (\d+) tokens? │ Esc stop/.exec(screen);
  const t = /Thinking… (\d+)s/.exec(screen);
  return { screen, ...(f ? { footer: { seconds: Number(f[1]), tokens: Number(f[2]) } } : {}), ...(t ? { thinking: Number(t[1]) } : {}) };
}

/** Looks at the pane every 50 ms until `done` shows on it (at most `ms`). */
async function watch(p: TmuxPane, done: RegExp, ms: number): Promise<Look[]> {
  const looks: Look[] = [];
  const until = Date.now() + ms;
  for (;;) {
    const l = look(p);
    looks.push(l);
    if (done.test(l.screen)) return looks;
    if (Date.now() > until) throw new Error(`${done} did not show within ${ms} ms\n--- screen ---\n${l.screen}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

test('a 3-second answer: the footer counts 1s then 2s, its token count moves, and Thinking… Ns shows the same second as the footer', { skip }, async () => {
  // About 1.5 s of reasoning, then about 1.8 s of answer: shorter than the 5 s the footer used to wait.
  const reasoning = words('Consider the weight first, then the renal function, then the interactions. ');
  const content = words('Give paracetamol by weight, fifteen milligrams per kilogram, every six hours, at most four doses a day.');
  fixture.double.chat.enqueue({ reasoning, content, paceMs: 150 });
  const p = new TmuxPane([], { MEDCHAT_BASE_URL: fixture.double.url, MEDCHAT_API_KEY: 'sk-test-clock' }, { width: 100, height: 40 });
  fixture.panes.push(p);
  await p.ready();
  await p.send('dose?');
  const looks = await watch(p, /first token [\d.]+s/, 20_000);
  const seconds = looks.flatMap((l) => (l.footer ? [l.footer.seconds] : []));
  const shown = (s: number) => seconds.indexOf(s);
  assert.ok(shown(1) >= 0 && shown(2) > shown(1), `the footer showed 1s, then 2s; it showed ${[...new Set(seconds)].join(', ')}s`);
  for (let i = 1; i < seconds.length; i++) assert.ok(seconds[i]! >= seconds[i - 1]!, `the footer's seconds never go back: ${seconds.join(', ')}`);
  const before = looks.find((l) => l.footer && l.footer.tokens > 0 && l.footer.seconds <= 2);
  assert.ok(before, `the footer's token count moved by its second second: ${looks.flatMap((l) => (l.footer ? [`${l.footer.seconds}s·${l.footer.tokens}`] : [])).join(', ')}`);
  const both = looks.filter((l) => l.footer && l.thinking !== undefined);
  assert.ok(both.length > 0, 'the thinking line and the footer were seen together');
  for (const l of both) assert.equal(l.thinking, l.footer!.seconds, `Thinking… ${l.thinking}s beside a footer at ${l.footer!.seconds}s\n--- screen ---\n${l.screen}`);
  assert.ok(both.some((l) => l.thinking! >= 1), `the thinking line counted past 0s: ${both.map((l) => l.thinking).join(', ')}`);
});
