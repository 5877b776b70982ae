/** The `medchat retexture` and `medchat task` commands: flags in, stdout/stderr and an exit code out. */
import { ConfigStore } from '../config-store.js';
import { MedchatError, usageError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import { sanitizeForTerminal } from '../sanitize.js';
import { redactedJson } from '../secret-redactor.js';
import { KEY_FLAG_WARNING, resolveSettings } from '../settings.js';
import { abortOnStopSignals, exitCodeForSignal } from '../signals.js';
import { colourAllowed, isTty } from '../terminal.js';
import { downloadImage, extensionMismatch, outputPathFor, writeFileAtomic, type DownloadedImage } from './download.js';
import { loadImageInput, parseMaxImageMb } from './image-input.js';
import { renderPreview } from './preview.js';
import { ProgressReporter } from './progress.js';
import { isAbort, type ServiceConnection } from './service-http.js';
import { checkNotifyHook, submitRetexture } from './submit.js';
import {
  DEFAULT_POLL_INTERVAL_MS,
  DEFAULT_TIMEOUT_MS,
  fetchTask,
  followTask,
  isFinal,
  outcomeError,
  parseSeconds,
  type FollowOutcome,
  type TaskRecord,
} from './task-poll.js';
import { checkTaskIdArgument } from './task-id.js';

export interface ServiceFlags {
  baseUrl?: string;
  apiKey?: string;
}

export interface FollowFlags extends ServiceFlags {
  wait?: boolean;
  output?: string;
  json?: boolean;
  pollInterval?: string;
  timeout?: string;
  preview?: boolean;
}

export interface RetextureFlags extends FollowFlags {
  prompt?: string;
  image?: string;
  state?: string;
  notifyHook?: string;
  /** commander's `--no-storage`: false when given, true (the default) otherwise. */
  storage?: boolean;
  maxImageMb?: string;
}

interface Io {
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
}

const defaultIo = (): Io => ({ stdout: process.stdout, stderr: process.stderr });

function connection(o: ServiceFlags): ServiceConnection {
  const settings = resolveSettings({ flags: { 'base-url': o.baseUrl, 'api-key': o.apiKey }, store: new ConfigStore() });
  return { baseUrl: settings.baseUrl, apiKey: settings.apiKey };
}

function followSettings(o: FollowFlags) {
  const intervalMs = parseSeconds('--poll-interval', o.pollInterval, DEFAULT_POLL_INTERVAL_MS);
  const timeoutMs = parseSeconds('--timeout', o.timeout, DEFAULT_TIMEOUT_MS);
  if (o.output !== undefined && o.output.trim() === '') throw usageError('--output needs a path (or - for stdout)');
  // --output and --preview need the finished image, so they imply --wait.
  const wait = Boolean(o.wait || o.output !== undefined || o.preview);
  return { intervalMs, timeoutMs, wait };
}

/** Text for a terminal is made safe; text for a pipe goes out exactly as received. */
const forStream = (s: string, stream: NodeJS.WriteStream) => (isTty(stream) ? sanitizeForTerminal(s) : s);

/** `medchat retexture`. */
export async function runRetextureCommand(words: string[], o: RetextureFlags, io: Io = defaultIo()): Promise<number> {
  const positional = words.length ? words.join(' ') : undefined;
  if (positional !== undefined && o.prompt !== undefined) throw usageError('give the prompt once: either --prompt "…" or as an argument');
  const prompt = o.prompt ?? positional;
  if (prompt === undefined || prompt.trim() === '') throw usageError('give a prompt: medchat retexture --image <file|url|-> "<prompt>"');
  if (o.image === undefined) throw usageError('give an image: --image <file|url|-> (- reads it from stdin)');
  const notifyHook = o.notifyHook !== undefined ? checkNotifyHook(o.notifyHook) : undefined;
  const maxBytes = parseMaxImageMb(o.maxImageMb);
  const follow = followSettings(o);
  if (o.output === '-' && isTty(io.stdout)) throw usageError('--output - writes the image to stdout, which is a terminal; redirect it to a file');
  const image = await loadImageInput(o.image, { maxBytes });
  if (o.apiKey) io.stderr.write(KEY_FLAG_WARNING);
  const conn = connection(o);

  const { controller, stoppedBy, dispose: removeSignals } = abortOnStopSignals();
  try {
    let submitted;
    try {
      submitted = await submitRetexture(
        conn,
        { prompt, image: image.value, state: o.state, notifyHook, noStorage: o.storage === false ? true : undefined },
        controller.signal,
      );
    } catch (err) {
      if (stoppedBy() || isAbort(err) || (err as MedchatError)?.kind === 'interrupted') {
        throw new MedchatError('interrupted before the service answered; the job may or may not have been submitted', exitCodeForSignal[stoppedBy() ?? 'SIGINT'] as never, 'interrupted');
      }
      throw err;
    }
    const id = submitted.taskId;
    if (o.json) io.stdout.write(redactedJson(submitted.response) + '\n');
    if (submitted.code === 21) io.stderr.write(`medchat: the service says task ${forStream(id, io.stderr)} already exists (code 21)${follow.wait ? '; following it' : ''}\n`);
    if (submitted.code === 22) io.stderr.write(`medchat: task ${forStream(id, io.stderr)} is queued (code 22)${follow.wait ? '' : '; follow it with: medchat task ' + forStream(id, io.stderr) + ' --wait'}\n`);
    if (!follow.wait) {
      if (!o.json) io.stdout.write(forStream(id, io.stdout) + '\n');
      return ExitCode.ok;
    }
    return await followAndFinish(conn, id, o, follow, io, controller, stoppedBy, { notFoundGrace: 2, printIdOnDeadline: !o.json });
  } finally {
    removeSignals();
  }
}

/** `medchat task <id>`. */
export async function runTaskCommand(rawId: string, o: FollowFlags, io: Io = defaultIo()): Promise<number> {
  const id = checkTaskIdArgument(rawId);
  const follow = followSettings(o);
  if (o.output === '-' && isTty(io.stdout)) throw usageError('--output - writes the image to stdout, which is a terminal; redirect it to a file');
  if (o.apiKey) io.stderr.write(KEY_FLAG_WARNING);
  const conn = connection(o);
  const { controller, stoppedBy, dispose: removeSignals } = abortOnStopSignals();
  try {
    if (follow.wait) return await followAndFinish(conn, id, o, follow, io, controller, stoppedBy, { notFoundGrace: 0, printIdOnDeadline: !o.json });
    let record: TaskRecord;
    try {
      record = await fetchTask(conn, id, controller.signal);
    } catch (err) {
      const signal = stoppedBy();
      if (signal) throw new MedchatError('interrupted', exitCodeForSignal[signal] as never, 'interrupted');
      throw err;
    }
    if (!isFinal(record.status)) {
      if (o.json) io.stdout.write(redactedJson(record.raw) + '\n');
      else io.stdout.write(`${forStream(record.status || 'PENDING', io.stdout)}${record.progress ? ' ' + forStream(record.progress, io.stdout) : ''}\n`);
      return ExitCode.ok;
    }
    return await finish(conn, id, { kind: 'final', record, elapsedMs: 0 }, o, follow.timeoutMs, io, controller.signal);
  } finally {
    removeSignals();
  }
}

async function followAndFinish(
  conn: ServiceConnection,
  id: string,
  o: FollowFlags,
  follow: { intervalMs: number; timeoutMs: number },
  io: Io,
  controller: AbortController,
  stoppedBy: () => keyof typeof exitCodeForSignal | undefined,
  extra: { notFoundGrace: number; printIdOnDeadline: boolean },
): Promise<number> {
  const reporter = new ProgressReporter(io.stderr, id, { tty: isTty(io.stderr), colour: colourAllowed(io.stderr) });
  let outcome: FollowOutcome;
  try {
    outcome = await followTask(conn, id, {
      intervalMs: follow.intervalMs,
      timeoutMs: follow.timeoutMs,
      signal: controller.signal,
      notFoundGrace: extra.notFoundGrace,
      onUpdate: (u) => reporter.update(u),
      onRetry: (err) => reporter.note(`${err.message} (retrying)`),
    });
  } catch (err) {
    reporter.stop();
    const s = stoppedBy();
    if (s || isAbort(err) || (err as MedchatError)?.kind === 'interrupted') {
      throw new MedchatError(`stopped waiting; task ${id} goes on — follow it with: medchat task ${id} --wait`, exitCodeForSignal[s ?? 'SIGINT'] as never, 'interrupted');
    }
    throw err;
  }
  reporter.stop();
  if (outcome.kind === 'deadline') {
    if (o.json && outcome.record) io.stdout.write(redactedJson(outcome.record.raw) + '\n');
    if (extra.printIdOnDeadline) io.stdout.write(forStream(id, io.stdout) + '\n');
  }
  return finish(conn, id, outcome, o, follow.timeoutMs, io, controller.signal);
}

async function finish(
  conn: ServiceConnection,
  id: string,
  outcome: FollowOutcome,
  o: FollowFlags,
  timeoutMs: number,
  io: Io,
  signal: AbortSignal,
): Promise<number> {
  const failure = outcomeError(outcome, id, timeoutMs);
  if (outcome.kind === 'final' && o.json) io.stdout.write(redactedJson(outcome.record.raw) + '\n');
  if (failure) throw failure;
  const record = outcome.record!;
  const imageUrl = record.imageUrl!;
  let image: DownloadedImage | undefined;
  if (o.output !== undefined || o.preview) {
    image = await downloadImage(imageUrl, conn, { signal });
  }
  if (o.output !== undefined && image) {
    if (o.output === '-') {
      io.stdout.write(image.bytes);
    } else {
      const target = await outputPathFor(o.output, id, image.mime);
      await writeFileAtomic(target, image.bytes);
      if (extensionMismatch(target, image.mime)) io.stderr.write(`medchat: note: the image is ${image.mime.slice(6).toUpperCase()}; saved as ${forStream(target, io.stderr)} anyway\n`);
      if (!o.json) io.stdout.write(forStream(target, io.stdout) + '\n');
    }
  } else if (!o.json) {
    io.stdout.write(forStream(imageUrl, io.stdout) + '\n');
  }
  if (o.preview && image) {
    if (!isTty(io.stderr)) {
      io.stderr.write('medchat: no preview: stderr is not a terminal\n');
    } else {
      const preview = renderPreview(image.bytes, { columns: Math.min(48, (io.stderr.columns || 80) - 2), protocol: colourAllowed(io.stderr) ? undefined : 'ascii' });
      if (preview) io.stderr.write(preview.text);
      else io.stderr.write(`medchat: no preview for ${image.mime} images on this terminal\n`);
    }
  }
  return ExitCode.ok;
}
