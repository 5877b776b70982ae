/**
 * Connection-level failures (before any HTTP status), described the same way for chat,
 * retexture, task polling and downloads: one line naming the host (or the proxy) and the next step.
 */
import { MedchatError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import { proxyFor } from './http.js';
import { PROXY_CLOSED, PROXY_SILENT, PROXY_STATUS } from './proxy-tunnel.js';

/** Error codes that mean the server's certificate was not trusted or TLS failed. */
const TLS_CODES = /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER|ERR_TLS|ERR_SSL|EPROTO/;

/** The first `code` string along an error's cause chain (undici puts it deep inside). */
export function causeCode(err: unknown): string | undefined {
  let e: unknown = err;
  for (let i = 0; i < 5 && e; i++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && code) return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/** The first error along the cause chain that has `code` set to one of medchat's own codes. */
function causeWith(err: unknown, code: string): (Error & Record<string, unknown>) | undefined {
  let e: unknown = err;
  for (let i = 0; i < 5 && e; i++) {
    if ((e as { code?: unknown }).code === code) return e as Error & Record<string, unknown>;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/** The variable a user sets for the proxy that `baseUrl` goes through. */
const proxyVariable = (baseUrl: string) => (baseUrl.startsWith('https:') ? 'HTTPS_PROXY' : 'HTTP_PROXY');

/** A 407 from the proxy: it wants a user name and password. */
export function proxyAuthError(proxy: URL, baseUrl: string): MedchatError {
  const v = proxyVariable(baseUrl);
  const how = proxy.username ? 'the user name or password in' : 'put them in';
  return new MedchatError(
    `the proxy ${proxy.host} wants a user name and password (407); ${how} ${v}, e.g. ${v}=http://user:password@${proxy.host}`,
    ExitCode.failure,
    'proxy-auth',
  );
}

/** The messages along an error's cause chain, joined. */
export function causeMessages(err: unknown): string {
  const parts: string[] = [];
  let e: unknown = err;
  for (let i = 0; i < 5 && e; i++) {
    parts.push(String((e as { message?: unknown }).message ?? ''));
    e = (e as { cause?: unknown }).cause;
  }
  return parts.join(' | ');
}

export function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

/**
 * The one-line description of a failure to connect to `baseUrl` (refused, DNS, TLS, timeouts,
 * a proxy that is down or cannot reach it), or undefined when `err` is not one of those.
 */
export function describeConnectionFailure(err: unknown, baseUrl: string): MedchatError | undefined {
  const code = causeCode(err);
  const where = hostOf(baseUrl);
  const proxy = proxyFor(baseUrl);
  if (proxy && (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'ETIMEDOUT' || code === 'UND_ERR_CONNECT_TIMEOUT')) {
    // With a proxy, medchat connects only to the proxy: a connection failure is the proxy's.
    const why = code === 'ECONNREFUSED' ? 'connection refused' : code.startsWith('E') && code !== 'ETIMEDOUT' ? 'DNS lookup failed' : 'timed out';
    return new MedchatError(`cannot connect to the proxy ${proxy.host} (${why}); check HTTPS_PROXY / HTTP_PROXY (NO_PROXY lists hosts that bypass it)`, ExitCode.failure, 'network');
  }
  if (proxy) {
    const refusal = causeWith(err, PROXY_STATUS);
    if (refusal?.status === 407) return proxyAuthError(proxy, baseUrl);
    if (refusal) {
      const status = refusal.status as number;
      return status === 403 || status === 405
        ? new MedchatError(`the proxy ${proxy.host} refused to tunnel to ${where} (CONNECT, ${status}); ask its operator to allow this port, or set NO_PROXY if the service is inside your network`, ExitCode.failure, 'proxy')
        : new MedchatError(`the proxy ${proxy.host} could not reach ${where} (${status}); check the address, or NO_PROXY if the service is inside your network`, ExitCode.failure, 'proxy');
    }
    if (causeWith(err, PROXY_CLOSED)) {
      return new MedchatError(`the proxy ${proxy.host} closed the connection when asked to tunnel to ${where} (CONNECT); ask its operator to allow this port, or set NO_PROXY if the service is inside your network`, ExitCode.failure, 'proxy');
    }
    if (causeWith(err, PROXY_SILENT)) {
      return new MedchatError(`the proxy ${proxy.host} did not answer when asked to tunnel to ${where} (CONNECT); check ${proxyVariable(baseUrl)}, or set NO_PROXY if the service is inside your network`, ExitCode.failure, 'timeout');
    }
  }
  const loop = causeWith(err, 'MEDCHAT_REDIRECT_LOOP');
  if (loop) {
    return new MedchatError(`the service redirected too many times (a redirect loop at ${String(loop.host ?? where)}); check the address with: medchat config get base-url`, ExitCode.failure, 'redirect-loop');
  }
  if (code === 'HPE_HEADER_OVERFLOW') {
    return new MedchatError(`${where} sent response headers larger than 16 KB (the limit); the service or a proxy in between is misbehaving, try again later`, ExitCode.failure, 'too-much');
  }
  if (code?.startsWith('HPE_')) {
    return new MedchatError(`${where} sent a malformed HTTP response (${code}); the service or a proxy in between is misbehaving, try again later`, ExitCode.failure, 'malformed');
  }
  if (code === 'ECONNREFUSED') {
    return new MedchatError(`cannot connect to ${where} (connection refused); check the address with: medchat config get base-url`, ExitCode.failure, 'network');
  }
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_NONAME') {
    return new MedchatError(`cannot find the host ${where} (DNS lookup failed); check the address and your network`, ExitCode.failure, 'network');
  }
  if (code && TLS_CODES.test(code)) {
    return new MedchatError(`the TLS certificate of ${where} is not trusted (${code}); for a private CA set NODE_EXTRA_CA_CERTS=/path/to/ca.pem`, ExitCode.failure, 'tls');
  }
  if (code === 'ETIMEDOUT' || code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'UND_ERR_HEADERS_TIMEOUT') {
    return new MedchatError(`timed out connecting to ${where}; check your network or proxy settings`, ExitCode.failure, 'timeout');
  }
  return undefined;
}
