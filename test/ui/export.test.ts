// One exporter: `/export` in the chat screen and `medchat sessions export` write the same file for
// the same conversation, byte for byte, in JSON and in Markdown; `/copy all` copies that Markdown.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, afterEach, before, test } from 'node:test';
import { cleanup } from 'ink-testing-library';
import { sessionsExport } from '../../src/cli/commands/sessions-actions.js';
import { startServiceDouble, type ServiceDouble } from '../../src/stand-in/index.js';
import { SessionStore } from '../../src/core/sessions/store.js';
import { renderChat } from '../support/tui.js';
import { tempDir } from '../support/temp.js';

let double: ServiceDouble;
before(async () => {
  double = await startServiceDouble();
});
after(() => double.close());
afterEach(() => cleanup());

/** `medchat sessions export <id> -o <file> --reasoning`, run in this process against `dataDir`. */
async function cliExport(dataDir: string, id: string, file: string): Promise<string> {
  const saved = { env: process.env.MEDCHAT_DATA_DIR, write: process.stderr.write };
  process.env.MEDCHAT_DATA_DIR = dataDir;
  process.stderr.write = (() => true) as typeof process.stderr.write; // "exported … to …"
  try {
    assert.equal(await sessionsExport(id, { output: file, reasoning: true }), 0);
  } finally {
    process.stderr.write = saved.write;
    if (saved.env === undefined) delete process.env.MEDCHAT_DATA_DIR;
    else process.env.MEDCHAT_DATA_DIR = saved.env;
  }
  return fs.readFileSync(file, 'utf8');
}

test('/export and `medchat sessions export --reasoning` give byte-identical files, JSON and Markdown', async () => {
  const dir = tempDir('medchat-export-');
  const store = new SessionStore(path.join(dir, 'sessions'));
  const t = await renderChat(double.url, { store, historyFile: path.join(dir, 'history.jsonl'), system: 'Answer briefly.', settings: { history: true } });
  double.chat.enqueue({ reasoning: ['Weigh ', 'the child.'], content: ['By weight: **15 mg/kg**.\n\nEvery 6 hours.'], usage: { prompt_tokens: 30, completion_tokens: 12 } });
  await t.send('paracetamol dose for a child?');
  await t.idle();
  double.chat.enqueue({ reasoning: [], content: ['At most four doses a day.'] });
  await t.send('how often?');
  await t.idle();
  const id = t.controller.session.id;

  const screenJson = path.join(dir, 'screen.json');
  await t.send(`/export ${screenJson}`);
  await t.waitForText(`saved ${screenJson}`);
  const screenMd = path.join(dir, 'screen.md');
  await t.send(`/export ${screenMd}`);
  await t.waitForText(`saved ${screenMd}`);

  const json = await cliExport(dir, id, path.join(dir, 'cli.json'));
  const md = await cliExport(dir, id, path.join(dir, 'cli.md'));
  assert.equal(fs.readFileSync(screenJson, 'utf8'), json, 'the JSON files are the same, byte for byte');
  assert.equal(fs.readFileSync(screenMd, 'utf8'), md, 'the Markdown files are the same, byte for byte');

  // What the one format holds.
  const data = JSON.parse(json);
  assert.deepEqual(Object.keys(data), ['id', 'title', 'created_at', 'updated_at', 'model', 'system', 'turns', 'summary', 'compactions']);
  assert.equal(data.id, id);
  assert.equal(data.system, 'Answer briefly.');
  assert.deepEqual(Object.keys(data.turns[0]), ['user', 'answer', 'reasoning', 'status', 'started_at', 'first_token_ms', 'duration_ms', 'usage', 'error']);
  assert.equal(data.turns[0].reasoning, 'Weigh the child.');
  assert.equal(data.turns[0].answer, 'By weight: **15 mg/kg**.\n\nEvery 6 hours.');
  assert.deepEqual(data.turns[0].usage, { prompt_tokens: 30, completion_tokens: 12, total_tokens: 42 });
  assert.equal(typeof data.turns[0].first_token_ms, 'number');
  assert.equal(data.turns[1].error, null);
  assert.match(md, new RegExp(`^# paracetamol dose for a child\\?\\n\\n- Session: \`${id}\`\\n- Started: .* UTC\\n- Last saved: .* UTC\\n- Model: `));
  assert.match(md, /## System prompt\n\nAnswer briefly\.\n/);
  assert.match(md, /## You · [^\n]+\n\nparacetamol dose for a child\?\n\n<details><summary>Reasoning<\/summary>\n\nWeigh the child\.\n\n<\/details>\n\n## medchat\n\nBy weight: \*\*15 mg\/kg\*\*\.\n\nEvery 6 hours\.\n/);
  assert.ok(!md.includes('exported'), 'no export time: the same conversation gives the same file');

  // `/copy all` copies the same Markdown.
  process.env.MEDCHAT_NO_CLIPBOARD_TOOL = '1';
  const tmux = process.env.TMUX;
  delete process.env.TMUX;
  try {
    await t.send('/copy all');
    await t.waitForText('the conversation as Markdown');
    assert.ok(t.writes.some((w) => w.includes(Buffer.from(md).toString('base64'))), '/copy all sent the exported Markdown');
  } finally {
    delete process.env.MEDCHAT_NO_CLIPBOARD_TOOL;
    if (tmux !== undefined) process.env.TMUX = tmux;
  }
});

test('/export of a conversation that is not saved (incognito) says so instead of naming a session', async () => {
  const dir = tempDir('medchat-export-');
  const store = new SessionStore(path.join(dir, 'sessions'));
  const t = await renderChat(double.url, { store, incognito: true, settings: { history: true } });
  double.chat.enqueue({ reasoning: ['hidden thought'], content: ['Visible answer.'] });
  await t.send('q1');
  await t.idle();
  const json = path.join(dir, 'out', 'chat.json');
  await t.send(`/export ${json}`);
  await t.waitForText(`saved ${json}`);
  const data = JSON.parse(fs.readFileSync(json, 'utf8'));
  assert.equal(data.id, null);
  assert.equal(data.updated_at, null);
  assert.equal(data.turns[0].reasoning, 'hidden thought');
  assert.equal(fs.statSync(json).mode & 0o777, 0o600);
  const md = path.join(dir, 'chat.md');
  await t.send(`/export ${md}`);
  await t.waitForText(`saved ${md}`);
  assert.match(fs.readFileSync(md, 'utf8'), /^# q1\n\n- Session: not saved \(incognito, or history is off\)\n- Started: .* UTC\n- Model: [^\n]+\n\n## You · [^\n]+\n\nq1\n\n<details>/);
  assert.deepEqual(fs.existsSync(path.join(dir, 'sessions')) ? fs.readdirSync(path.join(dir, 'sessions')) : [], [], 'nothing saved');
});
