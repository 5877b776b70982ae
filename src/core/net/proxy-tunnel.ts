/**
 * Requests through a forward proxy (HTTPS_PROXY / HTTP_PROXY), done the way curl does them:
 * an `http://` target goes to the proxy as an absolute-URI request (no CONNECT), an `https://`
 * target through one `CONNECT host:port` tunnel per request. Every failure here is final for the
 * request (no reconnect loop): a refusal, a 407, a connection closed on CONNECT.
 */
import type http from 'node:http';
import type https from 'node:https';
import type net from 'node:net';
import { formatDuration } from '../text/format.js';

const httpModule = () => process.getBuiltinModule('node:http') as typeof http;
const httpsModule = () => process.getBuiltinModule('node:https') as typeof https;

/** Connecting (DNS and TCP) to the proxy may take this long. */
const PROXY_CONNECT_TIMEOUT_MS = 10_000;
/** The whole CONNECT exchange (connect, ask, answer) may take this long: a proxy answers at once. */
const PROXY_TUNNEL_TIMEOUT_MS = 30_000;

/** Error codes set on the `cause` of a proxy failure (src/core/net/network-errors.ts words them). */
export const PROXY_STATUS = 'MEDCHAT_PROXY_STATUS';
export const PROXY_CLOSED = 'MEDCHAT_PROXY_CLOSED';
export const PROXY_SILENT = 'MEDCHAT_PROXY_SILENT';

/** `Proxy-Authorization: Basic …` from the credentials in the proxy URL, if any. */
export function proxyAuthorization(proxy: URL): string | undefined {
  if (!proxy.username && !proxy.password) return undefined;
  const creds = `${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`;
  return `Basic ${Buffer.from(creds).toString('base64')}`;
}

const proxyPort = (proxy: URL) => Number(proxy.port || (proxy.protocol === 'https:' ? 443 : 80));

/** Options for node:http's request that send an `http://` target to the proxy in absolute form. */
export function forwardOptions(proxy: URL, target: URL): http.RequestOptions & { proxied: true } {
  return { protocol: proxy.protocol === 'https:' ? 'https:' : 'http:', hostname: proxy.hostname.replace(/^\[|\]$/g, ''), port: proxyPort(proxy), path: target.href, proxied: true };
}

const proxyFailure = (message: string, code: string, extra: Record<string, unknown> = {}) =>
  // i18n-exempt: internal cause, turned into a message by network-errors.ts
  new TypeError('fetch failed', { cause: Object.assign(new Error(message), { code, ...extra }) });

/**
 * Open a tunnel to `target` through `proxy`: resolves with the socket once the proxy answered
 * 200, rejects (as fetch does, `TypeError('fetch failed', { cause })`) when it refused, closed,
 * or `signal` aborted. One CONNECT, never retried here.
 */
export function openTunnel(proxy: URL, target: URL, signal: AbortSignal | undefined, abortReason: (s: AbortSignal) => unknown): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const authority = `${target.hostname}:${target.port || 443}`;
    const headers: Record<string, string> = { host: authority };
    const auth = proxyAuthorization(proxy);
    if (auth) headers['proxy-authorization'] = auth;
    const mod = proxy.protocol === 'https:' ? httpsModule() : httpModule();
    const req = mod.request({ hostname: proxy.hostname.replace(/^\[|\]$/g, ''), port: proxyPort(proxy), method: 'CONNECT', path: authority, headers, agent: false });
    let done = false;
    let timer: NodeJS.Timeout | undefined;
    const deadline = setTimeout(
      // i18n-exempt: internal cause, turned into a message by network-errors.ts
      () => settle(proxyFailure(`the proxy did not answer CONNECT ${authority} within ${formatDuration(PROXY_TUNNEL_TIMEOUT_MS)}`, PROXY_SILENT, { target: authority })),
      PROXY_TUNNEL_TIMEOUT_MS,
    );
    deadline.unref();
    const settle = (err: unknown, socket?: net.Socket) => {
      if (done) {
        socket?.destroy();
        return;
      }
      done = true;
      clearTimeout(deadline);
      if (timer) clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      if (err) {
        socket?.destroy();
        req.destroy();
        reject(err);
      } else resolve(socket!);
    };
    function onAbort() {
      settle(abortReason(signal!));
    }
    if (signal?.aborted) return onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
    const refused = (status: number) =>
      // i18n-exempt: internal cause, turned into a message by network-errors.ts
      proxyFailure(`Proxy response (${status}) to CONNECT ${authority}`, PROXY_STATUS, { status, target: authority });
    req.on('connect', (res: http.IncomingMessage, socket: net.Socket, head: Buffer) => {
      if (res.statusCode !== 200) return settle(refused(res.statusCode ?? 0), socket);
      if (head.length) socket.unshift(head);
      settle(undefined, socket);
    });
    req.on('response', (res: http.IncomingMessage) => {
      res.resume();
      settle(refused(res.statusCode ?? 0));
    });
    req.on('socket', (socket: net.Socket) => {
      if (!socket.connecting) return;
      timer = setTimeout(() => req.destroy(Object.assign(new Error(`connect ETIMEDOUT ${proxy.host}`), { code: 'ETIMEDOUT' })), PROXY_CONNECT_TIMEOUT_MS);
      timer.unref();
      socket.once('connect', () => clearTimeout(timer));
    });
    req.on('error', (err: NodeJS.ErrnoException) => {
      // Refused, unresolvable or timed out: the proxy is down (the codes say so). Anything else
      // (closed or reset while asking for the tunnel, a garbled answer): the proxy would not tunnel.
      if (err.code === 'ECONNREFUSED' || err.code === 'ENOTFOUND' || err.code === 'EAI_AGAIN' || err.code === 'ETIMEDOUT') {
        // i18n-exempt: internal cause, turned into a message by network-errors.ts
        settle(new TypeError('fetch failed', { cause: err }));
      } else if (err.code?.startsWith('HPE_')) {
        // i18n-exempt: internal cause, turned into a message by network-errors.ts
        settle(new TypeError('fetch failed', { cause: err }));
      // i18n-exempt: internal cause, turned into a message by network-errors.ts
      } else settle(proxyFailure(`the proxy closed the connection on CONNECT ${authority}: ${err.message}`, PROXY_CLOSED, { target: authority }));
    });
    req.end();
  });
}
