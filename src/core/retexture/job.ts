/**
 * The one retexture job every front end runs: the chat screen's `/retexture`, `medchat retexture`
 * and `medchat task`. Read the image and submit it (or take a task already submitted, by its id),
 * follow the task, fetch the finished image and draw a preview.
 *
 * One deadline bounds the whole job, from its start: reading the image, the submit, the waiting
 * and the download. Every request also has a limit of its own, cut to what is left of the
 * deadline. A deadline or a stop is reported by what was under way (no id yet, waiting, the
 * download), with how to come back to the task. No terminal writes: progress comes back through
 * `onEvent`, and the caller presents the result.
 */
import { MedchatError, usageError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import { proxyFor } from '../net/http.js';
import { shellQuote } from '../text/shell-quote.js';
import { formatDuration } from '../text/format.js';
import { auditLog, auditRequired, type AuditLog } from '../audit/log.js';
import { CommandDeadline } from './deadline.js';
import { downloadImage, resolveImageUrl, type DownloadedImage } from './download.js';
import { loadImageInput } from './image-input.js';
import { renderPreview, type Preview, type PreviewOptions } from './preview.js';
import { describeUpdate } from './progress.js';
import { isAbort, type ServiceConnection } from './service-http.js';
import { submitRetexture, type SubmitResult } from './submit.js';
import {
  comeBackCommand,
  DEFAULT_POLL_INTERVAL_MS,
  DEFAULT_TIMEOUT_MS,
  fetchTask,
  followTask,
  isFinal,
  outcomeError,
  type FollowOutcome,
  type TaskRecord,
} from './task-poll.js';
import { retextureText } from '../i18n/messages/retexture.js';

export type RetextureEvent =
  | { type: 'submitted'; taskId: string; code: number; description: string; response: Record<string, unknown> }
  /** Waiting for the task begins (after the submit, or at once for a task given by its id). */
  | { type: 'following'; taskId: string }
  | { type: 'progress'; taskId: string; record: TaskRecord; status: string; percent?: number; label: string; elapsedMs: number; changed: boolean }
  | { type: 'retrying'; taskId: string; message: string }
  /** The task reached a final status (success, failure or cancel), before the job judges it. */
  | { type: 'finished'; taskId: string; record: TaskRecord }
  | { type: 'downloading'; taskId: string; imageUrl: string };

/** A new job: an image and what to change in it. */
export interface NewRetexture {
  /** A file path, an http(s):// link (sent as is), or '-' for stdin. */
  image: string;
  prompt: string;
  state?: string;
  notifyHook?: string;
  noStorage?: boolean;
  maxImageBytes?: number;
}

/** A task submitted before, by the id the service gave. */
export interface KnownTask {
  taskId: string;
}

interface RetextureJobSettings {
  /**
   * `{ baseUrl, apiKey }`: a resolved `Settings` object fits as it is. A function is called once,
   * when the first request is about to go out (after the image is read, so a bad image is
   * reported before a missing key).
   */
  connection: ServiceConnection | (() => ServiceConnection);
  signal?: AbortSignal;
  onEvent?: (e: RetextureEvent) => void;
  pollIntervalMs?: number;
  /** The deadline for the whole job (default 15 minutes). */
  timeoutMs?: number;
  /**
   * Follow the task to its end (the default). false: a new job is only submitted; a known task
   * is looked at once, and followed to its image only if it has already finished.
   */
  wait?: boolean;
  /**
   * Fetch the finished image: 'required' fails the job when it cannot be fetched; 'optional'
   * (the default when a preview is asked for) says why in `previewProblem` instead.
   */
  download?: 'required' | 'optional' | false;
  /** Draw a preview of the fetched image with these options; false (the default): none. */
  preview?: PreviewOptions | false;
  /** Names a front end gives in its messages. */
  wording?: {
    /** What sets the deadline, named after it ("--timeout"); unnamed by default. */
    timeout?: string;
    /** How to fetch the image later when the download was cut (default: `medchat task <id> --wait`). */
    fetchAgain?: (taskId: string) => string;
  };
}

export type RetextureJobOptions = RetextureJobSettings & (NewRetexture | KnownTask);

export interface RetextureJobResult {
  taskId: string;
  /** The service's answer to the submit (a new job). */
  submitted?: SubmitResult;
  /** The task's last record; absent when a new job was only submitted. */
  record?: TaskRecord;
  /** The finished image's address, resolved against the base URL (http(s) only); absent while the task is pending. */
  imageUrl?: string;
  image?: DownloadedImage;
  /** Undefined when previews are off, or the image could not be fetched or drawn (the URL still works). */
  preview?: Preview;
  /** Why there is no preview or image, when one was asked for ("no preview: …"). */
  previewProblem?: string;
}

/** Where a job is, for what a stop or the deadline means. */
interface Stage {
  phase: 'read' | 'submit' | 'wait' | 'download';
  taskId?: string;
  connection?: ServiceConnection;
  /** The audit log, once the job is about to reach the service (when the setting or the policy asks for one). */
  audit?: AuditLog;
}

/**
 * Run a job. Throws a MedchatError whose `exitCode` and `kind` say what went wrong: 2 usage or bad
 * image, 3 key refused, 5 job rejected ('rejected'), 6 task failed or cancelled ('task-failed'),
 * 7 deadline ('deadline'), 130 stopped through `signal` ('interrupted'), 1 anything else.
 */
export async function runRetextureJob(opts: RetextureJobOptions): Promise<RetextureJobResult> {
  const deadline = CommandDeadline.after(opts.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  const stage: Stage = { phase: 'taskId' in opts ? 'wait' : 'read', ...('taskId' in opts ? { taskId: opts.taskId } : {}) };
  let result: RetextureJobResult;
  try {
    result = await runJob(opts, deadline, stage);
  } catch (err) {
    const e = explain(err, opts, deadline, stage);
    stage.audit?.record(jobAudit(stage, undefined, e));
    throw e;
  }
  stage.audit?.record(jobAudit(stage, result));
  return result;
}

/** The audit line of a job that reached the service: its task id, how it ended; never the prompt, the image or its address. */
function jobAudit(stage: Stage, r: RetextureJobResult | undefined, err?: unknown) {
  const e = err instanceof MedchatError ? err : undefined;
  const outcome = r ? (!r.record ? 'submitted' : r.imageUrl === undefined ? 'pending' : 'complete') : e?.kind === 'rejected' || e?.kind === 'task-failed' || e?.kind === 'deadline' || e?.kind === 'interrupted' ? e.kind : 'failed';
  return {
    mode: 'retexture' as const,
    ...(stage.taskId !== undefined ? { task: stage.taskId } : {}),
    baseUrl: stage.connection!.baseUrl,
    outcome,
    exitCode: r ? ExitCode.ok : (e?.exitCode ?? ExitCode.failure),
    ...(e ? { error: e.kind } : !r ? { error: 'error' } : {}),
  };
}

async function runJob(opts: RetextureJobOptions, deadline: CommandDeadline, stage: Stage): Promise<RetextureJobResult> {
  const { signal } = opts;
  const emit = (e: RetextureEvent) => opts.onEvent?.(e);
  const connect = (): ServiceConnection => {
    if (stage.connection) return stage.connection;
    const conn = typeof opts.connection === 'function' ? opts.connection() : opts.connection;
    // A log that must be kept and cannot be written stops the job before anything is sent.
    const audit = conn.audit || auditRequired() ? auditLog() : undefined;
    audit?.gate();
    stage.audit = audit;
    return (stage.connection = conn);
  };

  let submitted: SubmitResult | undefined;
  let taskId: string;
  if ('taskId' in opts) {
    taskId = opts.taskId;
    connect();
  } else {
    if (!opts.prompt.trim()) throw usageError(retextureText.needsPrompt);
    const input = await untilStopped(loadImageInput(opts.image, { maxBytes: opts.maxImageBytes }), signal);
    const conn = connect();
    stage.phase = 'submit';
    submitted = await submitRetexture(
      conn,
      { prompt: opts.prompt, image: input.data ?? input.value, state: opts.state, notifyHook: opts.notifyHook, noStorage: opts.noStorage },
      { signal, deadline },
    );
    taskId = submitted.taskId;
    stage.taskId = taskId;
    stage.phase = 'wait';
    emit({ type: 'submitted', taskId, code: submitted.code, description: submitted.description, response: submitted.response });
    if (opts.wait === false) return { taskId, submitted };
  }
  const conn = connect();

  let outcome: FollowOutcome;
  if (opts.wait === false) {
    const record = await fetchTask(conn, taskId, { signal, deadline });
    if (!isFinal(record.status)) return { taskId, record };
    outcome = { kind: 'final', record, elapsedMs: 0 };
  } else {
    emit({ type: 'following', taskId });
    outcome = await followTask(conn, taskId, {
      intervalMs: opts.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS,
      deadline,
      signal,
      // Right after a submit the service may not know the task yet.
      notFoundGrace: submitted ? 2 : 0,
      onUpdate: (u) =>
        emit({ type: 'progress', taskId, record: u.record, status: u.record.status, percent: u.record.percent, label: describeUpdate(u), elapsedMs: u.elapsedMs, changed: u.changed }),
      onRetry: (err) => emit({ type: 'retrying', taskId, message: err.message }),
    });
  }
  if (outcome.kind === 'final') emit({ type: 'finished', taskId, record: outcome.record });
  const failure = outcomeError(outcome, taskId, deadline.totalMs, viaProxy(conn));
  if (failure) throw failure;
  const record = outcome.record!;
  // Printed and fetched as the service's link resolved: absolute, http(s) only.
  const imageUrl = resolveImageUrl(record.imageUrl!, conn.baseUrl);
  const result: RetextureJobResult = { taskId, ...(submitted ? { submitted } : {}), record, imageUrl };

  const download = opts.download ?? (opts.preview ? 'optional' : false);
  if (!download) return result;
  stage.phase = 'download';
  emit({ type: 'downloading', taskId, imageUrl });
  try {
    result.image = await downloadImage(imageUrl, conn, { signal, deadline, taskId });
  } catch (err) {
    if (download === 'required' || signal?.aborted) throw err;
    result.previewProblem = retextureText.noPreview(err instanceof MedchatError ? err.message : String(err));
    return result;
  }
  if (opts.preview) {
    result.preview = renderPreview(result.image.bytes, opts.preview);
    if (!result.preview) result.previewProblem = retextureText.noPreviewFor(result.image.mime);
  }
  return result;
}

/** Reading an image (a pipe, a slow disk) is given up when the user stops the job. */
function untilStopped<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  if (signal.aborted) return Promise.reject(abortError());
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortError());
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

const abortError = () => Object.assign(new Error('aborted'), { name: 'AbortError' });

function viaProxy(conn: ServiceConnection | undefined): string {
  const proxy = conn && proxyFor(conn.baseUrl);
  return proxy ? retextureText.throughProxy(proxy.host) : '';
}

/**
 * The one error a failure ends with. A stop wins (whatever was under way), and says whether the
 * task exists and how to come back to it; a deadline says what it cut.
 */
function explain(err: unknown, opts: RetextureJobOptions, deadline: CommandDeadline, stage: Stage): unknown {
  const id = stage.taskId;
  const fetchAgain = opts.wording?.fetchAgain ?? ((taskId: string) => comeBackCommand(taskId));
  if (opts.signal?.aborted || isAbort(err)) {
    let message: string;
    if (id !== undefined) {
      message =
        stage.phase === 'download'
          ? retextureText.stoppedDownload(shellQuote(id), fetchAgain(id))
          : retextureText.stoppedWaiting(shellQuote(id), comeBackCommand(id));
    } else {
      message = stage.phase === 'read' ? retextureText.stoppedBeforeSent : retextureText.interruptedBeforeAnswer;
    }
    return new MedchatError(message, ExitCode.interrupted, 'interrupted');
  }
  if (!(err instanceof MedchatError) || (err.kind !== 'deadline' && err.kind !== 'deadline-cut')) return err;
  // Waiting ran out: outcomeError already says how the task stood.
  if (err.kind === 'deadline') return err;
  const within = `${formatDuration(deadline.totalMs)}${opts.wording?.timeout ? ` (${opts.wording.timeout})` : ''}`;
  const via = viaProxy(stage.connection);
  if (id === undefined) {
    return new MedchatError(retextureText.submitUnanswered(via, within), ExitCode.deadline, 'deadline');
  }
  if (stage.phase === 'download') {
    return new MedchatError(
      retextureText.downloadLate(shellQuote(id), formatDuration(deadline.totalMs), fetchAgain(id)),
      ExitCode.deadline,
      'deadline',
    );
  }
  return new MedchatError(retextureText.noAnswerAboutTask(shellQuote(id), via, formatDuration(deadline.totalMs), comeBackCommand(id)), ExitCode.deadline, 'deadline');
}
