import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ProgressReporter } from '../../src/core/retexture/progress.js';
import { normaliseRecord } from '../../src/core/retexture/task-poll.js';

function fakeStream(isTTY: boolean) {
  const out: string[] = [];
  return { stream: { isTTY, columns: 100, write: (s: string) => (out.push(s), true) } as unknown as NodeJS.WriteStream, out };
}

const update = (status: string, progress: string, changed = true) => ({ record: normaliseRecord({ status, progress }, '0123'), elapsedMs: 65_000, changed });

describe('progress on stderr', () => {
  it('on a terminal: a bar redrawn in place with status, percent and elapsed time, cleared at the end', () => {
    const { stream, out } = fakeStream(true);
    const p = new ProgressReporter(stream, '0123', { tty: true, colour: false });
    p.update(update('IN_PROGRESS', '50%'));
    p.stop();
    const last = out.at(-2)!;
    assert.ok(last.startsWith('\r\x1b[2K'));
    assert.match(last, /in progress  ████████████░░░░░░░░░░░░  50%  1m05s  task 0123$/);
    assert.equal(out.at(-1), '\r\x1b[2K');
  });

  it('colour only when allowed', () => {
    const { stream, out } = fakeStream(true);
    const p = new ProgressReporter(stream, '0123', { tty: true, colour: true });
    p.update(update('IN_PROGRESS', '50%'));
    p.stop();
    assert.match(out.join(''), /\x1b\[36m█/);
  });

  it('off a terminal: one plain line per change, nothing for repeats', () => {
    const { stream, out } = fakeStream(false);
    const p = new ProgressReporter(stream, '0123', { tty: false, colour: false });
    p.update(update('SUBMITTED', ''));
    p.update(update('IN_PROGRESS', '10%'));
    p.update(update('IN_PROGRESS', '10%', false));
    p.note('the service failed (502) (retrying)');
    p.stop();
    assert.deepEqual(out, ['medchat: task 0123: queued\n', 'medchat: task 0123: in progress 10%\n', 'medchat: the service failed (502) (retrying)\n']);
  });

  it('service text cannot drive the terminal', () => {
    const { stream, out } = fakeStream(false);
    const p = new ProgressReporter(stream, '0123', { tty: false, colour: false });
    p.update(update('IN_PROGRESS', '\x1b]52;c;aGk=\x07 7%'));
    assert.doesNotMatch(out.join(''), /\x1b/);
  });
});
