import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import { refusedKeyError, type KeySource } from '../config/api-key.js';
import { MedchatError, shortReason } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import { chatText } from '../i18n/messages/chat.js';
import { netText } from '../i18n/messages/net.js';
import { proxyFor } from '../net/http.js';
import { causeCode, describeConnectionFailure, hostOf, proxyAuthError } from '../net/network-errors.js';

export interface ErrorContext {
  baseUrl: string;
  idleTimeoutMs: number;
  /** the model asked for (named when the service does not know it) */
  model?: string;
  /** true once the answer had started arriving */
  midAnswer?: boolean;
  /** where the key came from: a refused key's advice names it */
  apiKeySource?: KeySource;
}

/** The reason a service gave in an error body: OpenAI-style `{error:{message}}`, `{message}`, `{description}` or text. */
function serviceReason(body: unknown): string {
  if (body == null) return '';
  if (typeof body === 'string') {
    try {
      return serviceReason(JSON.parse(body));
    } catch {
      return shortReason(body);
    }
  }
  if (typeof body === 'object') {
    const b = body as Record<string, unknown>;
    const inner = b.error;
    if (typeof inner === 'string') return shortReason(inner);
    if (inner && typeof inner === 'object') return serviceReason(inner);
    for (const k of ['message', 'description', 'detail', 'msg']) {
      if (typeof b[k] === 'string') return shortReason(b[k] as string);
    }
  }
  return '';
}

/** The SDK puts a non-JSON error body (text, HTML) into the message after the status. */
function bodyText(err: APIError): string {
  const text = err.message.replace(/^\d{3}\s*/, '');
  if (/status code \(no body\)/.test(text)) return '';
  return shortReason(text);
}

/**
 * An answer from the proxy itself, not the service: through a proxy, a 407, or a 502/503/504
 * whose body is not the service's JSON (squid's "cannot connect" page, say). Never retried.
 */
export function fromProxy(err: unknown, baseUrl: string): boolean {
  if (!(err instanceof APIError) || !err.status || !proxyFor(baseUrl)) return false;
  if (err.status === 407) return true;
  return (err.status === 502 || err.status === 503 || err.status === 504) && (err.error === undefined || typeof err.error !== 'object');
}

/** A 404 that says the model is unknown (OpenAI's `model_not_found`, or words to that effect). */
function isUnknownModel(err: APIError): boolean {
  const e = err.error as { code?: unknown; type?: unknown; error?: { code?: unknown; type?: unknown } } | undefined;
  const codes = [err.code, e?.code, e?.type, e?.error?.code, e?.error?.type];
  if (codes.includes('model_not_found')) return true;
  return /\bmodel\b.*\b(not found|does not exist|unknown|not exist)/i.test(`${serviceReason(err.error)} ${err.message}`);
}

export function isContextLengthError(err: unknown): boolean {
  const text = err instanceof APIError ? `${err.message} ${serviceReason(err.error)}` : String((err as Error)?.message ?? err);
  return /maximum context length|context[_ ]length|context window|too many tokens|prompt is too long/i.test(text);
}

/** One clear line, with the next step, for anything the SDK or the network can throw. */
export function describeServiceError(err: unknown, ctx: ErrorContext): MedchatError {
  if (err instanceof MedchatError) return err;
  const where = hostOf(ctx.baseUrl);
  if (err instanceof APIUserAbortError) return new MedchatError(chatText.interrupted, ExitCode.interrupted, 'interrupted');
  if (err instanceof APIConnectionTimeoutError) {
    return new MedchatError(chatText.noResponseWithin(where, Math.round(ctx.idleTimeoutMs / 1000)), ExitCode.failure, 'timeout');
  }
  if (err instanceof APIError && err.status) {
    const reason = serviceReason(err.error) || bodyText(err);
    const status = err.status;
    const proxy = proxyFor(ctx.baseUrl);
    if (status === 407 && proxy) return proxyAuthError(proxy, ctx.baseUrl);
    if (proxy && fromProxy(err, ctx.baseUrl)) {
      return new MedchatError(netText.proxyCannotReach(proxy.host, where, status), ExitCode.failure, 'proxy');
    }
    if (status === 401 || status === 403) return refusedKeyError(status, reason, ctx.apiKeySource);
    if (status === 404 && isUnknownModel(err)) {
      return new MedchatError(chatText.unknownModel(ctx.model, reason), ExitCode.usage, 'unknown-model');
    }
    if (status === 404) {
      return new MedchatError(chatText.noEndpoint(ctx.baseUrl, reason), ExitCode.failure, 'not-found');
    }
    if (status === 429) {
      return new MedchatError(chatText.rateLimited(reason), ExitCode.failure, 'rate-limit');
    }
    if (status === 408) return new MedchatError(chatText.serviceTimedOut(reason), ExitCode.failure, 'timeout');
    if (status === 413) return new MedchatError(chatText.tooLarge(reason), ExitCode.failure, 'too-large');
    if (status >= 500) {
      return new MedchatError(chatText.serviceFailed(status, reason), ExitCode.failure, 'server');
    }
    if (isContextLengthError(err)) {
      return new MedchatError(chatText.contextTooLong(status, reason), ExitCode.usage, 'context-length');
    }
    return new MedchatError(chatText.rejected(status, reason), ExitCode.failure, 'rejected');
  }
  if (err instanceof APIError && !(err instanceof APIConnectionError)) {
    // An error object that arrived inside the stream (before the answer, or cutting it short).
    const reason = serviceReason(err.error) || shortReason(err.message);
    return ctx.midAnswer
      ? new MedchatError(chatText.streamErrorMidAnswer(reason), ExitCode.failure, 'stream-error')
      : new MedchatError(chatText.streamError(reason), ExitCode.failure, 'stream-error');
  }
  if (err instanceof SyntaxError) {
    return ctx.midAnswer
      ? new MedchatError(chatText.malformedMidAnswer, ExitCode.failure, 'malformed')
      : new MedchatError(chatText.malformed, ExitCode.failure, 'malformed');
  }
  const code = causeCode(err);
  const message = String((err as Error)?.message ?? err);
  const connection = describeConnectionFailure(err, ctx.baseUrl);
  if (connection) return connection;
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET' || /terminated|other side closed|socket hang up/i.test(message)) {
    return ctx.midAnswer
      ? new MedchatError(chatText.lostMidAnswer(where), ExitCode.incomplete, 'incomplete')
      : new MedchatError(chatText.lostBeforeAnswer(where), ExitCode.failure, 'network');
  }
  if (err instanceof APIConnectionError) {
    return new MedchatError(chatText.cannotReach(where, code), ExitCode.failure, 'network');
  }
  return new MedchatError(chatText.unexpected(shortReason(message)), ExitCode.failure);
}
