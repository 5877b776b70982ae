import { getFetch } from '../http.js';
import { MedchatError, shortReason } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import { JsonSyntaxError, parseJsonLossless } from './task-id.js';
import { causeCode, describeConnectionFailure, hostOf } from '../network-errors.js';

export { hostOf };

/** Where and as whom to talk to the service (the same base URL and key as chat). */
export interface ServiceConnection {
  /** Root address, without `/v1`. */
  baseUrl: string;
  apiKey: string;
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

export function serviceUrl(conn: ServiceConnection, path: string): string {
  return conn.baseUrl.replace(/\/+$/, '') + path;
}

/** One HTTP request to the service; network failures become one clear MedchatError. */
export async function callService(
  conn: ServiceConnection,
  method: 'GET' | 'POST',
  path: string,
  body: string | undefined,
  signal?: AbortSignal,
): Promise<ServiceResponse> {
  const fetchFn = await getFetch();
  const url = serviceUrl(conn, path);
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
      body,
      signal,
    });
    text = await res.text();
  } catch (err) {
    throw describeNetworkError(err, conn.baseUrl);
  }
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

export function isAbort(err: unknown): boolean {
  const name = (err as { name?: string })?.name;
  return name === 'AbortError' || name === 'TimeoutError';
}

export function describeNetworkError(err: unknown, baseUrl: string): MedchatError {
  if (err instanceof MedchatError) return err;
  if (isAbort(err)) return new MedchatError('interrupted', ExitCode.interrupted, 'interrupted');
  const where = hostOf(baseUrl);
  const code = causeCode(err);
  const message = String((err as Error)?.message ?? err);
  if (code === 'ERR_INVALID_URL' || /Invalid URL|Failed to parse URL/i.test(message)) {
    return new MedchatError('the base URL is not a valid URL; fix it with: medchat config set base-url https://…', ExitCode.usage, 'usage');
  }
  const connection = describeConnectionFailure(err, baseUrl);
  if (connection) return connection;
  return new MedchatError(`the connection to ${where} failed${code ? ` (${code})` : ''}; check the address and your network, then try again`, ExitCode.failure, 'network');
}

/** The reason a failure body gives: `{description}`, `{message}`, `{error:{message}}`, plain text or an HTML page's title. */
export function bodyReason(res: Pick<ServiceResponse, 'json' | 'isJson' | 'text'>): string {
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
export function describeHttpFailure(res: ServiceResponse, what: string): MedchatError | undefined {
  const reason = bodyReason(res);
  const withReason = (s: string) => (reason ? `${s}: ${reason}` : s);
  const status = res.status;
  if (status === 401 || (status === 403 && res.text.trim() !== '')) {
    return new MedchatError(`${withReason(`the service refused the API key (${status})`)}; set a valid one with: medchat config set api-key`, ExitCode.auth, 'auth');
  }
  if (status === 403 || status === 429) {
    return new MedchatError(`${withReason(`the service is limiting requests (${status})`)}; wait a moment and try again`, ExitCode.failure, 'rate-limit');
  }
  if (status === 413) {
    return new MedchatError(`${withReason(`the ${what} is too large for the service (413)`)}; send a smaller image (services cap requests around 30 MB)`, ExitCode.usage, 'too-large');
  }
  if (status === 408 || status === 504) {
    return new MedchatError(`${withReason(`the service timed out (${status})`)}; try again`, ExitCode.failure, 'timeout');
  }
  if (status >= 500) {
    return new MedchatError(`${withReason(`the service failed (${status})`)}; try again later`, ExitCode.failure, 'server');
  }
  return undefined;
}

/** Transient failures worth another try while following a task. */
export function isTransient(err: MedchatError): boolean {
  return ['rate-limit', 'timeout', 'server', 'network', 'malformed'].includes(err.kind);
}
