import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { setLanguage } from '../../src/core/i18n/language.js';
import { uiKeysText } from '../../src/core/i18n/messages/ui-keys.js';
import { uiScreenText } from '../../src/core/i18n/messages/ui-screen.js';
import { uiSlashText } from '../../src/core/i18n/messages/ui-slash.js';
import { textWidth, wrapLine } from '../../src/core/text/width.js';
import { waitFor } from '../support/cli.js';
import { builtSkip, paneFixture, TmuxPane } from '../support/tmux.js';

// The chat screen in Chinese (MEDCHAT_LANG=zh), in a real terminal at 80 and 60 columns: the header, the
// footer, the privacy prompt and /help are Chinese; every row keeps within the window, each wide character
// counted as two cells; nothing at the right edge is lost; and a Chinese answer arrives as it was sent.
const skip = builtSkip;
const fixture = paneFixture();

// The expected words are the catalogue's, read in Chinese here (the binary reads them from MEDCHAT_LANG).
before(() => setLanguage('zh'));
after(() => setLanguage('en'));

const ANSWER =
  '高血压的一线药物包括 ACE 抑制剂（如依那普利）、ARB、钙通道阻滞剂和噻嗪类利尿剂。具体选择取决于年龄、合并症和耐受性；' +
  '老年患者起始剂量宜低，逐步调整，并定期复查血压、血钾和肾功能。';

function open(width: number, env: Record<string, string> = {}): TmuxPane {
  const p = new TmuxPane([], { MEDCHAT_BASE_URL: fixture.double.url, MEDCHAT_API_KEY: 'sk-test-chinese', MEDCHAT_LANG: 'zh', ...env }, { width, height: 60 });
  fixture.panes.push(p);
  return p;
}

/** The rows as tmux shows them (not joined), trailing blanks dropped. */
const rowsOf = (p: TmuxPane) => p.tmux('capture-pane', '-p', '-S', '-300', '-t', p.name).replace(/\n+$/, '').split('\n');
const squeeze = (s: string) => s.replace(/[\s│]/g, '');

/** Type a line and press Enter until it leaves the box (the box's prompt is `› `). */
async function send(p: TmuxPane, line: string): Promise<void> {
  p.type(line);
  await p.waitForText(`› ${line}`, 5000);
  for (let i = 0; i < 10; i++) {
    p.press('Enter');
    const left = await waitFor(() => !p.screen().includes(`│ › ${line}`), 1000, 'the line to be sent').then(
      () => true,
      () => false,
    );
    if (left) return;
  }
  throw new Error(`the line was not taken: ${line}\n${p.screen()}`);
}

function assertWithin(rows: string[], width: number): void {
  for (const r of rows) assert.ok(textWidth(r) <= width, `a row wider than ${width} cells (${textWidth(r)}): ${r}\n${rows.join('\n')}`);
  // The input box: its corners at the two edges, so nothing wrapped into its border.
  for (const r of rows.filter((r) => /^[╭│╰]/.test(r) && /[╮│╯]$/.test(r))) assert.equal(textWidth(r), width, `a box row not the window's width: ${r}`);
}

for (const width of [80, 60]) {
  test(`in Chinese at ${width} columns: header, footer, /help and an answer, every row within the window and whole`, { skip }, async () => {
    fixture.double.chat.enqueue({ reasoning: [], content: [ANSWER.slice(0, 20), ANSWER.slice(20, 45), ANSWER.slice(45)] });
    const p = open(width);
    await p.waitForText(uiScreenText.hintsIdleShort.split(' · ')[0]!);
    await new Promise((r) => setTimeout(r, 200));

    // The header: the disclaimer and the start hint as medchat wraps them, each row whole.
    let rows = rowsOf(p);
    const header = [...wrapLine(uiScreenText.disclaimer, width), ...wrapLine(uiScreenText.startHint, width)];
    for (const expected of header) assert.ok(rows.includes(expected), `the header row "${expected}" whole\n${rows.join('\n')}`);
    const footer = rows.findLast((r) => r.includes('│ Enter'))!;
    assert.ok(footer, rows.join('\n'));
    assert.ok(footer.includes(uiScreenText.thinkingState(true).trim()), `thinking on/off in Chinese: ${footer}`);
    assert.ok(footer.trimEnd().endsWith('/help'), `the footer's hints end whole, not cut: ${footer}`);
    assertWithin(rows, width);

    // /help: in Chinese, each description whole (wrapped rows joined again), each row within the window.
    await send(p, '/help');
    await p.waitForText(uiKeysText.paste(0).slice(0, 6));
    rows = rowsOf(p);
    assertWithin(rows, width);
    const from = rows.indexOf(uiSlashText.commands);
    assert.ok(from >= 0 && rows.includes(uiSlashText.keys), `/help's headings in Chinese\n${rows.join('\n')}`);
    const help = squeeze(rows.slice(from).join(''));
    for (const described of [uiSlashText.helpHelp, uiSlashText.compactHelp, uiSlashText.tokensHelp, uiKeysText.upDown, uiKeysText.ctrlC]) {
      assert.ok(help.includes(squeeze(described)), `"${described}" whole in /help\n${rows.slice(from).join('\n')}`);
    }

    // A Chinese answer streams in as sent: every character there, in order, nothing cut at the edge.
    await send(p, '高血压一线用药？');
    await p.waitForText(/输入 \d+ · 输出 \d+/, 15_000);
    rows = rowsOf(p);
    assertWithin(rows, width);
    const start = rows.findIndex((r) => r.startsWith('高血压的一线药物'));
    assert.ok(start >= 0, rows.join('\n'));
    const answerRows = rows.slice(start, rows.findIndex((r, i) => i > start && r.trim() === ''));
    assert.ok(answerRows.length >= 2, `the answer wraps at ${width}: ${answerRows.join(' / ')}`);
    assert.equal(squeeze(answerRows.join('')), squeeze(ANSWER), answerRows.join('\n'));
    // Closing punctuation never starts a row.
    for (const r of answerRows) assert.doesNotMatch(r, /^[，。、；：）]/, answerRows.join('\n'));
  });

  test(`in Chinese at ${width} columns the privacy prompt's box says 请选择 with the keys whole on one row`, { skip }, async () => {
    const p = open(width);
    await p.waitForText(uiScreenText.hintsIdleShort.split(' · ')[0]!);
    await new Promise((r) => setTimeout(r, 200));
    p.type('Mrs Margaret Ellison, born 12/03/1951, MRN K4471902: fit for discharge?');
    await p.waitForText('discharge?', 5000);
    for (let i = 0; i < 10 && !p.screen().includes(uiScreenText.choose); i++) {
      p.press('Enter');
      await waitFor(() => p.screen().includes(uiScreenText.choose), 1000, 'the guard to ask').catch(() => undefined);
    }
    const rows = rowsOf(p);
    assertWithin(rows, width);
    const keys = rows.filter((r) => r.includes(uiScreenText.choose));
    assert.equal(keys.length, 1, rows.join('\n'));
    assert.match(keys[0]!, new RegExp(`^│ ${uiScreenText.choose}Enter .+ · r .+ · e .+│$`), `the keys together, the box's edge after them: ${keys[0]}`);
    assert.equal(textWidth(keys[0]!), width, keys[0]);
  });
}

test('LANG=zh_CN.UTF-8 alone gives the Chinese screen; with MEDCHAT_LANG=en it stays English, word for word', { skip }, async () => {
  const zh = open(80, { LANG: 'zh_CN.UTF-8', MEDCHAT_LANG: '' });
  const en = open(80, { LANG: 'zh_CN.UTF-8', MEDCHAT_LANG: 'en' });
  await zh.waitForText(uiScreenText.startHint);
  await en.waitForText('Enter send · Ctrl+J new line');
  const english = en.screen();
  assert.ok(english.includes('medchat gives information, not a diagnosis.'), english);
  assert.ok(english.includes('Type a question and press Enter · /help for commands and keys'), english);
  assert.doesNotMatch(english, /[\u3400-\u9fff]/, 'no Chinese on the English screen');
});
