/** `medchat batch`: flags in; answers, progress, a summary and an exit code out. */
import fs from 'node:fs';
import path from 'node:path';
import { ConfigStore } from '../../core/config/config-store.js';
import { MedchatError, usageError } from '../../core/errors.js';
import { ExitCode } from '../../core/exit-codes.js';
import { FileWriteError } from '../../core/io/atomic-file.js';
import type { FileOps } from '../../core/io/file-ops.js';
import { OutputWriter, describeWriteFailure, writeStderrLine } from '../../core/io/output.js';
import { jsonForTerminal, sanitizeLine } from '../../core/text/sanitize.js';
import { configDir } from '../../core/config/paths.js';
import { resolvePrivacy, type PrivacyChoice } from '../../core/privacy/choice.js';
import { plannerForFlags } from '../../core/request/request-plan.js';
import { rolesDir } from '../../core/request/roles/store.js';
import { resolveSettings, type FlagValues } from '../../core/config/settings.js';
import { describeCounts } from '../../core/privacy/kinds.js';
import { exitCodeForSignal, onStopSignals, type StopSignal } from '../../core/io/signals.js';
import { MAX_INPUT_BYTES } from '../../core/io/stdin.js';
import { colourAllowed, isTty, red, yellow } from '../../core/io/terminal.js';
import { AnswersFile } from '../../core/batch/answers-file.js';
import { BatchInput } from '../../core/batch/input.js';
import { idKey, type BatchItem } from '../../core/batch/items.js';
import { formatDuration, formatTokens } from '../../core/text/format.js';
import { BatchProgress } from '../../core/batch/progress.js';
import type { AnswerRecord, PrivacyTally } from '../../core/batch/answer-item.js';
import { BatchScheduler, STOP_GRACE_MS } from '../../core/batch/scheduler.js';
import { cliBatchText } from '../../core/i18n/messages/cli-batch.js';

export interface BatchFlags {
  output?: string;
  jobs?: string;
  lines?: boolean;
  ordered?: boolean;
  system?: string;
  role?: string;
  schema?: string;
  schemaMulti?: boolean;
  think?: boolean;
  /** The patient-identifier guard: warn (default: config `privacy`), redact, off; --shift-dates with redact. */
  privacy?: string;
  shiftDates?: boolean;
  maxTokens?: string;
  temperature?: string;
  retries?: string;
}

interface BatchIo {
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
  /** File calls for the answers file (tests put faults in them). */
  ops?: FileOps;
  /** false: leave SIGINT/SIGTERM/SIGHUP alone (in-process tests). */
  signals?: boolean;
  env?: NodeJS.ProcessEnv;
}

const DEFAULT_JOBS = 4;
const DEFAULT_BATCH_RETRIES = 4;
/**
 * "Never more than 30 s in all because the service asked", per question: one question waits at
 * most this long for `retry-after`, all its waits together, and the run holds new questions at
 * most this long for one refusal. A longer (or endless) retry-after is taken as this; the question
 * then asked again and refused again fails with its error line (rerun to ask it again).
 */
const BATCH_MAX_RETRY_AFTER_MS = 30_000;
const BATCH_MAX_EACH_RETRY_AFTER_MS = 30_000;

const defaultIo = (): BatchIo => ({ stdin: process.stdin, stdout: process.stdout, stderr: process.stderr });

function wholeNumber(flag: string, value: string | undefined, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || n < min || n > max) throw usageError(cliBatchText.wholeNumber(flag, min, max, value));
  return n;
}

/** The run's one line about the guard, or undefined when it found nothing. */
function privacyLine(privacy: PrivacyChoice, tally: PrivacyTally): string | undefined {
  if (!tally.questions) return undefined;
  const what = cliBatchText.privacyHeld(tally.questions, describeCounts(tally.counts));
  return privacy.mode === 'redact'
    ? cliBatchText.privacyRedacted(what)
    : cliBatchText.privacyWarned(what);
}

export async function runBatchCommand(source: string, o: BatchFlags, flags: FlagValues, io: BatchIo = defaultIo()): Promise<number> {
  const jobs = wholeNumber('-j', o.jobs, DEFAULT_JOBS, 1, 256);
  const retries = wholeNumber('--retries', o.retries, DEFAULT_BATCH_RETRIES, 0, 20);
  const env = io.env ?? process.env;
  const store = new ConfigStore(env);
  // The shared planner (request-plan.ts: role, -s, --schema; what the command line set wins over the role).
  const { planner } = await plannerForFlags(o, () => resolveSettings({ flags, store, env }), { rolesFolder: rolesDir(env), configFile: path.join(configDir(env), 'config.json') });
  const privacy = resolvePrivacy(o, store, env);
  const tally: PrivacyTally = { questions: 0, counts: {} };
  const settings = planner.settings;
  const colour = colourAllowed(io.stderr, io.env);
  const say = (line: string) => io.stderr.write(`${line}\n`);

  let answers: AnswersFile | undefined;
  let scheduler: BatchScheduler | undefined;
  let input: BatchInput | undefined;
  // Ctrl+C (or SIGTERM, SIGHUP): before the run, leave at once (nothing was sent); during it, the
  // first one stops it (`onStop`), a second one leaves at once. Every line written is whole.
  let stoppedBy: StopSignal | undefined;
  let onStop: ((signal: StopSignal) => void) | undefined;
  const removeSignals =
    io.signals === false
      ? () => {}
      : onStopSignals((signal) => {
          if (stoppedBy || !onStop) {
            if (onStop) writeStderrLine(cliBatchText.leftAtOnce(answers?.file));
            input?.dispose();
            process.exit(exitCodeForSignal[signal]);
          }
          stoppedBy = signal;
          onStop(signal);
        });
  try {
    input = await BatchInput.open(source, { mode: o.lines ? 'lines' : 'jsonl', maxLineBytes: MAX_INPUT_BYTES, stdin: io.stdin });
    const scan = await input.scan();
    if (scan.problemCount) {
      for (const p of scan.problems) say(`  ${input.name} ${sanitizeLine(p)}`);
      if (scan.problemCount > scan.problems.length) say(cliBatchText.andMore(scan.problemCount - scan.problems.length));
      throw usageError(cliBatchText.unusable(input.name, scan.problemCount));
    }
    if (!scan.total) throw usageError(cliBatchText.noQuestions(input.name));

    let answered = new Set<string>();
    if (o.output !== undefined) {
      checkNotTheInput(o.output, input);
      const opened = await AnswersFile.open(o.output, {
        ops: io.ops,
        inputIds: scan.ids,
        onFailure: (err) => scheduler?.fail(writeFailure(err, answers)),
      }).catch((err: unknown) => {
        throw err instanceof FileWriteError ? openFailure(err) : err;
      });
      answers = opened.out;
      answered = opened.resume.answered;
      // i18n-exempt: the command's name before a note in the catalogue's words
      if (opened.resume.lockNote) say(`medchat batch: ${opened.resume.lockNote}`);
      if (opened.resume.tornBytes > 0) say(yellow(cliBatchText.tornLine(o.output, opened.resume.tornBytes), colour));
      if (opened.resume.retried) say(cliBatchText.askingAgain(opened.resume.retried));
    }
    let skipped = 0;
    for (const key of scan.ids.keys()) if (answered.has(key)) skipped++;
    scan.ids.clear(); // not needed from here on: 100,000 ids are ~10 MB
    const todo = scan.total - skipped;
    if (skipped) say(cliBatchText.alreadyAnswered(skipped, scan.total, o.output, todo));
    if (!todo) {
      answers?.close();
      return ExitCode.ok;
    }

    const stdout = o.output === undefined ? new OutputWriter(io.stdout) : undefined;
    const stdoutTty = isTty(io.stdout);
    const write = async (record: AnswerRecord) => {
      if (answers) {
        try {
          answers.append(record);
        } catch (err) {
          throw writeFailure(err, answers);
        }
        return;
      }
      await stdout!.write((stdoutTty ? jsonForTerminal(record) : JSON.stringify(record)) + '\n');
      if (stdout!.closed) throw stdoutClosed(stdout!);
    };
    // A write to stdout fails after the line was handed over (the error comes a turn later): the
    // run ends as soon as it does, and once more after the last flush, so no failure goes unchecked.
    stdout?.whenClosed(() => scheduler?.fail(stdoutClosed(stdout)));

    // The redrawn bar only when the answers do not go to the same terminal (they would tear it).
    const progress = new BatchProgress(io.stderr, todo, { tty: isTty(io.stderr) && !(stdout && stdoutTty), colour });
    const run = (scheduler = new BatchScheduler({
      planner,
      privacy,
      tally,
      jobs,
      retries,
      maxRetryAfterMs: BATCH_MAX_RETRY_AFTER_MS,
      maxEachRetryAfterMs: BATCH_MAX_EACH_RETRY_AFTER_MS,
      ordered: Boolean(o.ordered),
      write,
      onChange: (e) => {
        if (e.type === 'limit' && e.throttle) {
          const limit = e.change ? cliBatchText.atATime(e.change.from, e.change.to) : '';
          progress.note(yellow(cliBatchText.limited(String(e.throttle.status), limit, holdNote(e.throttle.retryAfterMs, e.holdMs)), colour));
        }
        progress.update({ stats: run.stats, inFlight: run.inFlight, limit: run.rate.limit, max: jobs });
      },
    }));

    onStop = () => {
      run.stop();
      const n = run.inFlight;
      progress.note(cliBatchText.stopping(n, STOP_GRACE_MS / 1000));
    };
    const questions = input;
    const items = async function* () {
      for await (const item of questions.items()) if (!answered.has(idKey(item.id))) yield item as BatchItem;
    };
    try {
      await run.run(items());
    } finally {
      progress.end();
    }
    try {
      answers?.close();
    } catch (err) {
      run.fail(writeFailure(err, answers));
    }
    if (stdout) {
      await stdout.flush();
      if (stdout.closed) run.fail(stdoutClosed(stdout));
    }

    const { stats } = run;
    const tokens = cliBatchText.tokens(formatTokens(stats.promptTokens), formatTokens(stats.completionTokens));
    say(cliBatchText.summary(stats.answered, stats.failed, skipped, formatDuration(progress.elapsedMs), tokens));
    const guarded = privacyLine(privacy, tally);
    if (guarded) say(yellow(guarded, colour));
    const rerun = answers ? cliBatchText.rerun : undefined;
    const fatal = run.fatal;
    if (fatal?.kind === 'reader-gone') return ExitCode.ok;
    if (fatal) {
      say(red(cliBatchText.fatal(sanitizeLine(fatal.message), fatal.kind !== 'write' ? rerun : undefined), colour));
      return fatal.exitCode;
    }
    const left = todo - stats.answered - stats.failed;
    if (stoppedBy) {
      say(cliBatchText.interrupted(left, rerun));
      return exitCodeForSignal[stoppedBy];
    }
    if (stats.failed) {
      say(yellow(cliBatchText.failed(stats.failed, rerun), colour));
      return ExitCode.batchFailures;
    }
    return ExitCode.ok;
  } finally {
    removeSignals();
    try {
      answers?.close();
    } catch {
      // reported above
    }
    input?.dispose();
  }
}

/** What the run waits for after a refusal: what the service asked, or the cap when it asked for more. */
function holdNote(asked: number | undefined, holdMs: number | undefined): string {
  if (!holdMs || asked === undefined) return '';
  if (asked <= holdMs) return cliBatchText.waitingAsAsked(formatDuration(asked));
  const what = Number.isFinite(asked) ? formatDuration(asked) : cliBatchText.noEnd;
  return cliBatchText.waitingAtMost(what, formatDuration(holdMs));
}

/** stdout can take no more: its reader went away (a quiet stop, exit 0) or a write failed (exit 1). */
function stdoutClosed(stdout: OutputWriter): MedchatError {
  return stdout.readerGone || !stdout.failure
    ? // i18n-exempt: never shown (the run ends quietly when the reader goes)
      new MedchatError('the reader of stdout went away', ExitCode.ok, 'reader-gone')
    : new MedchatError(describeWriteFailure('stdout', stdout.failure), ExitCode.failure, 'write');
}

/** Writing the answers to the file the questions come from would destroy them. */
function checkNotTheInput(output: string, input: BatchInput): void {
  let out: fs.Stats;
  try {
    out = fs.statSync(output);
  } catch {
    return;
  }
  const inp = input.stat();
  if (out.dev === inp.dev && out.ino === inp.ino) throw usageError(cliBatchText.outputIsInput(output));
}

/** The answers file cannot be opened: a path to change (2), or a disk to fix (1). */
function openFailure(err: FileWriteError): MedchatError {
  const pathProblem = ['ENOENT', 'ENOTDIR', 'EISDIR', 'EACCES', 'EPERM', 'EROFS', 'ELOOP', 'ENAMETOOLONG'].includes(err.code);
  return new MedchatError(`${err.message}; ${pathProblem ? cliBatchText.chooseAnotherOutput : err.nextStep}`, pathProblem ? ExitCode.usage : ExitCode.failure, 'write');
}

/** A failed write of the answers file as the one line to show. */
function writeFailure(err: unknown, answers: AnswersFile | undefined): MedchatError {
  if (err instanceof MedchatError) return err;
  const saved = answers ? cliBatchText.savedBefore : '';
  if (err instanceof FileWriteError) {
    return new MedchatError(cliBatchText.writeFailed(err.message, saved, err.nextStep), ExitCode.failure, 'write');
  }
  return new MedchatError(cliBatchText.cannotWrite((err as Error).message, saved), ExitCode.failure, 'write');
}
