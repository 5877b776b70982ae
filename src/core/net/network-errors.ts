/**
 * Connection-level failures (before any HTTP status), described the same way for chat,
 * retexture, task polling and downloads: one line naming the host (or the proxy) and the next step.
 */
import { MedchatError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import { proxyFor } from './http.js';
import { PROXY_CLOSED, PROXY_SILENT, PROXY_STATUS } from './proxy-tunnel.js';
import { netText } from '../i18n/messages/net.js';

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
  return new MedchatError(
    netText.proxyAuth(proxy.host, proxy.username !== '', v),
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
    const why = code === 'ECONNREFUSED' ? netText.proxyRefused : code.startsWith('E') && code !== 'ETIMEDOUT' ? netText.proxyDns : netText.proxyTimedOut;
    return new MedchatError(netText.proxyUnreachable(proxy.host, why), ExitCode.failure, 'network');
  }
  if (proxy) {
    const refusal = causeWith(err, PROXY_STATUS);
    if (refusal?.status === 407) return proxyAuthError(proxy, baseUrl);
    if (refusal) {
      const status = refusal.status as number;
      return status === 403 || status === 405
        ? new MedchatError(netText.proxyForbidsTunnel(proxy.host, where, status), ExitCode.failure, 'proxy')
        : new MedchatError(netText.proxyCannotReach(proxy.host, where, status), ExitCode.failure, 'proxy');
    }
    if (causeWith(err, PROXY_CLOSED)) {
      return new MedchatError(netText.proxyClosedTunnel(proxy.host, where), ExitCode.failure, 'proxy');
    }
    if (causeWith(err, PROXY_SILENT)) {
      return new MedchatError(netText.proxySilent(proxy.host, where, proxyVariable(baseUrl)), ExitCode.failure, 'timeout');
    }
  }
  const loop = causeWith(err, 'MEDCHAT_REDIRECT_LOOP');
  if (loop) {
    return new MedchatError(netText.redirectLoop(String(loop.host ?? where)), ExitCode.failure, 'redirect-loop');
  }
  if (code === 'HPE_HEADER_OVERFLOW') {
    return new MedchatError(netText.headersTooLarge(where), ExitCode.failure, 'too-much');
  }
  if (code?.startsWith('HPE_')) {
    return new MedchatError(netText.malformedHttp(where, code), ExitCode.failure, 'malformed');
  }
  if (code === 'ECONNREFUSED') {
    return new MedchatError(netText.refused(where), ExitCode.failure, 'network');
  }
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_NONAME') {
    return new MedchatError(netText.noHost(where), ExitCode.failure, 'network');
  }
  if (code && TLS_CODES.test(code)) {
    return new MedchatError(netText.untrustedTls(where, code), ExitCode.failure, 'tls');
  }
  if (code === 'ETIMEDOUT' || code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'UND_ERR_HEADERS_TIMEOUT') {
    return new MedchatError(netText.connectTimeout(where), ExitCode.failure, 'timeout');
  }
  return undefined;
}
