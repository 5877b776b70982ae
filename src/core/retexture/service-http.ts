import { MedchatError, shortReason } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import { JsonSyntaxError, parseJsonLossless } from './task-id.js';
import { causeCode, causeMessages, describeConnectionFailure, hostOf, proxyAuthError } from '../net/network-errors.js';
import { getFetch, proxyFor } from '../net/http.js';
import { sanitizeForTerminal } from '../text/sanitize.js';
import { formatDuration } from '../text/format.js';
import { refusedKeyError, type KeySource } from '../config/api-key.js';
import { REQUEST_TIMEOUT_MS, requestTimer, type CommandDeadline } from './deadline.js';
import { retextureText } from '../i18n/messages/retexture.js';
import { chatText } from '../i18n/messages/chat.js';

export { hostOf };

/** Where and as whom to talk to the service (the same base URL and key as chat). */
export interface ServiceConnection {
  /** Root address, without `/v1`. */
  baseUrl: string;
  apiKey: string;
  /** Where the key came from (a refused key's advice names it). */
  apiKeySource?: KeySource;
  /** Keep an audit line for the job (core/audit); a resolved `Settings` carries it. */
  audit?: boolean;
}

export interface ServiceResponse {
  status: number;
  contentType: string;
  text: string;
  /** The body parsed losslessly, `undefined` when empty or not JSON. */
  json: unknown;
  /** True when the body was non-empty and parsed as JSON. */
  isJson: boolean;
}

function serviceUrl(conn: ServiceConnection, path: string): string {
  return conn.baseUrl.replace(/\/+$/, '') + path;
}

/** The most a submit response or task record may hold; more is refused (a body that never ends must not fill memory). */
const MAX_RESPONSE_BYTES = 1024 * 1024;

export interface CallOptions {
  /** The user's stop (a signal, Esc). */
  signal?: AbortSignal;
  /** The whole command's deadline; the request is cut at it. */
  deadline?: CommandDeadline;
  /** This request's own limit (default 30 s). */
  timeoutMs?: number;
  /** How to name the request in messages: "the submit", "the task query". */
  what?: string;
}

/**
 * One HTTP request to the service, under a time limit and a byte limit; network failures become
 * one clear MedchatError. A request cut by the deadline throws kind 'deadline-cut' (exit 7), one
 * cut by its own limit kind 'timeout' (exit 1, worth another try while polling).
 */
export async function callService(conn: ServiceConnection, method: 'GET' | 'POST', path: string, body: string | Buffer | undefined, opts: CallOptions = {}): Promise<ServiceResponse> {
  const fetchFn = await getFetch();
  const url = serviceUrl(conn, path);
  const what = opts.what ?? retextureText.theRequest;
  const limitMs = opts.timeoutMs ?? REQUEST_TIMEOUT_MS;
  const timer = requestTimer(opts.signal, limitMs, opts.deadline);
  let res: Response;
  let text: string;
  try {
    res = await fetchFn(url, {
      method,
      headers: {
        authorization: `Bearer ${conn.apiKey}`,
        accept: 'application/json',
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      body: body as BodyInit | undefined, // a Buffer is a Uint8Array: sent as it is
      signal: timer.signal,
    });
    text = (await readBodyLimited(res, MAX_RESPONSE_BYTES, () => oversized(what, conn.baseUrl))).toString('utf8');
  } catch (err) {
    const expired = timer.expired();
    if (expired === 'deadline') throw deadlinePassed(what);
    if (expired === 'request') throw requestTimedOut(what, conn.baseUrl, limitMs);
    throw describeNetworkError(err, conn.baseUrl);
  } finally {
    timer.dispose();
  }
  const refusal = proxyRefusal(res, conn.baseUrl);
  if (refusal) throw refusal;
  const contentType = res.headers.get('content-type') ?? '';
  let json: unknown;
  let isJson = false;
  if (text.trim() !== '') {
    try {
      json = parseJsonLossless(text);
      isJson = true;
    } catch (err) {
      if (!(err instanceof JsonSyntaxError)) throw err;
    }
  }
  return { status: res.status, contentType, text, json, isJson };
}

/**
 * Read a response body, refusing it (and closing the request) once it passes `maxBytes`. With a
 * declared length the bytes go straight into one buffer of that size; without one, each chunk
 * is copied out of the network's buffers so only the body itself is held.
 */
export async function readBodyLimited(res: Response, maxBytes: number, tooLarge: () => Error, onData?: (bytes: number) => void): Promise<Buffer> {
  const declared = Number(res.headers.get('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > maxBytes) {
    await res.body?.cancel().catch(() => {});
    throw tooLarge();
  }
  if (!res.body) return Buffer.alloc(0);
  const reader = res.body.getReader();
  const whole = Number.isInteger(declared) && declared > 0 ? Buffer.allocUnsafe(declared) : undefined;
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (size + value.byteLength > maxBytes || (whole && size + value.byteLength > whole.length)) {
        chunks.length = 0;
        await reader.cancel().catch(() => {});
        throw tooLarge();
      }
      if (whole) whole.set(value, size);
      else chunks.push(Buffer.from(value));
      size += value.byteLength;
      onData?.(size);
    }
  } finally {
    reader.releaseLock();
  }
  return whole ? whole.subarray(0, size) : Buffer.concat(chunks, size);
}

const megabytes = (n: number) => `${Math.round((n / 1024 / 1024) * 10) / 10} MB`;

function oversized(what: string, baseUrl: string): MedchatError {
  return new MedchatError(
    retextureText.oversized(megabytes(MAX_RESPONSE_BYTES), what, hostOf(baseUrl)),
    ExitCode.failure,
    'oversized',
  );
}

/**
 * The whole command's `--timeout` passed during a request: kind 'deadline-cut' (exit 7). The
 * caller says what that means (the task id, how to come back); polling turns it into a deadline outcome.
 */
export function deadlinePassed(what: string): MedchatError {
  return new MedchatError(retextureText.deadlinePassed(what), ExitCode.deadline, 'deadline-cut');
}

/** The request's own limit passed: no answer (or no end to it) in time. Names the proxy when one is used. */
export function requestTimedOut(what: string, url: string, limitMs: number): MedchatError {
  const proxy = proxyFor(url);
  return new MedchatError(retextureText.noAnswerWithin(hostOf(url), proxy?.host, what, formatDuration(limitMs)), ExitCode.failure, 'timeout');
}

export function isAbort(err: unknown): boolean {
  const name = (err as { name?: string })?.name;
  return name === 'AbortError' || name === 'TimeoutError';
}

export function describeNetworkError(err: unknown, baseUrl: string): MedchatError {
  if (err instanceof MedchatError) return err;
  if (isAbort(err)) return new MedchatError(chatText.interrupted, ExitCode.interrupted, 'interrupted');
  const where = hostOf(baseUrl);
  const code = causeCode(err);
  const message = String((err as Error)?.message ?? err);
  if (code === 'ERR_INVALID_URL' || /Invalid URL|Failed to parse URL/i.test(message)) {
    return new MedchatError(retextureText.badBaseUrl, ExitCode.usage, 'usage');
  }
  const proxy = proxyFor(baseUrl);
  const proxyStatus = proxy ? /Proxy response \((\d+)\)/.exec(causeMessages(err))?.[1] : undefined;
  if (proxy && proxyStatus === '407') return proxyAuthError(proxy, baseUrl);
  if (/redirect count exceeded/i.test(causeMessages(err))) {
    return new MedchatError(retextureText.redirectLoop(where), ExitCode.failure, 'network');
  }
  const connection = describeConnectionFailure(err, baseUrl);
  if (connection) {
    // A proxy that refuses the tunnel (403, 407…) will not change its mind in a few seconds: not worth retrying.
    return proxyStatus ? new MedchatError(connection.message, connection.exitCode, 'proxy-refused') : connection;
  }
  if (proxy) {
    // Through a proxy, a connection that fails any other way (CONNECT refused or closed, the
    // tunnel dropped) is most likely the proxy's doing: name it.
    return new MedchatError(
      retextureText.proxyConnectionFailed(where, proxy.host, code),
      ExitCode.failure,
      'network',
    );
  }
  return new MedchatError(retextureText.connectionFailed(where, code), ExitCode.failure, 'network');
}

/** Text the service sent, cut to one line and made harmless on a terminal (controls and bidi overrides shown, not obeyed). */
export function serviceText(text: unknown, max = 200): string {
  return typeof text === 'string' ? sanitizeForTerminal(shortReason(text, max)) : '';
}

/** The reason a failure body gives: `{description}`, `{message}`, `{error:{message}}`, plain text or an HTML page's title. */
export function bodyReason(res: Pick<ServiceResponse, 'json' | 'isJson' | 'text'>): string {
  return sanitizeForTerminal(rawBodyReason(res));
}

function rawBodyReason(res: Pick<ServiceResponse, 'json' | 'isJson' | 'text'>): string {
  if (res.isJson && res.json && typeof res.json === 'object') {
    const b = res.json as Record<string, unknown>;
    const inner = b.error;
    if (typeof inner === 'string') return shortReason(inner);
    if (inner && typeof inner === 'object') {
      const m = (inner as Record<string, unknown>).message;
      if (typeof m === 'string') return shortReason(m);
    }
    for (const k of ['description', 'message', 'msg', 'detail', 'failReason']) {
      if (typeof b[k] === 'string' && b[k]) return shortReason(b[k] as string);
    }
    return '';
  }
  if (res.isJson) return typeof res.json === 'string' ? shortReason(res.json) : '';
  return shortReason(res.text);
}

/**
 * Failures that look the same on every endpoint: the key refused, rate limits, the body too
 * large, the service down. Returns undefined for statuses the caller handles itself.
 */
export function describeHttpFailure(res: ServiceResponse, what: string, conn?: Pick<ServiceConnection, 'apiKeySource'>): MedchatError | undefined {
  const reason = bodyReason(res);
  const status = res.status;
  if (status === 401 || (status === 403 && res.text.trim() !== '')) return refusedKeyError(status, reason, conn?.apiKeySource);
  if (status === 403 || status === 429) {
    return new MedchatError(retextureText.limiting(status, reason), ExitCode.failure, 'rate-limit');
  }
  if (status === 413) {
    return new MedchatError(retextureText.tooLarge(what, reason), ExitCode.usage, 'too-large');
  }
  if (status === 408 || status === 504) {
    return new MedchatError(retextureText.timedOut(status, reason), ExitCode.failure, 'timeout');
  }
  if (status >= 500) {
    return new MedchatError(retextureText.failed(status, reason), ExitCode.failure, 'server');
  }
  return undefined;
}

/** Transient failures worth another try while following a task. */
export function isTransient(err: MedchatError): boolean {
  return ['rate-limit', 'timeout', 'server', 'network', 'malformed'].includes(err.kind);
}

/**
 * An answer made by the proxy itself (the plain forward form of an http:// service puts the
 * proxy's refusals where the service's answers go): a 407, or a response that carries a proxy's
 * own error header (squid's `X-Squid-Error`, RFC 9209's `Proxy-Status`). Not retried.
 */
function proxyRefusal(res: Response, baseUrl: string): MedchatError | undefined {
  const proxy = proxyFor(baseUrl);
  if (!proxy || res.status < 400) return undefined;
  if (res.status === 407) return proxyAuthError(proxy, baseUrl);
  const mark = res.headers.get('x-squid-error') ?? res.headers.get('proxy-status');
  if (!mark) return undefined;
  return new MedchatError(
    retextureText.proxyRefused(proxy.host, hostOf(baseUrl), res.status, sanitizeForTerminal(shortReason(mark, 60))),
    ExitCode.failure,
    'proxy-refused',
  );
}
