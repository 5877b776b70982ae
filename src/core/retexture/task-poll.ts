import { MedchatError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import { shellQuote } from '../text/shell-quote.js';
import { formatDuration } from '../text/format.js';
import { CommandDeadline } from './deadline.js';
import { bodyReason, callService, describeHttpFailure, isTransient, serviceText, type ServiceConnection, type ServiceResponse } from './service-http.js';
import { taskIdFrom } from './task-id.js';
import { retextureText } from '../i18n/messages/retexture.js';

const FINAL_STATUSES = ['SUCCESS', 'FAILURE', 'CANCEL'] as const;

export const DEFAULT_POLL_INTERVAL_MS = 2000;
const MAX_POLL_INTERVAL_MS = 10_000;
export const DEFAULT_TIMEOUT_MS = 15 * 60 * 1000;

/** A task record, with the fields medchat reads normalised; `raw` keeps everything the service sent (ids as strings). */
export interface TaskRecord {
  id: string;
  /** Upper-case; '' when the service has not set one yet. */
  status: string;
  /** As sent, e.g. "45%"; '' when absent. */
  progress: string;
  /** 0-100 when the progress could be read. */
  percent?: number;
  imageUrl?: string;
  failReason?: string;
  raw: Record<string, unknown>;
}

export const isFinal = (status: string) => (FINAL_STATUSES as readonly string[]).includes(status);

export function parsePercent(progress: unknown): number | undefined {
  if (typeof progress === 'number' && Number.isFinite(progress)) return clampPercent(progress);
  if (typeof progress !== 'string') return undefined;
  const m = /(\d+(?:\.\d+)?)\s*%?/.exec(progress);
  return m ? clampPercent(Number(m[1])) : undefined;
}
const clampPercent = (n: number) => Math.max(0, Math.min(100, Math.round(n)));

export function normaliseRecord(raw: Record<string, unknown>, fallbackId: string): TaskRecord {
  const str = (v: unknown) => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '');
  const status = str(raw.status).trim().toUpperCase();
  const progress = str(raw.progress).trim();
  const imageUrl = str(raw.imageUrl).trim() || undefined;
  const failReason = str(raw.failReason).trim() || undefined;
  const percent = parsePercent(raw.progress) ?? (status === 'SUCCESS' ? 100 : undefined);
  return { id: taskIdFrom(raw.id) ?? fallbackId, status, progress, percent, imageUrl, failReason, raw };
}

function notFoundError(id: string, detail: string): MedchatError {
  return new MedchatError(
    retextureText.noTask(shellQuote(id), detail),
    ExitCode.failure,
    'not-found',
  );
}

/** GET /mj/task/{id}/fetch. Not-found in any of its shapes (404, 400 with a description, 204, empty 200, `null`) throws kind 'not-found'. */
export async function fetchTask(conn: ServiceConnection, id: string, opts: { signal?: AbortSignal; deadline?: CommandDeadline } = {}): Promise<TaskRecord> {
  const res = await callService(conn, 'GET', `/mj/task/${encodeURIComponent(id)}/fetch`, undefined, { ...opts, what: retextureText.theTaskQuery });
  return interpretTaskResponse(res, id, conn);
}

function interpretTaskResponse(res: ServiceResponse, id: string, conn?: Pick<ServiceConnection, 'apiKeySource'>): TaskRecord {
  if (res.status === 404) {
    const reason = bodyReason(res);
    throw notFoundError(id, reason && !/<\s*html/i.test(res.text) ? `404: ${reason}` : '404');
  }
  if (res.status === 400) {
    const reason = bodyReason(res);
    throw notFoundError(id, reason ? `400: ${reason}` : '400');
  }
  const common = describeHttpFailure(res, retextureText.request, conn);
  if (common) throw common;
  if (res.status === 204) throw notFoundError(id, retextureText.emptyAnswer204);
  if (res.status < 200 || res.status >= 300) {
    const reason = bodyReason(res);
    throw new MedchatError(retextureText.refusedTaskQuery(res.status, reason), ExitCode.failure, 'rejected');
  }
  if (res.text.trim() === '') throw notFoundError(id, retextureText.emptyAnswer);
  if (!res.isJson) {
    const reason = serviceText(res.text);
    throw new MedchatError(retextureText.notATaskRecord(reason), ExitCode.failure, 'malformed');
  }
  if (res.json === null) throw notFoundError(id, 'null');
  if (typeof res.json !== 'object' || Array.isArray(res.json)) {
    throw new MedchatError(retextureText.notATaskRecord(''), ExitCode.failure, 'malformed');
  }
  const raw = res.json as Record<string, unknown>;
  if (!('status' in raw) && !('id' in raw)) {
    const reason = bodyReason(res);
    throw notFoundError(id, reason ? retextureText.serviceSaid(reason) : retextureText.noRecord);
  }
  return normaliseRecord(raw, id);
}

export interface TaskUpdate {
  record: TaskRecord;
  elapsedMs: number;
  /** True when status or progress differ from the previous poll (always true on the first). */
  changed: boolean;
}

interface FollowOptions {
  /** First wait between polls (default 2 s); it grows by half each poll up to `maxIntervalMs`. */
  intervalMs?: number;
  /** Default: five times the first wait, at most 10 s (never below the first wait). */
  maxIntervalMs?: number;
  /** Give up after this long (default 15 minutes)... */
  timeoutMs?: number;
  /** ...or at this deadline, which bounds each poll too (it wins over `timeoutMs`). */
  deadline?: CommandDeadline;
  signal?: AbortSignal;
  onUpdate?: (u: TaskUpdate) => void;
  /** A transient failure (network, 5xx, 429) that will be retried. */
  onRetry?: (err: MedchatError) => void;
  /** Polls at the start during which "not found" counts as pending (right after a submit). */
  notFoundGrace?: number;
  /** Consecutive transient failures before giving up (default 5). */
  maxConsecutiveFailures?: number;
  now?: () => number;
}

export type FollowOutcome =
  | { kind: 'final'; record: TaskRecord; elapsedMs: number }
  /** `unanswered`: the last poll was still waiting for the service when the deadline came. */
  | { kind: 'deadline'; record?: TaskRecord; elapsedMs: number; unanswered?: boolean };

export function backoffSchedule(intervalMs: number, maxIntervalMs?: number): (n: number) => number {
  const max = maxIntervalMs ?? Math.max(intervalMs, Math.min(MAX_POLL_INTERVAL_MS, intervalMs * 5));
  return (n) => Math.min(max, intervalMs * Math.pow(1.5, n));
}

/** Poll until a final status or the deadline. Failures other than transient ones throw. */
export async function followTask(conn: ServiceConnection, id: string, opts: FollowOptions = {}): Promise<FollowOutcome> {
  const now = opts.now ?? Date.now;
  const start = now();
  const cmdDeadline = opts.deadline ?? CommandDeadline.after(opts.timeoutMs ?? DEFAULT_TIMEOUT_MS, now);
  const deadline = cmdDeadline.at;
  const wait = backoffSchedule(opts.intervalMs ?? DEFAULT_POLL_INTERVAL_MS, opts.maxIntervalMs);
  const maxFailures = opts.maxConsecutiveFailures ?? 5;
  let last: TaskRecord | undefined;
  let failures = 0;
  let grace = opts.notFoundGrace ?? 0;
  for (let n = 0; ; n++) {
    try {
      const record = await fetchTask(conn, id, { signal: opts.signal, deadline: cmdDeadline });
      failures = 0;
      grace = 0;
      const changed = !last || last.status !== record.status || last.progress !== record.progress;
      last = record;
      opts.onUpdate?.({ record, elapsedMs: now() - start, changed });
      if (isFinal(record.status)) return { kind: 'final', record, elapsedMs: now() - start };
    } catch (err) {
      if (!(err instanceof MedchatError)) throw err;
      if (err.kind === 'deadline-cut') return { kind: 'deadline', record: last, elapsedMs: now() - start, unanswered: true };
      if (err.kind === 'not-found' && grace > 0) {
        grace--;
      } else if (isTransient(err) && ++failures < maxFailures) {
        opts.onRetry?.(err);
      } else {
        throw err;
      }
    }
    const left = deadline - now();
    if (left <= 0) return { kind: 'deadline', record: last, elapsedMs: now() - start };
    await sleep(Math.min(wait(n), left), opts.signal);
  }
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortError());
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(abortError());
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

const abortError = () => Object.assign(new Error('aborted'), { name: 'AbortError' });

/** The command to come back to a task later, quoted for a shell. */
export function comeBackCommand(id: string, extra = '--wait'): string {
  // i18n-exempt: a command
  return `medchat task ${shellQuote(id)} ${extra}`;
}

/**
 * What a finished or abandoned follow means for the user: undefined for SUCCESS, else the error
 * to report. `via` (" through the proxy host:port") says where an unanswered poll went.
 */
export function outcomeError(outcome: FollowOutcome, id: string, timeoutMs: number, via = ''): MedchatError | undefined {
  if (outcome.kind === 'deadline') {
    const rec = outcome.record;
    const status = rec
      ? retextureText.stillPending(serviceText(rec.status, 40), rec.progress ? serviceText(rec.progress, 20) : '')
      : outcome.unanswered
        ? retextureText.unanswered(via)
        : '';
    return new MedchatError(
      retextureText.didNotFinish(shellQuote(id), formatDuration(timeoutMs), status, comeBackCommand(id)),
      ExitCode.deadline,
      'deadline',
    );
  }
  const r = outcome.record;
  if (r.status === 'SUCCESS') {
    if (!r.imageUrl) return new MedchatError(retextureText.noImageUrl(shellQuote(id), comeBackCommand(id, '--json')), ExitCode.failure, 'malformed');
    return undefined;
  }
  return new MedchatError(retextureText.taskFailed(shellQuote(id), r.status === 'CANCEL', serviceText(r.failReason) || retextureText.noReason), ExitCode.taskFailed, 'task-failed');
}

/** Parse `--poll-interval` / `--timeout` (seconds, fractions allowed) into milliseconds. */
export function parseSeconds(flag: string, raw: string | undefined, fallbackMs: number): number {
  if (raw === undefined) return fallbackMs;
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(n) || n <= 0) {
    throw new MedchatError(retextureText.badSeconds(flag, raw), ExitCode.usage, 'usage');
  }
  return Math.max(1, Math.round(n * 1000));
}
