/**
 * Encrypted history through the built bin/medchat.js: the key from history-key-command (or a fake
 * secret-tool on PATH), conversations with distinctive words, and then every file in the data folder
 * and in TMPDIR read for those words.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { startServiceDouble, type ServiceDouble } from '../../src/stand-in/index.js';
import { TEST_KEY, filesUnder, runCli, tempHome, type CliOptions } from '../support/cli.js';
import { TmuxPane, tmuxSkip } from '../support/tmux.js';
import { openToOthers, testBuild } from '../support/test-build.js';
import { tempDir } from '../support/temp.js';

let double: ServiceDouble;
before(async () => {
  double = await startServiceDouble({ contextWindow: 131072 });
});
after(() => double.close());

const KEY_CMD = 'echo 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08';
const OTHER_KEY_CMD = 'echo 0000d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08';
/** Words no medchat file holds unless a turn put them there. */
const WORDS = ['quokkaflint', 'zephyrmorrow', 'bramblequist', 'lanternwhisk'];

interface Home {
  home: string;
  tmp: string;
  run: (args: string[], o?: CliOptions) => ReturnType<typeof runCli>;
}

function newHome(): Home {
  const home = tempHome();
  const tmp = tempDir('medchat-enc-tmp-');
  return {
    home,
    tmp,
    run: (args, o = {}) => runCli(args, { baseUrl: double.url, home, ...o, env: { TMPDIR: tmp, ...o.env } }),
  };
}

const dataDir = (h: Home) => path.join(h.home, 'data');
const sessionIds = (h: Home) => fs.readdirSync(path.join(dataDir(h), 'sessions')).filter((n) => n.endsWith('.json')).map((n) => n.slice(0, -5));
const keyring = (h: Home) => JSON.parse(fs.readFileSync(path.join(dataDir(h), 'keyring.json'), 'utf8')) as { source: string; keys: Record<string, string> };

/** Every file under the data folder and TMPDIR that holds one of the words (none may). */
function plainTextFound(h: Home, words = WORDS): string[] {
  const hits: string[] = [];
  for (const file of [...filesUnder(dataDir(h)), ...filesUnder(h.tmp)]) {
    const text = fs.readFileSync(file).toString('latin1');
    for (const w of words) if (text.includes(w)) hits.push(`${file}: ${w}`);
  }
  return hits;
}

function hashes(dir: string): Record<string, string> {
  return Object.fromEntries(filesUnder(dir).map((f) => [f, createHash('sha256').update(fs.readFileSync(f)).digest('hex')]));
}

async function ok(p: ReturnType<typeof runCli>) {
  const r = await p;
  assert.equal(r.code, 0, r.stderr);
  return r;
}

async function encryptedHome(): Promise<Home> {
  const h = newHome();
  await ok(h.run(['config', 'set', 'history-key-command', KEY_CMD]));
  await ok(h.run(['config', 'set', 'encrypt', 'on']));
  return h;
}

test('encrypted: one-shot, -c, --resume, sessions list/show/export all work, and no word of any turn is in a file of the data folder or TMPDIR', async () => {
  const h = await encryptedHome();
  await ok(h.run([`Tell me about ${WORDS[0]} please`]));
  await ok(h.run(['-c', `and ${WORDS[1]} too`]));
  const last = double.chat.requests.at(-1)!.body.messages.map((m: { content: string }) => m.content);
  assert.deepEqual(last, [`Tell me about ${WORDS[0]} please`, `You said: Tell me about ${WORDS[0]} please`, `and ${WORDS[1]} too`], '-c sent the earlier turn, read from the encrypted file');
  const [id] = sessionIds(h);
  await ok(h.run(['--resume', id!.slice(0, 17), `then ${WORDS[2]}`]));

  const list = await ok(h.run(['sessions', 'list']));
  assert.match(list.stdout, new RegExp(`^${id} .* 3 turns +Tell me about ${WORDS[0]} please\\n$`));
  const json = JSON.parse((await ok(h.run(['sessions', 'list', '--json']))).stdout);
  assert.equal(json[0].turns, 3);
  const shown = await ok(h.run(['sessions', 'show', 'latest']));
  for (const w of WORDS.slice(0, 3)) assert.ok(shown.stdout.includes(w), `show has ${w}`);
  const exported = JSON.parse((await ok(h.run(['sessions', 'export', id!, '--format', 'json']))).stdout);
  assert.equal(exported.turns.length, 3);
  assert.equal(exported.turns[2].user, `then ${WORDS[2]}`);

  const found = await ok(h.run(['sessions', 'search', WORDS[1]!, '--json']));
  assert.ok(found.stdout.includes(id!) && found.stdout.includes(WORDS[1]!), `search finds the word in the encrypted session: ${found.stdout}`);
  const purged = await ok(h.run(['sessions', 'purge', '--older-than', '1d', '--dry-run']));
  assert.doesNotMatch(purged.stdout + purged.stderr, new RegExp(id!), 'nothing that young is purged');

  assert.deepEqual(plainTextFound(h), []);
  const ring = keyring(h);
  assert.equal(ring.source, 'command');
  assert.deepEqual(Object.keys(ring.keys), [id]);
  assert.equal(fs.statSync(path.join(dataDir(h), 'keyring.json')).mode & 0o777, 0o600);
});

test('turning encryption on converts the plain sessions and prompt history already there; a plain session found later is encrypted at start with one line', async () => {
  const h = newHome();
  await ok(h.run([`first ${WORDS[0]}`]));
  await ok(h.run([`second ${WORDS[1]}`]));
  fs.writeFileSync(path.join(dataDir(h), 'prompt-history.jsonl'), `${JSON.stringify(`typed ${WORDS[3]}`)}\n`, { mode: 0o600 });
  assert.ok(plainTextFound(h).length >= 3, 'the words are there in plain text before');
  const plainCopy = fs.readFileSync(path.join(dataDir(h), 'sessions', `${sessionIds(h)[0]}.json`));

  await ok(h.run(['config', 'set', 'history-key-command', KEY_CMD]));
  const on = await ok(h.run(['config', 'set', 'encrypt', 'on']));
  assert.match(on.stderr, /encrypted 2 saved conversations and the prompt history/);
  assert.deepEqual(plainTextFound(h), []);
  const list = await ok(h.run(['sessions', 'list']));
  assert.equal(list.stdout.trim().split('\n').length, 2);
  assert.match(list.stdout, new RegExp(`first ${WORDS[0]}`));

  // A plain file left by an interrupted conversion (or from before a policy required encryption).
  fs.writeFileSync(path.join(dataDir(h), 'sessions', '20200101-000000-abcd.json'), plainCopy.toString().replace(/"id": "[^"]+"/, '"id": "20200101-000000-abcd"'), { mode: 0o600 });
  const start = await ok(h.run(['sessions', 'list']));
  assert.equal(start.stderr, 'medchat: encrypted 1 saved conversation (encrypt is on)\n');
  assert.equal(start.stdout.trim().split('\n').length, 3);
  assert.deepEqual(plainTextFound(h), []);
});

test('a wrong or missing master key: one line, exit 2, and not one byte of the data folder changed', async () => {
  const h = await encryptedHome();
  await ok(h.run([`about ${WORDS[0]}`]));
  const before = hashes(dataDir(h));
  await ok(h.run(['config', 'set', 'history-key-command', OTHER_KEY_CMD]));
  for (const args of [['-c', 'more'], ['sessions', 'list'], ['sessions', 'show', 'latest'], ['sessions', 'export', 'latest'], ['sessions', 'search', WORDS[0]!], ['a new question']]) {
    const r = await h.run(args);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, /^medchat: history-key-command gave a key that does not open the keyring .*keyring\.json: wrong key, nothing was changed; check the config key history-key-command\n$/);
    assert.equal(r.stdout, '');
  }
  await ok(h.run(['config', 'unset', 'history-key-command']));
  const missing = await h.run(['-c', 'more']);
  assert.equal(missing.code, 2);
  assert.equal(missing.stderr.split('\n').length, 2, missing.stderr);
  assert.match(missing.stderr, /locked with history-key-command, which is not set now/);
  assert.deepEqual(hashes(dataDir(h)), before);
});

test('sessions rm and purge destroy the session key (crypto-shredding); rm --all destroys every one', async () => {
  const h = await encryptedHome();
  await ok(h.run([`one ${WORDS[0]}`]));
  await ok(h.run([`two ${WORDS[1]}`]));
  await ok(h.run([`three ${WORDS[2]}`]));
  const ids = sessionIds(h).sort();
  assert.deepEqual(Object.keys(keyring(h).keys).sort(), ids);
  await ok(h.run(['sessions', 'rm', ids[0]!]));
  assert.ok(!(ids[0]! in keyring(h).keys), 'the wrapped key is gone');
  assert.ok(!fs.existsSync(path.join(dataDir(h), 'sessions', `${ids[0]}.json`)));
  assert.equal((await ok(h.run(['sessions', 'list']))).stdout.trim().split('\n').length, 2);
  // An old conversation (its recorded time and its file's), encrypted at start, then purged.
  const oldId = '20200101-000000-01d0';
  const oldFile = path.join(dataDir(h), 'sessions', `${oldId}.json`);
  const old = new Date(Date.now() - 40 * 86_400_000);
  fs.writeFileSync(oldFile, JSON.stringify({ format: 'medchat-session', version: 1, id: oldId, title: `old ${WORDS[3]}`, createdAt: old.toISOString(), updatedAt: old.toISOString(), model: 'm', turns: [{ id: 't1', user: `old ${WORDS[3]}`, answer: 'a', reasoning: '', status: 'complete', startedAt: 1 }], context: {} }), { mode: 0o600 });
  await ok(h.run(['sessions', 'list']));
  assert.ok(oldId in keyring(h).keys);
  fs.utimesSync(oldFile, old, old);
  const purge = await ok(h.run(['sessions', 'purge', '--older-than', '30d']));
  assert.match(purge.stdout + purge.stderr, new RegExp(oldId));
  assert.deepEqual(Object.keys(keyring(h).keys).sort(), ids.slice(1), 'purge destroys the key of what it deletes');
  assert.deepEqual(sessionIds(h).sort(), ids.slice(1));
  await ok(h.run(['sessions', 'rm', '--all']));
  assert.deepEqual(Object.keys(keyring(h).keys), []);
  assert.deepEqual(sessionIds(h), []);
});

test('without a key command and without a terminal, encryption asks for nothing: one line naming history-key-command, exit 2, nothing stored', async () => {
  const h = newHome();
  await ok(h.run([`about ${WORDS[0]}`]));
  // What medchat stores: the data and config folders (not Node's compile cache, which Node 22 and 24 keep in the home).
  const stored = () => ({ ...hashes(dataDir(h)), ...hashes(path.join(h.home, 'config')) });
  const before = stored();
  const r = await h.run(['config', 'set', 'encrypt', 'on']);
  assert.equal(r.code, 2);
  assert.equal(
    r.stderr,
    'medchat: encrypted history needs a key and there is no terminal to ask for a passphrase; set the config key history-key-command to a command that prints the key (e.g. pass show medchat-history)\n',
  );
  assert.deepEqual(stored(), before);
});

test('turning encryption off: refused without a terminal unless --yes; with it, every file is plain again and the keys are destroyed', async () => {
  const h = await encryptedHome();
  await ok(h.run([`about ${WORDS[0]}`]));
  const before = hashes(dataDir(h));
  const refused = await h.run(['config', 'set', 'encrypt', 'off']);
  assert.equal(refused.code, 2);
  assert.equal(refused.stderr, 'medchat: turning encryption off writes 1 saved conversation back as plain text; to do so, run: medchat config set encrypt off --yes\n');
  assert.deepEqual(hashes(dataDir(h)), before);
  assert.equal((await ok(h.run(['config', 'get', 'encrypt']))).stdout, 'on\n');
  const off = await ok(h.run(['config', 'set', 'encrypt', 'off', '--yes']));
  assert.match(off.stderr, /decrypted 1 saved conversation; their keys were destroyed/);
  assert.equal((await ok(h.run(['config', 'get', 'encrypt']))).stdout, 'off\n');
  assert.deepEqual(Object.keys(keyring(h).keys), []);
  assert.ok(plainTextFound(h).length > 0, 'plain again');
  await ok(h.run(['-c', 'more']));
});

test('the OS store comes first: a secret-tool on PATH with a session bus holds the master key and the key command is never run; without a bus, the key command', async () => {
  const bin = tempDir('medchat-fake-bin-');
  const store = path.join(bin, 'secret-store');
  const calls = path.join(bin, 'calls');
  // A stand-in for libsecret's secret-tool: `store` reads the secret from stdin, `lookup` prints it.
  fs.writeFileSync(
    path.join(bin, 'secret-tool'),
    `#!/bin/sh\necho "$1" >> '${calls}'\ncase "$1" in\n  store) cat > '${store}' ;;\n  lookup) [ -f '${store}' ] || exit 1; cat '${store}' ;;\n  *) exit 2 ;;\nesac\n`,
    { mode: 0o755 },
  );
  const marker = path.join(bin, 'command-ran');
  const env = { PATH: `${bin}${path.delimiter}${process.env.PATH}`, DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent-test-bus' };
  const h = newHome();
  await ok(h.run(['config', 'set', 'history-key-command', `touch '${marker}'; ${KEY_CMD}`]));
  await ok(h.run(['config', 'set', 'encrypt', 'on'], { env }));
  await ok(h.run([`about ${WORDS[0]}`], { env }));
  const shown = await ok(h.run(['sessions', 'show', 'latest'], { env }));
  assert.ok(shown.stdout.includes(WORDS[0]!));
  assert.equal(keyring(h).source, 'secret-service');
  assert.match(fs.readFileSync(store, 'utf8'), /^[A-Za-z0-9+/]{43}=$/, 'a 32-byte key, stored through stdin');
  assert.ok(!fs.existsSync(marker), 'history-key-command was not run');
  assert.deepEqual(plainTextFound(h), []);
  // The secret gone from the store: one line, exit 2, nothing changed.
  fs.rmSync(store);
  const before = hashes(dataDir(h));
  const r = await h.run(['sessions', 'list'], { env });
  assert.equal(r.code, 2);
  assert.match(r.stderr, /^medchat: the history key is missing from the Secret Service \(secret-tool\).*\n$/);
  assert.deepEqual(hashes(dataDir(h)), before);

  const h2 = newHome();
  await ok(h2.run(['config', 'set', 'history-key-command', `touch '${marker}'; ${KEY_CMD}`]));
  await ok(h2.run(['config', 'set', 'encrypt', 'on'], { env: { PATH: env.PATH } }));
  assert.equal(keyring(h2).source, 'command');
  assert.ok(fs.existsSync(marker));
});

test('the chat screen on encrypted history: /sessions lists, /resume opens, the prompt history is sealed and Up recalls it in the next run', { skip: tmuxSkip }, async () => {
  const h = await encryptedHome();
  await ok(h.run([`about ${WORDS[0]}`]));
  const [id] = sessionIds(h);
  const env = { MEDCHAT_BASE_URL: double.url, MEDCHAT_API_KEY: TEST_KEY, TMPDIR: h.tmp };
  const pane = new TmuxPane(['--no-think'], env, { home: h.home });
  try {
    await pane.ready();
    await pane.send('/sessions');
    await pane.waitForText(`about ${WORDS[0]}`);
    await pane.send(`/resume ${id}`);
    await pane.waitForText(new RegExp(`resumed session ${id}`));
    await pane.send(`then ${WORDS[1]}`);
    await pane.waitForText(`You said: then ${WORDS[1]}`);
    pane.press('C-d');
    assert.equal((await pane.exited()).code, 0, pane.screen());
  } finally {
    pane.kill();
  }
  assert.deepEqual(sessionIds(h), [id], 'the resumed session, not a new one');
  assert.match((await ok(h.run(['sessions', 'list']))).stdout, / 2 turns /);
  assert.ok(fs.readFileSync(path.join(dataDir(h), 'prompt-history.jsonl'), 'utf8').startsWith('{"format":"medchat-sealed"'));
  assert.deepEqual(plainTextFound(h), []);

  const again = new TmuxPane(['--no-think'], env, { home: h.home });
  try {
    await again.ready();
    again.press('Up');
    await again.waitForText(`› then ${WORDS[1]}`);
  } finally {
    again.kill();
  }
});

test('a passphrase on a terminal: asked twice when new, once per start after, not echoed; a wrong one is one line, exit 2', { skip: tmuxSkip }, async () => {
  const h = newHome();
  const env = { MEDCHAT_BASE_URL: double.url, MEDCHAT_API_KEY: TEST_KEY, TMPDIR: h.tmp };
  const secret = 'correct horse battery';
  const setOn = new TmuxPane(['config', 'set', 'encrypt', 'on'], env, { home: h.home });
  try {
    await setOn.waitForText('New passphrase for encrypted history');
    setOn.type(secret);
    setOn.press('Enter');
    await setOn.waitForText('Type it again');
    setOn.type(secret);
    setOn.press('Enter');
    assert.equal((await setOn.exited()).code, 0, setOn.screen());
    assert.ok(!setOn.screen().includes(secret), 'not echoed');
  } finally {
    setOn.kill();
  }
  assert.equal(keyring(h).source, 'passphrase');

  const ask = new TmuxPane(['--no-think', `about ${WORDS[0]}`], env, { home: h.home });
  try {
    await ask.waitForText('Passphrase for encrypted history');
    ask.type(secret);
    ask.press('Enter');
    await ask.waitForText(`You said: about ${WORDS[0]}`);
    assert.equal((await ask.exited()).code, 0, ask.screen());
    assert.equal(ask.screen().split('Passphrase for').length, 2, 'asked once');
  } finally {
    ask.kill();
  }
  assert.deepEqual(plainTextFound(h), []);

  const before = hashes(dataDir(h));
  const wrong = new TmuxPane(['sessions', 'list'], env, { home: h.home });
  try {
    await wrong.waitForText('Passphrase for encrypted history');
    wrong.type('not it');
    wrong.press('Enter');
    const end = await wrong.exited();
    assert.equal(end.code, 2, wrong.screen());
    assert.match(wrong.screen(), /medchat: that passphrase does not open the keyring .*: wrong key, nothing was changed/);
  } finally {
    wrong.kill();
  }
  const noTty = await h.run(['sessions', 'list']);
  assert.equal(noTty.code, 2);
  assert.equal(noTty.stderr, 'medchat: encrypted history is locked with a passphrase and there is no terminal to ask for it; run medchat in a terminal to type it\n');
  assert.deepEqual(hashes(dataDir(h)), before);
});

test('a policy that requires encryption converts the plain history at start with one line, and encryption cannot be turned off', async () => {
  const bin = testBuild(); // the bundle with its test hook: MEDCHAT_TEST_POLICY_FILE names the policy
  const policyDir = openToOthers(tempDir('medchat-enc-policy-'));
  const policy = path.join(policyDir, 'policy.json');
  fs.writeFileSync(policy, JSON.stringify({ encrypt: true }), { mode: 0o644 });
  const h = newHome();
  await ok(h.run([`about ${WORDS[0]}`]));
  await ok(h.run(['config', 'set', 'history-key-command', KEY_CMD]));
  assert.ok(plainTextFound(h).length > 0, 'plain before the policy');
  const env = { MEDCHAT_TEST_POLICY_FILE: policy };
  const start = await ok(h.run(['sessions', 'list'], { bin, env }));
  assert.match(start.stderr, /^medchat: encrypted 1 saved conversation \(encrypt is on\)$/m);
  assert.equal(start.stderr.split('encrypted 1 saved').length, 2, 'said once');
  assert.match(start.stdout, new RegExp(`about ${WORDS[0]}`));
  assert.deepEqual(plainTextFound(h), []);
  const again = await ok(h.run(['-c', `and ${WORDS[1]}`], { bin, env }));
  assert.doesNotMatch(again.stderr, /encrypted \d/, 'nothing left to convert');
  assert.deepEqual(plainTextFound(h), []);
  const off = await h.run(['config', 'set', 'encrypt', 'off', '--yes'], { bin, env });
  assert.equal(off.code, 2, off.stderr);
  assert.deepEqual(plainTextFound(h), []);
});
