import { APIConnectionError, APIError } from 'openai';
import type { ChatEvent } from './chat-events.js';
import { MedchatError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import { chatText } from '../i18n/messages/chat.js';
import { formatDuration } from '../text/format.js';
import { describeServiceError, fromProxy, type ErrorContext } from './service-errors.js';

/** Bounded retries for one chat call: which failures, how many, how long to wait in all. */
export interface CallOptions {
  signal?: AbortSignal;
  /** Attempts after the first, for 408/429/5xx and dropped connections before any text. */
  retries?: number;
  /**
   * The most this call waits between attempts, all waits together: a `retry-after` that would
   * take it past this is not waited for (the call fails and says how long the service asked for).
   */
  maxRetryAfterMs?: number;
  /**
   * Each wait's most (batch): a `retry-after` longer than this, or no finite time at all
   * (`Infinity`, a date in 2100), is taken as this: wait this long, then try again (within
   * `maxRetryAfterMs` in all). Unset: such a wait is not waited for at all (the call fails).
   */
  maxEachRetryAfterMs?: number;
  /**
   * Told of every 429 or 503 from the service (retried or not): what it asked for (`retryAfterMs`,
   * from `retry-after` seconds or an HTTP date) and when the attempt that met it started. A
   * rate-aware caller (batch) slows down for everyone, not just this call.
   */
  onThrottle?: (info: Throttle) => void;
  /**
   * Awaited before each retry, after its wait: a caller that shares a limit on requests in flight
   * (batch) takes a turn under that limit again here, so retries obey a lowered limit too.
   */
  beforeRetry?: () => Promise<void>;
}

export interface Throttle {
  status: number;
  retryAfterMs?: number;
  attemptStartedAt: number;
}


const RETRYABLE = new Set([408, 409, 429, 500, 502, 503, 504]);
const DEFAULT_RETRIES = Number(process.env.MEDCHAT_RETRIES ?? 2);
const DEFAULT_MAX_RETRY_AFTER_MS = 30_000;

function retryAfterMs(err: APIError): number | undefined {
  const h = err.headers;
  const ms = h?.get('retry-after-ms');
  if (ms && !Number.isNaN(Number(ms))) return Number(ms);
  const ra = h?.get('retry-after');
  if (!ra) return undefined;
  const secs = Number(ra);
  if (!Number.isNaN(secs)) return secs * 1000;
  const date = Date.parse(ra);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

function transientConnection(err: unknown): boolean {
  if (!(err instanceof APIConnectionError)) return false;
  let e: unknown = err;
  for (let i = 0; i < 5 && e; i++) {
    const code = (e as { code?: string }).code;
    if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET' || code === 'EPIPE') return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });

/**
 * Run `attempt` with bounded retries. Yields a `retry` event before each wait so a front end can
 * say what is happening. Only failures before any answer text are retried.
 */
export async function* withRetries<T>(
  settings: ErrorContext,
  opts: CallOptions,
  attempt: () => Promise<T>,
): AsyncGenerator<ChatEvent, T> {
  const retries = opts.retries ?? DEFAULT_RETRIES;
  const cap = opts.maxRetryAfterMs ?? DEFAULT_MAX_RETRY_AFTER_MS;
  let waited = 0; // the cap is for all waits together, not for each
  for (let n = 0; ; n++) {
    if (n > 0 && opts.beforeRetry) {
      await opts.beforeRetry();
      if (opts.signal?.aborted) throw interrupted();
    }
    const attemptStartedAt = Date.now();
    try {
      return await attempt();
    } catch (err) {
      if (opts.signal?.aborted) throw interrupted();
      const status = err instanceof APIError ? err.status : undefined;
      const proxied = fromProxy(err, settings.baseUrl);
      if ((status === 429 || status === 503) && !proxied) opts.onThrottle?.({ status, retryAfterMs: retryAfterMs(err as APIError), attemptStartedAt });
      const retryable = ((status !== undefined && RETRYABLE.has(status)) || transientConnection(err)) && !proxied;
      if (err instanceof SyntaxError) throw err; // a malformed body: the caller says which kind
      if (!retryable || n >= retries) throw describeServiceError(err, settings);
      let delay = 500 * 2 ** n * (1 - Math.random() * 0.25);
      const askedFor = err instanceof APIError ? retryAfterMs(err) : undefined;
      const each = opts.maxEachRetryAfterMs;
      const asked = askedFor !== undefined && each !== undefined && !(askedFor <= each) ? each : askedFor;
      if (asked !== undefined && askedFor !== undefined) {
        if (waited + asked > cap) {
          const base = describeServiceError(err, settings);
          throw new MedchatError(
            chatText.asksToWait(base.message.replace(/(?:; |；)[^;；]*$/, ''), Number.isFinite(askedFor) ? formatDuration(askedFor) : undefined),
            base.exitCode,
            base.kind,
          );
        }
        delay = asked;
      }
      delay = Math.min(delay, Math.max(0, cap - waited));
      waited += delay;
      yield { type: 'retry', attempt: n + 1, delayMs: delay, reason: status ? `HTTP ${status}` : chatText.connectionDropped };
      await sleep(delay, opts.signal);
      if (opts.signal?.aborted) throw interrupted();
    }
  }
}

export const interrupted = () => new MedchatError(chatText.interrupted, ExitCode.interrupted, 'interrupted');
