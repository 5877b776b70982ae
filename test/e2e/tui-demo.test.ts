// `medchat demo` in a real terminal (tmux): the chat screen opens with the demo label in its header
// and footer, answers, runs /retexture demo.png to a URL, exits 0 on Ctrl+D, and writes nothing
// outside its temporary sandbox (which it removes).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { tempHome } from '../support/cli.js';
import { TmuxPane, tmuxSkip } from '../support/tmux.js';

function listAll(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { recursive: true }).map(String);
}

test('medchat demo: DEMO label, an answer, /retexture demo.png to a URL, Ctrl+D exits 0, nothing left behind', { skip: tmuxSkip }, async () => {
  const base = tempHome();
  const dirs = { home: path.join(base, 'home'), tmp: path.join(base, 'tmp'), config: path.join(base, 'config'), data: path.join(base, 'data') };
  for (const d of Object.values(dirs)) fs.mkdirSync(d);
  // The pane's own bookkeeping (its pid file) lives in `base`; medchat gets the four folders.
  const pane = new TmuxPane(['demo'], { HOME: dirs.home, TMPDIR: dirs.tmp, MEDCHAT_CONFIG_DIR: dirs.config, MEDCHAT_DATA_DIR: dirs.data }, { home: base });
  try {
    await pane.ready();
    assert.match(pane.screen(), /medchat \d+\.\d+\.\d+ · DEMO · medchat-demo · 127\.0\.0\.1:\d+/);
    assert.match(pane.screen(), /\/retexture demo\.png/);
    assert.equal(listAll(dirs.tmp).filter((f) => /^medchat-demo-[^/]+$/.test(f)).length, 1, 'the sandbox is in TMPDIR while the demo runs');

    await pane.send('vital signs');
    await pane.waitForText(/Heart rate[\s\S]*60–100[\s\S]*\d+ in · \d+ out/, 30_000);
    const s = pane.screen();
    assert.match(s, /Demo reply/);
    assert.match(s, /not medical advice/);
    // The footer (the line with the context meter; its key help may be cut off at this width) keeps the badge.
    assert.match(s.split('\n').filter((l) => /\/ 128k/.test(l)).at(-1) ?? '', /^\s*demo\s/, 'the footer keeps the demo badge');

    await pane.send('/retexture demo.png watercolour');
    await pane.waitForText(/✓ retexture done · task \d+[\s\S]*http:\/\/127\.0\.0\.1:\d+\/mj\/image\/demo-result-1\.png[\s\S]*▀▀▀▀/, 60_000);

    pane.press('C-d');
    const end = await pane.exited();
    assert.equal(end.code, 0, pane.screen());
    assert.deepEqual(listAll(dirs.home), [], 'nothing in HOME');
    assert.deepEqual(listAll(dirs.config), [], 'no config written');
    assert.deepEqual(listAll(dirs.data), [], 'no session or prompt history written');
    assert.deepEqual(listAll(dirs.tmp), [], 'the sandbox is removed');
  } finally {
    pane.kill();
  }
});
