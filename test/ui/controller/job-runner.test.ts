import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MedchatError } from '../../../src/core/errors.js';
import { ExitCode } from '../../../src/core/exit-codes.js';
import { JobRunner } from '../../../src/ui/controller/job-runner.js';

// The job runner alone: one live line, Esc aborts, a failure becomes a notice.

function runner() {
  const log: string[] = [];
  const jobs = new JobRunner({ changed: () => log.push('changed'), ended: () => log.push('ended'), notice: (text, tone) => log.push(`${tone}: ${text}`) }, () => 1000);
  return { jobs, log };
}

test('a job shows one line whose label the work updates; it is gone when the work ends', async () => {
  const { jobs, log } = runner();
  const labels: string[] = [];
  await jobs.run('sending…', async () => {
    labels.push(jobs.state!.label);
    jobs.setLabel('task 7 · in progress 40%\x1b[2J');
    labels.push(jobs.state!.label);
  });
  assert.deepEqual(labels, ['sending…', 'task 7 · in progress 40%␛[2J']);
  assert.equal(jobs.state, undefined);
  assert.equal(jobs.running, undefined);
  assert.deepEqual(log, ['changed', 'changed', 'ended']);
});

test('stop aborts the work; an interruption says "stopped", other failures their message', async () => {
  const { jobs, log } = runner();
  const job = jobs.run('waiting', (signal) => new Promise((_, reject) => signal.addEventListener('abort', () => reject(new MedchatError('interrupted', ExitCode.interrupted, 'interrupted')))));
  assert.ok(jobs.running, 'the job is running');
  assert.equal(jobs.stop(), true);
  assert.equal(jobs.stop(), false, 'already stopping');
  await job;
  assert.ok(log.includes('warn: stopped'), log.join('\n'));
  await jobs.run('x', async () => {
    throw new MedchatError('image too dark', ExitCode.failure, 'retexture');
  });
  assert.ok(log.includes('error: image too dark'), log.join('\n'));
  assert.equal(jobs.stop(), false, 'nothing runs');
});
