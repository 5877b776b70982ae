import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FrameWriter, diffLines, parseFrame } from '../../src/ui/frame-writer.js';

const erase = (n: number) => '\x1b[2K\x1b[1A'.repeat(n - 1) + '\x1b[2K\x1b[G';

test('a growing line is sent as just its new end; unchanged lines are skipped', () => {
  const out = diffLines(['answer so', 'footer', ''], ['answer so far', 'footer', ''], 80);
  assert.equal(out, '\x1b[2A\r\x1b[10G far\x1b[K\n\n');
});

test('Ink frames are recognised; anything else passes through untouched', () => {
  assert.deepEqual(parseFrame(erase(3) + 'a\nb\n'), { erase: 3, content: 'a\nb\n', sync: false });
  assert.equal(parseFrame('\x1b[2J\x1b[3J\x1b[H'), undefined);
  const sent: string[] = [];
  const w = new FrameWriter({ write: (d: string) => sent.push(d) }, () => 80);
  w.write('text one\nfooter\n');
  w.flush();
  w.write(erase(3) + 'text one more\nfooter\n');
  w.flush();
  assert.equal(sent[1], '\x1b[2A\r\x1b[9G more\x1b[K\n\n');
  w.write('\x1b[2J\x1b[H');
  w.flush();
  assert.equal(sent[2], '\x1b[2J\x1b[H');
});
