// The chat screen on a full disk: the conversation goes on, and the user is told once.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, afterEach, before, test } from 'node:test';
import { cleanup } from 'ink-testing-library';
import { SessionStore } from '../../src/core/sessions/store.js';
import { startServiceDouble, type ServiceDouble } from '../../src/stand-in/index.js';
import { FaultyFileOps } from '../support/faulty-fs.js';
import { renderChat } from '../support/tui.js';
import { tempDir } from '../support/temp.js';

let double: ServiceDouble;
const dirs: string[] = [];
before(async () => {
  double = await startServiceDouble();
});
after(async () => {
  await double.close();
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});
afterEach(() => cleanup());

test('a full disk: every answer still arrives, one warning in the transcript, and nothing half-written', async () => {
  const dir = tempDir('medchat-ui-full-');
  dirs.push(dir);
  const ops = new FaultyFileOps({ full: true });
  const store = new SessionStore(path.join(dir, 'sessions'), { fileOps: ops });
  const t = await renderChat(double.url, { store, historyFile: path.join(dir, 'prompt-history.jsonl'), settings: { history: true, thinking: false } });
  for (const q of ['first question', 'second question']) {
    double.chat.enqueue({ content: [`answer to ${q}`] });
    await t.send(q);
    await t.idle();
  }
  const items = t.controller.snapshot().items;
  const warnings = items.filter((i) => i.kind === 'notice' && i.tone === 'warn');
  assert.equal(warnings.length, 1, JSON.stringify(warnings));
  assert.match(
    (warnings[0] as { text: string }).text,
    /^cannot save the session \S+ in .*sessions: the disk is full \(ENOSPC\); free some disk space or set MEDCHAT_DATA_DIR; the conversation goes on, but is not being saved$/,
  );
  assert.ok(t.screen().includes('answer to second question') || JSON.stringify(items).includes('answer to second question'));
  assert.deepEqual(fs.readdirSync(path.join(dir, 'sessions')), [], 'no session file, no temporary file, no lock');
});
