import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { test } from 'node:test';
import { MedchatError } from '../../src/core/errors.js';
import { composeQuestion, fileBlock } from '../../src/core/request/inputs/blocks.js';
import { readInputFiles } from '../../src/core/request/inputs/files.js';
import { refuseFilesThatCannotFit } from '../../src/core/request/inputs/fit.js';
import { fencedBlocks } from '../../src/core/request/schema/extract.js';
import { Prng, seedFromEnv } from '../support/prng.js';

const usage = async (p: Promise<unknown>, pattern: RegExp) =>
  assert.rejects(p, (e: unknown) => e instanceof MedchatError && e.exitCode === 2 && pattern.test(e.message) && !e.message.includes('\n'));

test('a file block: its name, then its text in a fence', () => {
  assert.equal(fileBlock({ name: 'labs.csv', text: 'Na,140\nK,4.1\n', bytes: 14 }), 'File: labs.csv\n```\nNa,140\nK,4.1\n```');
  assert.equal(
    composeQuestion({ files: [{ name: 'a.txt', text: 'A', bytes: 1 }, { name: 'b.txt', text: 'B', bytes: 1 }], stdin: 'piped\n', prompt: 'summarise the course' }),
    'File: a.txt\n```\nA\n```\n\nFile: b.txt\n```\nB\n```\n\npiped\n\nsummarise the course',
  );
});

test('property: the fence is longer than any backtick run in the file, so the block holds the whole file', () => {
  const seed = seedFromEnv();
  const rng = new Prng(seed);
  const pieces = ['`', '``', '```', '````', '~~~', '\n', 'text', ' ', '```json\n', '\n```\n', 'é'];
  for (let i = 0; i < 300; i++) {
    const r = rng.fork(i);
    let text = '';
    for (let n = r.int(0, 30); n > 0; n--) text += r.pick(pieces);
    const block = fileBlock({ name: 'f.md', text, bytes: 0 });
    const blocks = fencedBlocks(block.split('\n').slice(1).join('\n'));
    assert.equal(blocks.length, 1, `MEDCHAT_SEED=${seed} case ${i}: ${JSON.stringify(text)}`);
    assert.equal(blocks[0]!.body, text.replace(/\s+$/, ''), `MEDCHAT_SEED=${seed} case ${i}`);
  }
});

test('files are refused before sending: missing, a folder, binary, not UTF-8, too big (with the numbers)', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'medchat-files-'));
  const f = (name: string, data: string | Buffer) => {
    fs.writeFileSync(path.join(dir, name), data);
    return path.join(dir, name);
  };
  try {
    await usage(readInputFiles([path.join(dir, 'nope.txt')], { maxBytes: 1000 }), /-f .*nope\.txt: no such file$/);
    await usage(readInputFiles([dir], { maxBytes: 1000 }), /it is a folder/);
    await usage(readInputFiles([f('scan.pdf', Buffer.from([0x25, 0x50, 0x44, 0x46, 0x00, 0x01]))], { maxBytes: 1000 }), /looks binary \(a NUL byte at byte 4 of 6\)/);
    await usage(readInputFiles([f('latin1.txt', Buffer.from([0x63, 0x61, 0x66, 0xe9]))], { maxBytes: 1000 }), /is not UTF-8 text/);
    await usage(readInputFiles([f('big.txt', 'x'.repeat(3000))], { maxBytes: 2048 }), /big\.txt: is 3 KB, more than the 2 KB it may be; send a part of it \(the bound is set by the context window\)$/);
    await usage(readInputFiles(['-', '-'], { maxBytes: 1000 }), /more than once/);
    await usage(readInputFiles(['-'], { maxBytes: 1000, stdinIsTerminal: true }), /stdin is a terminal/);
    const ok = await readInputFiles([f('note.txt', '\uFEFFChest pain.\n'), '-'], { maxBytes: 1000, stdin: Readable.from([Buffer.from('from stdin')]) });
    assert.deepEqual(ok, [
      { name: path.join(dir, 'note.txt'), text: 'Chest pain.\n', bytes: 15 },
      { name: 'stdin', text: 'from stdin', bytes: 10 },
    ]);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('files too big for the window (in tokens) are refused with each file\'s count and the room there is', async () => {
  const big = { name: 'notes.txt', text: 'word '.repeat(2000), bytes: 10000 };
  const messages = [{ role: 'user' as const, content: composeQuestion({ files: [big], prompt: 'q' }) }];
  await usage(
    refuseFilesThatCannotFit(messages, [big], { contextWindow: 2048, maxTokens: 1024 }),
    /the files are too big for the context window: notes\.txt 2k tokens; with the question that is about 2(?:\.\d)?k tokens, but the 2k window leaves 1k for the prompt after 1k for the answer/,
  );
  await refuseFilesThatCannotFit(messages, [big], { contextWindow: 131072, maxTokens: 8192 });
});
