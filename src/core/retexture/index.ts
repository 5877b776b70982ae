/**
 * Retexture for any front end (the chat screen's `/retexture`, the `medchat retexture` and
 * `medchat task` commands): submit an image and a prompt, follow the task, fetch the result,
 * draw a preview. No React, no terminal writes: progress comes back through `onEvent`.
 */
import { MedchatError, usageError } from '../errors.js';
import { CommandDeadline } from './deadline.js';
import { downloadImage, type DownloadedImage } from './download.js';
import { loadImageInput } from './image-input.js';
import { renderPreview, type Preview, type PreviewOptions } from './preview.js';
import { describeUpdate } from './progress.js';
import { isAbort, type ServiceConnection } from './service-http.js';
import { ExitCode } from '../exit-codes.js';
import { submitRetexture } from './submit.js';
import { followTask, outcomeError, DEFAULT_POLL_INTERVAL_MS, DEFAULT_TIMEOUT_MS, type TaskRecord } from './task-poll.js';

export type { ServiceConnection } from './service-http.js';
export type { TaskRecord } from './task-poll.js';
export type { Preview, PreviewOptions, PreviewProtocol } from './preview.js';
export { renderPreview, detectPreviewProtocol } from './preview.js';
export { describeUpdate, statusLabel } from './progress.js';

export type RetextureEvent =
  | { type: 'submitted'; taskId: string; code: number; description: string }
  | { type: 'progress'; taskId: string; record: TaskRecord; status: string; percent?: number; label: string; elapsedMs: number; changed: boolean }
  | { type: 'retrying'; taskId: string; message: string }
  | { type: 'downloading'; taskId: string; imageUrl: string };

export interface RetextureJobOptions {
  /** `{ baseUrl, apiKey }`: a resolved `Settings` object fits as it is. */
  connection: ServiceConnection;
  /** A file path, an http(s):// link (sent as is), or '-' for stdin. */
  image: string;
  prompt: string;
  state?: string;
  notifyHook?: string;
  noStorage?: boolean;
  signal?: AbortSignal;
  onEvent?: (e: RetextureEvent) => void;
  pollIntervalMs?: number;
  timeoutMs?: number;
  maxImageBytes?: number;
  /** false: no download, no preview. Otherwise the result is downloaded and a preview drawn with these options. */
  preview?: PreviewOptions | false;
}

export interface RetextureJobResult {
  taskId: string;
  record: TaskRecord;
  imageUrl: string;
  image?: DownloadedImage;
  /** Undefined when previews are off, or the image could not be downloaded or drawn (the URL still works). */
  preview?: Preview;
  /** Why there is no preview, when one was asked for. */
  previewProblem?: string;
}

/**
 * Submit, follow to the end, download and preview. Throws a MedchatError whose `exitCode` and
 * `kind` say what went wrong: 2 usage/bad image, 3 key refused, 5 job rejected ('rejected'),
 * 6 task failed or cancelled ('task-failed'), 7 deadline ('deadline', or 'deadline-cut' when a request was cut by it), 130 aborted through
 * `signal` ('interrupted'), 1 anything else.
 */
export async function runRetextureJob(opts: RetextureJobOptions): Promise<RetextureJobResult> {
  try {
    return await runJob(opts);
  } catch (err) {
    if (isAbort(err)) throw new MedchatError('interrupted', ExitCode.interrupted, 'interrupted');
    throw err;
  }
}

async function runJob(opts: RetextureJobOptions): Promise<RetextureJobResult> {
  if (!opts.prompt.trim()) throw usageError('give a prompt: /retexture <image> <prompt>');
  const input = await loadImageInput(opts.image, { maxBytes: opts.maxImageBytes });
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const deadline = CommandDeadline.after(timeoutMs);
  const submitted = await submitRetexture(
    opts.connection,
    { prompt: opts.prompt, image: input.data ?? input.value, state: opts.state, notifyHook: opts.notifyHook, noStorage: opts.noStorage },
    { signal: opts.signal, deadline },
  );
  const taskId = submitted.taskId;
  opts.onEvent?.({ type: 'submitted', taskId, code: submitted.code, description: submitted.description });
  const outcome = await followTask(opts.connection, taskId, {
    intervalMs: opts.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS,
    deadline,
    signal: opts.signal,
    notFoundGrace: 2,
    onUpdate: (u) =>
      opts.onEvent?.({ type: 'progress', taskId, record: u.record, status: u.record.status, percent: u.record.percent, label: describeUpdate(u), elapsedMs: u.elapsedMs, changed: u.changed }),
    onRetry: (err) => opts.onEvent?.({ type: 'retrying', taskId, message: err.message }),
  });
  const failure = outcomeError(outcome, taskId, timeoutMs);
  if (failure) throw failure;
  const record = outcome.record!;
  const imageUrl = record.imageUrl!;
  const result: RetextureJobResult = { taskId, record, imageUrl };
  if (opts.preview !== false) {
    opts.onEvent?.({ type: 'downloading', taskId, imageUrl });
    try {
      result.image = await downloadImage(imageUrl, opts.connection, { signal: opts.signal, deadline });
      result.preview = renderPreview(result.image.bytes, opts.preview ?? {});
      if (!result.preview) result.previewProblem = `no preview for ${result.image.mime} images here`;
    } catch (err) {
      if (err instanceof MedchatError && err.kind === 'interrupted') throw err;
      result.previewProblem = err instanceof MedchatError ? err.message : String(err);
    }
  }
  return result;
}

/**
 * Split the text after `/retexture` into the image and the prompt. The image is the first word;
 * quote it ("my scan.png" or 'my scan.png') when its path has spaces.
 */
export function splitImageAndPrompt(args: string): { image: string; prompt: string } {
  const t = args.trim();
  const m = /^(?:"([^"]*)"|'([^']*)'|(\S+))\s*([\s\S]*)$/.exec(t);
  if (!m || !(m[1] ?? m[2] ?? m[3])) throw usageError('usage: /retexture <image file or link> <prompt>');
  const image = (m[1] ?? m[2] ?? m[3])!.replace(/^~(?=\/)/, process.env.HOME ?? '~');
  const prompt = (m[4] ?? '').trim();
  if (!prompt) throw usageError('add a prompt after the image: /retexture <image> <prompt>');
  return { image, prompt };
}
