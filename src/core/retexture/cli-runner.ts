/** The `medchat retexture` and `medchat task` commands: flags in, stdout/stderr and an exit code out. */
import { ConfigStore } from '../config-store.js';
import { MedchatError, usageError } from '../errors.js';
import { ExitCode, type ExitCodeValue } from '../exit-codes.js';
import { sanitizeForTerminal } from '../sanitize.js';
import { redactedJson } from '../secret-redactor.js';
import { KEY_FLAG_WARNING, resolveSettings } from '../settings.js';
import { proxyFor } from '../http.js';
import { shellQuote } from '../shell-quote.js';
import { formatDuration } from '../text/format.js';
import { abortOnStopSignals, exitCodeForSignal, type StopSignal } from '../signals.js';
import { colourAllowed, isTty } from '../terminal.js';
import { CommandDeadline } from './deadline.js';
import { downloadImage, extensionMismatch, outputPathFor, resolveImageUrl, writeFileAtomic, type DownloadedImage } from './download.js';
import { loadImageInput, parseMaxImageMb } from './image-input.js';
import { renderPreview } from './preview.js';
import { ProgressReporter } from './progress.js';
import { type ServiceConnection } from './service-http.js';
import { checkNotifyHook, submitRetexture } from './submit.js';
import {
  comeBackCommand,
  DEFAULT_POLL_INTERVAL_MS,
  DEFAULT_TIMEOUT_MS,
  fetchTask,
  followTask,
  isFinal,
  outcomeError,
  parseSeconds,
  type FollowOutcome,
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
  return { baseUrl: settings.baseUrl, apiKey: settings.apiKey, ...(settings.apiKeySource ? { apiKeySource: settings.apiKeySource } : {}) };
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

/**
 * Where a command is, for what a stop signal or the deadline means: before the service gave an
 * id (the job may or may not exist), while waiting, or while downloading a finished image.
 */
interface Run {
  phase: 'submit' | 'wait' | 'download';
  id?: string;
  deadline: CommandDeadline;
  /** " through the proxy host:port" when requests go through one, for messages about silence. */
  via: string;
  stoppedBy: () => StopSignal | undefined;
  o: FollowFlags;
  io: Io;
}

/**
 * Once a command is over, end the process even if a connection is still open: a proxy that
 * hung up or never answered can leave the transport holding a socket (or reconnecting) after
 * the request was given up. Nothing printed is lost: it waits for stdout and stderr to drain.
 */
export function endPromptly(): void {
  const exitWhenFlushed = () => {
    // Where stdout is written asynchronously (pipes on macOS), wait for what is queued.
    const pending = [process.stdout, process.stderr].find((s) => s.writableLength > 0);
    if (pending) pending.once('drain', exitWhenFlushed);
    else process.exit();
  };
  setTimeout(exitWhenFlushed, 300).unref();
}

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
  // --timeout bounds the whole command, from here.
  const deadline = CommandDeadline.after(follow.timeoutMs);
  const image = await loadImageInput(o.image, { maxBytes });
  if (o.apiKey) io.stderr.write(KEY_FLAG_WARNING);
  const conn = connection(o);

  const { controller, stoppedBy, dispose: removeSignals } = abortOnStopSignals();
  const run: Run = { phase: 'submit', deadline, via: viaProxy(conn), stoppedBy, o, io };
  try {
    const submitted = await submitRetexture(
      conn,
      { prompt, image: image.data ?? image.value, state: o.state, notifyHook, noStorage: o.storage === false ? true : undefined },
      { signal: controller.signal, deadline },
    );
    const id = submitted.taskId;
    run.id = id;
    run.phase = 'wait';
    const shown = forStream(id, io.stderr);
    if (o.json) io.stdout.write(redactedJson(submitted.response) + '\n');
    if (submitted.code === 21) io.stderr.write(`medchat: the service says task ${shown} already exists (code 21)${follow.wait ? '; following it' : ''}\n`);
    if (submitted.code === 22) io.stderr.write(`medchat: task ${shown} is queued (code 22)${follow.wait ? '' : '; follow it with: ' + comeBackCommand(id)}\n`);
    if (!follow.wait) {
      if (!o.json) io.stdout.write(forStream(id, io.stdout) + '\n');
      return ExitCode.ok;
    }
    return await followAndFinish(conn, run, follow, controller, 2);
  } catch (err) {
    throw explain(err, run);
  } finally {
    removeSignals();
  }
}

/** `medchat task <id>`. */
export async function runTaskCommand(rawId: string, o: FollowFlags, io: Io = defaultIo()): Promise<number> {
  const id = checkTaskIdArgument(rawId);
  const follow = followSettings(o);
  if (o.output === '-' && isTty(io.stdout)) throw usageError('--output - writes the image to stdout, which is a terminal; redirect it to a file');
  const deadline = CommandDeadline.after(follow.timeoutMs);
  if (o.apiKey) io.stderr.write(KEY_FLAG_WARNING);
  const conn = connection(o);
  const { controller, stoppedBy, dispose: removeSignals } = abortOnStopSignals();
  const run: Run = { phase: 'wait', id, deadline, via: viaProxy(conn), stoppedBy, o, io };
  try {
    if (follow.wait) return await followAndFinish(conn, run, follow, controller, 0);
    const record = await fetchTask(conn, id, { signal: controller.signal, deadline });
    if (!isFinal(record.status)) {
      if (o.json) io.stdout.write(redactedJson(record.raw) + '\n');
      else io.stdout.write(`${forStream(record.status || 'PENDING', io.stdout)}${record.progress ? ' ' + forStream(record.progress, io.stdout) : ''}\n`);
      return ExitCode.ok;
    }
    return await finish(conn, run, { kind: 'final', record, elapsedMs: 0 }, controller.signal);
  } catch (err) {
    throw explain(err, run);
  } finally {
    removeSignals();
  }
}

/**
 * The one error a failure ends with. A stop signal wins (its own exit code: 130, 143, 129,
 * whatever was under way); the deadline exits 7 with the id on stdout and how to come back.
 */
function explain(err: unknown, run: Run): unknown {
  const signal = run.stoppedBy();
  const { id, io, o } = run;
  if (signal) {
    const code = exitCodeForSignal[signal] as ExitCodeValue;
    if (id === undefined) return new MedchatError('interrupted before the service answered; the job may or may not have been submitted', code, 'interrupted');
    if (run.phase === 'download') return new MedchatError(`stopped the download; task ${shellQuote(id)} is done — get the image with: ${downloadCommand(id, o)}`, code, 'interrupted');
    return new MedchatError(`stopped waiting; task ${shellQuote(id)} goes on — follow it with: ${comeBackCommand(id)}`, code, 'interrupted');
  }
  if (!(err instanceof MedchatError) || (err.kind !== 'deadline' && err.kind !== 'deadline-cut')) return err;
  const within = formatDuration(run.deadline.totalMs);
  if (id === undefined) {
    return new MedchatError(`the service did not answer the submit${run.via} within ${within} (--timeout); the job may or may not have been submitted`, ExitCode.deadline, 'deadline');
  }
  // The id on stdout, so a script can come back to it.
  if (!o.json) io.stdout.write(forStream(id, io.stdout) + '\n');
  if (err.kind === 'deadline') return err; // waiting ran out: outcomeError already says how it stood
  if (run.phase === 'download') {
    return new MedchatError(`task ${shellQuote(id)} is done, but the image did not download within ${within}; get it later with: ${downloadCommand(id, o)}`, ExitCode.deadline, 'deadline');
  }
  return new MedchatError(`no answer about task ${shellQuote(id)}${run.via} within ${within}; check again later with: ${comeBackCommand(id)}`, ExitCode.deadline, 'deadline');
}

function viaProxy(conn: ServiceConnection): string {
  const proxy = proxyFor(conn.baseUrl);
  return proxy ? ` through the proxy ${proxy.host}` : '';
}

const downloadCommand = (id: string, o: FollowFlags) => comeBackCommand(id, o.output !== undefined ? `--output ${shellQuote(o.output)}` : '--wait');

async function followAndFinish(conn: ServiceConnection, run: Run, follow: { intervalMs: number }, controller: AbortController, notFoundGrace: number): Promise<number> {
  const { io, o } = run;
  const id = run.id!;
  const reporter = new ProgressReporter(io.stderr, id, { tty: isTty(io.stderr), colour: colourAllowed(io.stderr) });
  let outcome: FollowOutcome;
  try {
    outcome = await followTask(conn, id, {
      intervalMs: follow.intervalMs,
      deadline: run.deadline,
      signal: controller.signal,
      notFoundGrace,
      onUpdate: (u) => reporter.update(u),
      onRetry: (err) => reporter.note(`${err.message} (retrying)`),
    });
  } finally {
    reporter.stop();
  }
  if (outcome.kind === 'deadline' && o.json && outcome.record) io.stdout.write(redactedJson(outcome.record.raw) + '\n');
  return finish(conn, run, outcome, controller.signal);
}

async function finish(conn: ServiceConnection, run: Run, outcome: FollowOutcome, signal: AbortSignal): Promise<number> {
  const { io, o } = run;
  const id = run.id!;
  const failure = outcomeError(outcome, id, run.deadline.totalMs, run.via);
  if (outcome.kind === 'final' && o.json) io.stdout.write(redactedJson(outcome.record.raw) + '\n');
  if (failure) throw failure;
  const record = outcome.record!;
  // Printed and fetched as the service's link resolved: absolute, http(s) only, no spaces or controls.
  const imageUrl = resolveImageUrl(record.imageUrl!, conn.baseUrl);
  let image: DownloadedImage | undefined;
  if (o.output !== undefined || o.preview) {
    run.phase = 'download';
    image = await downloadImage(imageUrl, conn, { signal, deadline: run.deadline, taskId: id });
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
