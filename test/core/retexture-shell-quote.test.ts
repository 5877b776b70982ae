// Commands medchat suggests ("come back with: medchat task <id> --wait") are pasted into a shell:
// whatever a word holds, the shell must get back exactly that word and run nothing else.
// Generated words from a seeded PRNG; MEDCHAT_SEED=<n> replays a run.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { shellQuote } from '../../src/core/text/shell-quote.js';
import { isUsableTaskId } from '../../src/core/retexture/task-id.js';
import { comeBackCommand } from '../../src/core/retexture/task-poll.js';
import { seededRandom } from '../support/prng.js';

const SEED = Number(process.env.MEDCHAT_SEED ?? Date.now() % 1_000_000);

// Everything a shell treats specially, plus plain characters, whitespace, newlines and non-ASCII.
const ALPHABET = [..."abcXYZ019-_./ '\"\\`$!;|&<>(){}[]*?#~=%^,:@+\t\n\r", 'é', '中', '\u202e', '\u0007', '\u001b'];

function word(rand: () => number): string {
  const n = Math.floor(rand() * 12);
  let s = '';
  for (let i = 0; i < n; i++) s += ALPHABET[Math.floor(rand() * ALPHABET.length)];
  return s;
}

describe('shellQuote', () => {
  it('leaves plain words alone and quotes the rest', () => {
    assert.equal(shellQuote('1712345678901234567'), '1712345678901234567');
    assert.equal(shellQuote('out/result-1.png'), 'out/result-1.png');
    assert.equal(shellQuote(''), "''");
    assert.equal(shellQuote('-rf'), "'-rf'");
    assert.equal(shellQuote('1 ; curl x | sh ;'), "'1 ; curl x | sh ;'");
    assert.equal(shellQuote("it's"), "'it'\\''s'");
    assert.equal(shellQuote('~/x'), "'~/x'");
  });

  it(`any word comes back from sh exactly, running nothing else (seed ${SEED})`, (t) => {
    const rand = seededRandom(SEED);
    const words = Array.from({ length: 400 }, () => word(rand));
    // One sh run: each quoted word is an argument to printf, NUL-separated on the way back.
    const script = `printf '%s\\0' ${words.map(shellQuote).join(' ')}`;
    const r = spawnSync('sh', ['-c', script], { encoding: 'utf8', env: { PATH: process.env.PATH, HOME: '/nonexistent' } });
    if (r.status !== 0 || r.stdout.split('\0').slice(0, -1).length !== words.length) {
      t.diagnostic(`replay with MEDCHAT_SEED=${SEED}`);
    }
    assert.equal(r.status, 0, `sh failed (MEDCHAT_SEED=${SEED}): ${r.stderr}`);
    const back = r.stdout.split('\0').slice(0, -1);
    for (let i = 0; i < words.length; i++) assert.equal(back[i], words[i], `word ${i} ${JSON.stringify(words[i])} (MEDCHAT_SEED=${SEED})`);
  });

  it(`a suggested command for any usable id runs medchat with exactly that id (seed ${SEED})`, () => {
    const rand = seededRandom(SEED + 1);
    const ids: string[] = [];
    while (ids.length < 200) {
      const w = word(rand);
      if (isUsableTaskId(w)) ids.push(w);
      else ids.push(`7${w.replace(/[^A-Za-z0-9_.:@+=~-]/g, '')}`);
    }
    const script = ids.map((id) => comeBackCommand(id).replace(/^medchat /, 'printf "%s\\0" ')).join('; ');
    const r = spawnSync('sh', ['-c', script], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    const back = r.stdout.split('\0').slice(0, -1);
    assert.deepEqual(back, ids.flatMap((id) => ['task', id, '--wait']), `MEDCHAT_SEED=${SEED}`);
  });
});
