// One retexture job for every front end: the same case run through `medchat retexture --wait` (the
// built binary) and through the chat screen's /retexture job (its job runner, in this process) ends
// the same way, in the same words: a failed task, the deadline passing, a stop while waiting.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Settings } from '../../src/core/config/settings.js';
import { startServiceDouble, type ServiceDouble } from '../../src/stand-in/index.js';
import { JobRunner } from '../../src/ui/controller/job-runner.js';
import { retextureJob } from '../../src/ui/controller/retexture-job.js';
import type { NewItem } from '../../src/ui/controller/screen-state.js';
import { runCli, TEST_KEY, type CliResult } from '../support/cli.js';
import { errorLine } from '../support/watched-run.js';
import { PNG_BYTES, writeTemp } from '../fixtures/images.js';

const POLL_MS = 20;

interface ScreenOutcome {
  /** The notice the screen printed when the job ended (a failure, or "stopped …"), and its tone. */
  notice?: { text: string; tone: 'warn' | 'error' };
  printed: NewItem[];
}

/** `/retexture <args>` as the chat screen runs it: one job on the screen's job runner. */
async function onTheScreen(d: ServiceDouble, args: string, opts: { timeoutMs?: number; stopOnProgress?: boolean } = {}): Promise<ScreenOutcome> {
  const outcome: ScreenOutcome = { printed: [] };
  const runner = new JobRunner({ changed() {}, ended() {}, notice: (text, tone) => (outcome.notice = { text, tone }) });
  await retextureJob(
    {
      settings: { baseUrl: d.url, apiKey: TEST_KEY } as Settings,
      columns: 80,
      previewProtocol: 'blocks',
      pollMs: POLL_MS,
      ...(opts.timeoutMs ? { timeoutMs: opts.timeoutMs } : {}),
      print: (...items) => outcome.printed.push(...items),
      runJob: (label, work) => runner.run(label, work),
      setJobLabel: (label) => {
        runner.setLabel(label);
        if (opts.stopOnProgress && / · in progress /.test(label)) runner.stop();
      },
    },
    args,
  );
  return outcome;
}

/** The same job as `medchat retexture --wait`; `stopOnProgress` sends Ctrl+C (SIGINT) once progress shows. */
function onTheCommandLine(d: ServiceDouble, args: string[], opts: { stopOnProgress?: boolean } = {}): Promise<CliResult> {
  return runCli(['retexture', '--wait', '--poll-interval', String(POLL_MS / 1000), ...args], {
    baseUrl: d.url,
    onSpawn: (child) => {
      if (!opts.stopOnProgress) return;
      let stderr = '';
      child.stderr!.on('data', (c: Buffer) => {
        const had = stderr.includes(': in progress');
        stderr += c;
        if (!had && stderr.includes(': in progress')) child.kill('SIGINT');
      });
    },
  });
}

/** What the command said, as the screen would say it: its last stderr line without the `medchat: ` prefix. */
const said = (r: CliResult) => errorLine(r).replace(/^medchat: /, '');

describe('the chat screen and `medchat retexture` run one job: same outcome, same words', () => {
  let d: ServiceDouble;
  let png: string;
  before(async () => {
    d = await startServiceDouble();
    png = writeTemp('scan.png', PNG_BYTES);
  });
  after(() => d.close());

  it('a failed task: its reason, exit 6 on the command line', async () => {
    // Both submits create the same task (one id, one scripted life), so both runs meet the same case.
    const task = { id: '7001', life: { steps: [{ status: 'IN_PROGRESS', progress: '10%' }], end: 'FAILURE' as const, failReason: 'image too dark to process' } };
    d.retexture.enqueue(task, task);
    const [cli, screen] = await Promise.all([onTheCommandLine(d, ['--image', png, 'brighter']), onTheScreen(d, `${png} brighter`)]);
    assert.equal(cli.code, 6, cli.stderr);
    assert.equal(said(cli), 'task 7001 failed: image too dark to process');
    assert.deepEqual(screen.notice, { text: said(cli), tone: 'error' });
    assert.equal(screen.printed.filter((i) => i.kind === 'notice').length, 0, 'nothing printed as done');
  });

  it('a task that never finishes: the deadline, how the task stood, and how to come back (exit 7)', async () => {
    // Generous: the point is the words, not the speed; a poll must be answered before the deadline.
    const seconds = 3;
    const task = { id: '7002', life: { steps: [], end: 'never' as const } };
    d.retexture.enqueue(task, task);
    const [cli, screen] = await Promise.all([onTheCommandLine(d, ['--image', png, '--timeout', String(seconds), 'sepia']), onTheScreen(d, `${png} sepia`, { timeoutMs: seconds * 1000 })]);
    assert.equal(cli.code, 7, cli.stderr);
    assert.equal(cli.stdout, '7002\n', 'the id on stdout, to come back to');
    assert.equal(said(cli), `task 7002 did not finish within ${seconds}s (still IN_PROGRESS at 99%); check again later with: medchat task 7002 --wait`);
    assert.deepEqual(screen.notice, { text: said(cli), tone: 'error' });
  });

  it('stopped while waiting (Ctrl+C, Esc): the task goes on, and how to follow it', async () => {
    const task = { id: '7003', life: { steps: [{ status: 'IN_PROGRESS', progress: '5%' }], end: 'never' as const } };
    d.retexture.enqueue(task, task);
    const [cli, screen] = await Promise.all([onTheCommandLine(d, ['--image', png, 'charcoal'], { stopOnProgress: true }), onTheScreen(d, `${png} charcoal`, { stopOnProgress: true })]);
    assert.equal(cli.code, 130, cli.stderr);
    assert.equal(said(cli), 'stopped waiting; task 7003 goes on — follow it with: medchat task 7003 --wait');
    assert.deepEqual(screen.notice, { text: said(cli), tone: 'warn' });
  });
});
