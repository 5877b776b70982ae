import assert from 'node:assert/strict';
import { test } from 'node:test';
import { builtSkip, paneFixture, TmuxPane } from '../support/tmux.js';

// An address longer than the window, in a real terminal (tmux): it is printed in one piece and wrapped by the
// terminal itself, so copying it (tmux joins rows it wrapped itself; so do xterm's and VTE's selections) or
// clicking it gets the whole address. Cut by a newline of medchat's, a copy gave a broken address.
const skip = builtSkip;
const fixture = paneFixture();

const URL_A = 'https://guidelines.example.org/haematology/thrombocytopenia/adult-inpatients/platelet-transfusion-thresholds-2026.pdf';
const URL_B = 'https://www.example.org/renal/creatinine-clearance/cockcroft-gault-calculator?weight=70&age=82&sex=female&units=si';
const words = (s: string) => s.split(/(?<= )/);

for (const [how, paceMs] of [
  ['printed while the answer streams', 40],
  ['printed when the answer ends', 0],
] as const) {
  test(`a web address wider than the window stays whole (${how}): the terminal wraps it, a copy of the screen has it in one piece`, { skip }, async () => {
    const answer = [
      `The thresholds are in ${URL_A} (section 4).`,
      '',
      'Platelets below 150 are low, and below 50 a procedure needs a transfusion first.',
      '',
      `Dose with ${URL_B}`,
      '',
      'Check the result twice.',
    ].join('\n');
    fixture.double.chat.enqueue({ reasoning: [], content: words(answer), paceMs });
    const p = new TmuxPane([], { MEDCHAT_BASE_URL: fixture.double.url, MEDCHAT_API_KEY: 'sk-test-url' }, { width: 60, height: 30 });
    fixture.panes.push(p);
    await p.ready();
    await p.send('thresholds?');
    await p.waitForText(/\d+ in · \d+ out/);
    const joined = p.screen(); // capture-pane -J: rows the terminal wrapped itself are joined
    for (const url of [URL_A, URL_B]) assert.ok(joined.includes(url), `${url} whole\n--- screen ---\n${joined}`);
    // Nothing around them moved: the words before and after, the other paragraphs once, and one input box.
    const text = joined.replace(/\s+/g, ' ');
    assert.ok(text.includes(`The thresholds are in ${URL_A} (section 4).`), joined);
    for (const para of ['Platelets below 150 are low, and below 50 a procedure needs a transfusion first.', 'Check the result twice.']) {
      assert.equal(text.split(para).length, 2, `once: ${para}\n${joined}`);
    }
    assert.equal(joined.split('│ ›').length, 2, joined);
    // Unjoined, no row is wider than the window, and the address fills each row it wraps over.
    const rows = p.tmux('capture-pane', '-p', '-t', p.name).split('\n');
    const from = rows.findIndex((r) => r.startsWith('https://guidelines'));
    assert.ok(from >= 0, rows.join('\n'));
    assert.equal(rows[from]!.length, 60, rows.join('\n'));
    assert.ok(rows.every((r) => r.length <= 60));
  });
}
