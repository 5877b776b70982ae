// The job the chat screen's /retexture, `medchat retexture` and `medchat task` run, against the real double over HTTP.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MedchatError } from '../../src/core/errors.js';
import { runRetextureJob, type RetextureEvent } from '../../src/core/retexture/index.js';
import { startServiceDouble, type ServiceDouble } from '../../src/stand-in/index.js';
import { PNG_BYTES, writeTemp } from '../fixtures/images.js';

describe('runRetextureJob (the chat screen and the commands)', () => {
  let d: ServiceDouble;
  before(async () => (d = await startServiceDouble()));
  after(() => d.close());
  const conn = () => ({ baseUrl: d.url, apiKey: 'sk-job' });

  it('submits, reports progress, downloads the result and draws a preview', async () => {
    d.retexture.enqueue({ id: '0900719925474099312', life: { steps: [{ status: '' }, { status: 'IN_PROGRESS', progress: '40%' }] } });
    const events: RetextureEvent[] = [];
    const result = await runRetextureJob({
      connection: conn(),
      image: writeTemp('in.png', PNG_BYTES),
      prompt: 'make it blue',
      pollIntervalMs: 5,
      onEvent: (e) => events.push(e),
      preview: { protocol: 'blocks', columns: 8, trueColour: true },
    });
    assert.equal(result.taskId, '0900719925474099312');
    assert.equal(result.imageUrl, `${d.url}/mj/image/0900719925474099312.png`);
    assert.deepEqual(
      events.map((e) => (e.type === 'progress' ? `progress ${e.label}` : e.type)),
      ['submitted', 'following', 'progress waiting', 'progress in progress 40%', 'progress done 100%', 'finished', 'downloading'],
    );
    assert.equal(result.preview?.protocol, 'blocks');
    assert.match(result.preview!.text, /▀/);
    assert.equal(d.retexture.imageRequests.at(-1)?.headers.authorization, 'Bearer sk-job');
  });

  it('throws exit code 6 with the reason when the task fails', async () => {
    d.retexture.enqueue({ life: { steps: [], end: 'FAILURE', failReason: 'image too dark' } });
    await assert.rejects(
      runRetextureJob({ connection: conn(), image: writeTemp('in.png', PNG_BYTES), prompt: 'x', pollIntervalMs: 5, preview: false }),
      (err: unknown) => err instanceof MedchatError && err.exitCode === 6 && /failed: image too dark/.test(err.message),
    );
  });

  it('throws exit code 7 at the deadline', async () => {
    d.retexture.enqueue({ life: { end: 'never' } });
    await assert.rejects(
      runRetextureJob({ connection: conn(), image: writeTemp('in.png', PNG_BYTES), prompt: 'x', pollIntervalMs: 5, timeoutMs: 60, preview: false }),
      (err: unknown) => err instanceof MedchatError && err.exitCode === 7 && err.kind === 'deadline',
    );
  });

  it('stops when the signal is aborted', async () => {
    d.retexture.enqueue({ life: { end: 'never' } });
    const controller = new AbortController();
    await assert.rejects(
      runRetextureJob({
        connection: conn(),
        image: writeTemp('in.png', PNG_BYTES),
        prompt: 'x',
        pollIntervalMs: 5,
        signal: controller.signal,
        preview: false,
        onEvent: (e) => e.type === 'progress' && controller.abort(),
      }),
      (err: unknown) => err instanceof MedchatError && err.kind === 'interrupted' && err.exitCode === 130,
    );
  });
});
