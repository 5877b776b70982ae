/**
 * The `medchat retexture` and `medchat task` commands: flags in, stdout/stderr and an exit code
 * out. Both run the retexture job the chat screen runs (job.ts) and only present it.
 */
import { ConfigStore } from '../../core/config/config-store.js';
import { MedchatError, usageError } from '../../core/errors.js';
import { ExitCode, type ExitCodeValue } from '../../core/exit-codes.js';
import { sanitizeForTerminal } from '../../core/text/sanitize.js';
import { redactedJson } from '../../core/config/secret-redactor.js';
import { assertApiKeyOptionAllowed, apiKeyOptionWarning, resolveSettings } from '../../core/config/settings.js';
import { assertRetextureAllowed } from '../../core/config/policy.js';
import { shellQuote } from '../../core/text/shell-quote.js';
import { abortOnStopSignals, exitCodeForSignal } from '../../core/io/signals.js';
import { colourAllowed, isTty } from '../../core/io/terminal.js';
import { extensionMismatch, outputPathFor, writeFileAtomic } from '../../core/retexture/download.js';
import { parseMaxImageMb } from '../../core/retexture/image-input.js';
import { runRetextureJob, type KnownTask, type NewRetexture, type RetextureJobResult } from '../../core/retexture/job.js';
import { ProgressReporter } from '../../core/retexture/progress.js';
import { type ServiceConnection } from '../../core/retexture/service-http.js';
import { checkNotifyHook } from '../../core/retexture/submit.js';
import { comeBackCommand, DEFAULT_POLL_INTERVAL_MS, DEFAULT_TIMEOUT_MS, parseSeconds, type TaskRecord } from '../../core/retexture/task-poll.js';
import { checkTaskIdArgument } from '../../core/retexture/task-id.js';
import { cliRetextureText } from '../../core/i18n/messages/cli-retexture.js';

interface ServiceFlags {
  baseUrl?: string;
  apiKey?: string;
}

interface FollowFlags extends ServiceFlags {
  wait?: boolean;
  output?: string;
  json?: boolean;
  pollInterval?: string;
  timeout?: string;
  preview?: boolean;
}

interface RetextureFlags extends FollowFlags {
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
  return { baseUrl: settings.baseUrl, apiKey: settings.apiKey, audit: settings.audit, ...(settings.apiKeySource ? { apiKeySource: settings.apiKeySource } : {}) };
}

function followSettings(o: FollowFlags) {
  const intervalMs = parseSeconds('--poll-interval', o.pollInterval, DEFAULT_POLL_INTERVAL_MS);
  const timeoutMs = parseSeconds('--timeout', o.timeout, DEFAULT_TIMEOUT_MS);
  if (o.output !== undefined && o.output.trim() === '') throw usageError(cliRetextureText.outputNeedsPath);
  // --output and --preview need the finished image, so they imply --wait.
  const wait = Boolean(o.wait || o.output !== undefined || o.preview);
  return { intervalMs, timeoutMs, wait };
}

/** Text for a terminal is made safe; text for a pipe goes out exactly as received. */
const forStream = (s: string, stream: NodeJS.WriteStream) => (isTty(stream) ? sanitizeForTerminal(s) : s);

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
  assertRetextureAllowed();
  assertApiKeyOptionAllowed(o.apiKey !== undefined);
  const positional = words.length ? words.join(' ') : undefined;
  if (positional !== undefined && o.prompt !== undefined) throw usageError(cliRetextureText.promptTwice);
  const prompt = o.prompt ?? positional;
  if (prompt === undefined || prompt.trim() === '') throw usageError(cliRetextureText.givePrompt);
  if (o.image === undefined) throw usageError(cliRetextureText.giveImage);
  const notifyHook = o.notifyHook !== undefined ? checkNotifyHook(o.notifyHook) : undefined;
  const maxImageBytes = parseMaxImageMb(o.maxImageMb);
  const follow = followSettings(o);
  if (o.output === '-' && isTty(io.stdout)) throw usageError(cliRetextureText.stdoutIsTerminal);
  const job: NewRetexture = { image: o.image, prompt, state: o.state, notifyHook, noStorage: o.storage === false ? true : undefined, maxImageBytes };
  return runJobCommand(job, o, follow, io);
}

/** `medchat task <id>`. */
export async function runTaskCommand(rawId: string, o: FollowFlags, io: Io = defaultIo()): Promise<number> {
  assertRetextureAllowed();
  assertApiKeyOptionAllowed(o.apiKey !== undefined);
  const id = checkTaskIdArgument(rawId);
  const follow = followSettings(o);
  if (o.output === '-' && isTty(io.stdout)) throw usageError(cliRetextureText.stdoutIsTerminal);
  return runJobCommand({ taskId: id }, o, follow, io);
}

/**
 * Run the job (job.ts, the same one the chat screen runs) and present it: progress on stderr,
 * the result on stdout (the id, a status, the image URL, a path or the bytes; the service's
 * JSON with --json), a preview on stderr. A stop signal ends it with that signal's exit code.
 */
async function runJobCommand(job: NewRetexture | KnownTask, o: FollowFlags, follow: ReturnType<typeof followSettings>, io: Io): Promise<number> {
  const { controller, stoppedBy, dispose: removeSignals } = abortOnStopSignals();
  let id = 'taskId' in job ? job.taskId : undefined;
  let reporter: ProgressReporter | undefined;
  const stopReporter = () => {
    reporter?.stop();
    reporter = undefined;
  };
  /** The last record seen while waiting, and whether the task reached a final status. */
  let last: TaskRecord | undefined;
  let finished = false;
  const previewHere = Boolean(o.preview) && isTty(io.stderr);
  try {
    const r = await runRetextureJob({
      ...job,
      connection: () => {
        if (o.apiKey) io.stderr.write(apiKeyOptionWarning());
        return connection(o);
      },
      signal: controller.signal,
      wait: follow.wait,
      timeoutMs: follow.timeoutMs,
      pollIntervalMs: follow.intervalMs,
      // --output and --preview need the finished image.
      download: o.output !== undefined || o.preview ? 'required' : false,
      preview: previewHere ? { columns: Math.min(48, (io.stderr.columns || 80) - 2), protocol: colourAllowed(io.stderr) ? undefined : 'ascii' } : false,
      wording: { timeout: '--timeout', fetchAgain: (taskId) => comeBackCommand(taskId, o.output !== undefined ? `--output ${shellQuote(o.output)}` : '--wait') },
      onEvent: (e) => {
        if (e.type === 'submitted') {
          id = e.taskId;
          const shown = forStream(id, io.stderr);
          if (o.json) io.stdout.write(redactedJson(e.response) + '\n');
          if (e.code === 21) io.stderr.write(`${cliRetextureText.alreadyExists(shown, follow.wait)}\n`);
          if (e.code === 22) io.stderr.write(`${cliRetextureText.queued(shown, follow.wait ? undefined : comeBackCommand(id))}\n`);
        } else if (e.type === 'following') {
          reporter = new ProgressReporter(io.stderr, e.taskId, { tty: isTty(io.stderr), colour: colourAllowed(io.stderr) });
        } else if (e.type === 'progress') {
          last = e.record;
          reporter?.update(e);
        } else if (e.type === 'retrying') {
          reporter?.note(cliRetextureText.retrying(e.message));
        } else if (e.type === 'finished') {
          stopReporter();
          finished = true;
          if (o.json) io.stdout.write(redactedJson(e.record.raw) + '\n');
        }
      },
    });
    return await present(r, o, io);
  } catch (err) {
    stopReporter();
    const signal = stoppedBy();
    if (signal && err instanceof MedchatError) throw new MedchatError(err.message, exitCodeForSignal[signal] as ExitCodeValue, 'interrupted');
    if (err instanceof MedchatError && err.kind === 'deadline' && id !== undefined) {
      if (o.json && last && !finished) io.stdout.write(redactedJson(last.raw) + '\n');
      // The id on stdout, so a script can come back to it.
      if (!o.json) io.stdout.write(forStream(id, io.stdout) + '\n');
    }
    throw err;
  } finally {
    stopReporter();
    removeSignals();
  }
}

async function present(r: RetextureJobResult, o: FollowFlags, io: Io): Promise<number> {
  if (!r.record) {
    // Submitted, not followed.
    if (!o.json) io.stdout.write(forStream(r.taskId, io.stdout) + '\n');
    return ExitCode.ok;
  }
  if (r.imageUrl === undefined) {
    // A task looked at once, still pending.
    if (o.json) io.stdout.write(redactedJson(r.record.raw) + '\n');
    else io.stdout.write(`${forStream(r.record.status || 'PENDING', io.stdout)}${r.record.progress ? ' ' + forStream(r.record.progress, io.stdout) : ''}\n`);
    return ExitCode.ok;
  }
  const image = r.image;
  if (o.output !== undefined && image) {
    if (o.output === '-') {
      io.stdout.write(image.bytes);
    } else {
      const target = await outputPathFor(o.output, r.taskId, image.mime);
      await writeFileAtomic(target, image.bytes);
      if (extensionMismatch(target, image.mime)) io.stderr.write(`${cliRetextureText.savedAnyway(image.mime.slice(6).toUpperCase(), forStream(target, io.stderr))}\n`);
      if (!o.json) io.stdout.write(forStream(target, io.stdout) + '\n');
    }
  } else if (!o.json) {
    io.stdout.write(forStream(r.imageUrl, io.stdout) + '\n');
  }
  if (o.preview && image) {
    if (!isTty(io.stderr)) io.stderr.write(`${cliRetextureText.noPreview}\n`);
    else if (r.preview) io.stderr.write(r.preview.text);
    else if (r.previewProblem) io.stderr.write(`medchat: ${r.previewProblem}\n`);
  }
  return ExitCode.ok;
}
