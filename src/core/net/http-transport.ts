import type http from 'node:http';
import type https from 'node:https';
import type { Readable } from 'node:stream';
import type tls from 'node:tls';
import type zlib from 'node:zlib';
import { watching, type BodyWatch, type WatchedFetch } from './body-watch.js';
import { proxyFor } from './proxy-env.js';
import { forwardOptions, openTunnel, proxyAuthorization } from './proxy-tunnel.js';

// Loaded at the first request, not at start-up (https brings tls and crypto): the chat screen's
// first paint does not wait for them.
const httpModule = () => process.getBuiltinModule('node:http') as typeof http;
const httpsModule = () => process.getBuiltinModule('node:https') as typeof https;
const zlibModule = () => process.getBuiltinModule('node:zlib') as typeof zlib;
const tlsModule = () => process.getBuiltinModule('node:tls') as typeof tls;

/**
 * A `fetch` for the openai SDK built on node:http / node:https: receiving a stream costs about
 * half the CPU of the global fetch (undici), which matters at 50 chunks a second.
 *
 * It behaves as fetch does where the SDK and medchat can tell: connection failures reject with
 * `TypeError('fetch failed', { cause })`, a body cut short errors with `TypeError('terminated',
 * { cause })`, an aborted signal rejects (or errors the body) with the signal's reason, by default
 * a DOMException named 'AbortError'. NODE_EXTRA_CA_CERTS applies as for any https.request.
 * Bodies other than a string or a Uint8Array, Request objects and other schemes are handed to
 * the global fetch. It never asks for compression. Redirects are followed (at most
 * MAX_REDIRECTS, then it fails with the cause code MEDCHAT_REDIRECT_LOOP), as fetch does:
 * 303 (and 301/302 after a POST) turn into a GET, and the Authorization header is not sent to
 * another origin.
 *
 * HTTPS_PROXY / HTTP_PROXY / NO_PROXY apply (src/core/net/proxy-tunnel.ts): an `http://` URL goes to
 * the proxy as an absolute-URI request, an `https://` one through a CONNECT tunnel.
 *
 * `watch` sees every chunk of the body as it arrives from the socket (before the SDK reads it)
 * and hears once when the body is over, however it ends: medchat's wire monitor, without another
 * stream layer in between.
 */
export type { BodyWatch, WatchedFetch } from './body-watch.js';

/** Undici's default: connecting (DNS and TCP) may take this long. */
const CONNECT_TIMEOUT_MS = 10_000;
/** Responses that carry no body (a Response with one cannot be made). */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);
const REDIRECT = new Set([301, 302, 303, 307, 308]);
/** fetch's limit. */
const MAX_REDIRECTS = 20;

let httpAgent: http.Agent | undefined;
let httpsAgent: https.Agent | undefined;

function agentFor(protocol: string): http.Agent {
  if (protocol === 'https:') return (httpsAgent ??= new (httpsModule().Agent)({ keepAlive: true }));
  return (httpAgent ??= new (httpModule().Agent)({ keepAlive: true }));
}

const abortReason = (signal: AbortSignal): unknown =>
  // i18n-exempt: fetch's own internal error, turned into a message by network-errors.ts
  signal.reason ?? new DOMException('This operation was aborted', 'AbortError');

function requestHeaders(init: HeadersInit | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!init) return out;
  const add = (name: string, value: string) => {
    const key = name.toLowerCase();
    out[key] = key in out ? `${out[key]}, ${value}` : `${value}`;
  };
  if (init instanceof Headers) init.forEach((value, name) => add(name, value));
  else if (Array.isArray(init) || Symbol.iterator in init) for (const [name, value] of init as Iterable<[string, string]>) add(name, value);
  else for (const name of Object.keys(init)) add(name, (init as Record<string, string>)[name]!);
  return out;
}

function responseHeaders(raw: string[]): Headers {
  const headers = new Headers();
  for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!);
  return headers;
}

const fallback: WatchedFetch = (input, init, watch) => watching(globalThis.fetch)(input, init, watch);

export const httpFetch: WatchedFetch = (input, init, watch) => {
  const body = init?.body;
  if (input instanceof Request || (body != null && typeof body !== 'string' && !(body instanceof Uint8Array))) {
    return fallback(input, init, watch);
  }
  let url: URL;
  try {
    url = input instanceof URL ? input : new URL(input);
  } catch (err) {
    // i18n-exempt: fetch's own internal error, turned into a message by network-errors.ts
    return Promise.reject(new TypeError('Failed to parse URL', { cause: err }));
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return fallback(input, init, watch);
  return follow(url, init ?? {}, watch, 0);
};

/** One request, then the redirects it is answered with. */
async function follow(url: URL, init: RequestInit, watch: BodyWatch | undefined, hops: number): Promise<Response> {
  const outcome = await send(url, init, watch);
  if (outcome instanceof Response) return outcome;
  // i18n-exempt: fetch's own internal error, turned into a message by network-errors.ts
  if ((init.redirect ?? 'follow') === 'error') throw new TypeError('fetch failed', { cause: new Error('unexpected redirect') });
  if (hops >= MAX_REDIRECTS) {
    // i18n-exempt: fetch's own internal error, turned into a message by network-errors.ts
    throw new TypeError('fetch failed', { cause: Object.assign(new Error(`redirect count exceeded (${url.host})`), { code: 'MEDCHAT_REDIRECT_LOOP', host: url.host }) });
  }
  let next: URL;
  try {
    next = new URL(outcome.location, url);
  } catch (err) {
    // i18n-exempt: fetch's own internal error, turned into a message by network-errors.ts
    throw new TypeError('fetch failed', { cause: err });
  }
  // i18n-exempt: fetch's own internal error, turned into a message by network-errors.ts
  if (next.protocol !== 'http:' && next.protocol !== 'https:') throw new TypeError('fetch failed', { cause: new Error(`redirect to ${next.protocol}`) });
  const method = (init.method ?? 'GET').toUpperCase();
  const headers = requestHeaders(init.headers);
  let nextInit: RequestInit = { ...init, headers };
  if (outcome.status === 303 ? method !== 'HEAD' : (outcome.status === 301 || outcome.status === 302) && method === 'POST') {
    nextInit = { ...nextInit, method: 'GET', body: undefined };
    for (const h of ['content-type', 'content-length', 'content-encoding', 'content-language', 'content-location']) delete headers[h];
  }
  if (next.origin !== url.origin) delete headers.authorization;
  return follow(next, nextInit, watch, hops + 1);
}

interface Redirected {
  status: number;
  location: string;
}

/** One request on the wire (direct, or through the proxy): the response, or where it redirects to. */
async function send(url: URL, init: RequestInit, watch: BodyWatch | undefined): Promise<Response | Redirected> {
  const signal = init.signal ?? undefined;
  if (signal?.aborted) throw abortReason(signal);
  const proxy = proxyFor(url.href);
  let via: http.RequestOptions = { agent: agentFor(url.protocol) };
  let target: string | URL = url;
  if (proxy && url.protocol === 'http:') {
    // The plain forward-proxy form: `POST http://host/path HTTP/1.1` to the proxy.
    const { proxied: _, ...opts } = forwardOptions(proxy, url);
    via = { ...opts, agent: agentFor(opts.protocol!) };
    target = '';
  } else if (proxy) {
    const socket = await openTunnel(proxy, url, signal, abortReason);
    const servername = url.hostname.replace(/^\[|\]$/g, '');
    via = {
      agent: undefined,
      createConnection: () =>
        tlsModule().connect({ socket, servername: /^[\d.]+$|:/.test(servername) ? undefined : servername, ALPNProtocols: ['http/1.1'] }),
    };
  }
  return sendOn(url, target, via, proxy && url.protocol === 'http:' ? proxyAuthorization(proxy) : undefined, init, watch);
}

function sendOn(
  url: URL,
  target: string | URL,
  via: http.RequestOptions,
  proxyAuth: string | undefined,
  init: RequestInit,
  watch: BodyWatch | undefined,
): Promise<Response | Redirected> {
  const body = init.body as string | Uint8Array | null | undefined;
  const signal = init.signal ?? undefined;
  return new Promise<Response | Redirected>((resolve, reject) => {
    const method = (init.method ?? 'GET').toUpperCase();
    const headers = requestHeaders(init.headers);
    let payload: string | Uint8Array | undefined;
    if (body != null) {
      payload = body;
      headers['content-length'] = String(typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength);
      if (typeof body === 'string' && !('content-type' in headers)) headers['content-type'] = 'text/plain;charset=UTF-8';
    }
    if (!target) headers.host = url.host;
    if (proxyAuth) headers['proxy-authorization'] = proxyAuth;

    let req: http.ClientRequest | undefined;
    try {
      // Headers are set after, not passed in the options: NODE_DEBUG=http prints those options,
      // and the Authorization header with them.
      const mod = (target ? url.protocol : via.protocol) === 'https:' ? httpsModule() : httpModule();
      req = target ? mod.request(target, { method, ...via }) : mod.request({ method, ...via });
      for (const name of Object.keys(headers)) req.setHeader(name, headers[name]!);
    } catch (err) {
      req?.on('error', () => {}).destroy();
      reject(new TypeError((err as Error).message, { cause: err })); // e.g. a header value Node refuses
      return;
    }
    const request = req;
    let res: http.IncomingMessage | undefined;
    let controller: ReadableStreamDefaultController<Uint8Array> | undefined;
    let settled = false; // the promise is resolved or rejected
    let over = false; // the body ended, failed or was cancelled
    let connectTimer: NodeJS.Timeout | undefined;

    /** The body (or the request) is over: stop listening, tell the watch, once. */
    const release = () => {
      over = true;
      signal?.removeEventListener('abort', onAbort);
      if (connectTimer) clearTimeout(connectTimer);
    };
    const finish = () => {
      if (over) return;
      release();
      watch?.close();
    };
    const fail = (err: unknown) => {
      if (!settled) {
        settled = true;
        finish();
        reject(err);
      } else if (!over) {
        finish();
        controller?.error(err);
      }
    };
    function onAbort() {
      fail(abortReason(signal!));
      request.destroy();
      res?.destroy();
    }
    signal?.addEventListener('abort', onAbort, { once: true });

    // i18n-exempt: fetch's own internal error, turned into a message by network-errors.ts
    request.on('error', (err) => fail(settled ? new TypeError('terminated', { cause: err }) : new TypeError('fetch failed', { cause: err })));
    request.on('socket', (socket) => {
      if (!socket.connecting) return;
      connectTimer = setTimeout(() => {
        const err = Object.assign(new Error(`connect ETIMEDOUT ${target ? url.host : `${via.hostname}:${via.port}`}`), { code: 'ETIMEDOUT' });
        request.destroy(err);
      }, CONNECT_TIMEOUT_MS);
      connectTimer.unref();
      socket.once('connect', () => clearTimeout(connectTimer));
    });

    request.on('response', (incoming) => {
      if (settled) {
        incoming.destroy(); // aborted or failed meanwhile
        return;
      }
      res = incoming;
      if (connectTimer) clearTimeout(connectTimer);
      const status = incoming.statusCode ?? 0;
      if (REDIRECT.has(status) && incoming.headers.location && (init.redirect ?? 'follow') !== 'manual') {
        settled = true;
        release();
        incoming.destroy();
        resolve({ status, location: incoming.headers.location });
        return;
      }
      const headers = responseHeaders(incoming.rawHeaders);
      const responseInit = { status, statusText: incoming.statusMessage ?? '', headers };
      if (NULL_BODY.has(status) || method === 'HEAD') {
        settled = true;
        finish();
        incoming.resume();
        resolve(new Response(null, responseInit));
        return;
      }
      // Not asked for, but a server may compress anyway: decode as fetch would.
      const encoding = incoming.headers['content-encoding']?.trim().toLowerCase();
      const decoder =
        encoding === 'gzip' || encoding === 'x-gzip' ? zlibModule().createGunzip() :
        encoding === 'deflate' ? zlibModule().createInflate() :
        encoding === 'br' ? zlibModule().createBrotliDecompress() : undefined;
      const source: Readable = decoder ? incoming.pipe(decoder) : incoming;
      if (decoder) decoder.on('error', (err) => fail(new TypeError('terminated', { cause: err })));

      let paused = false;
      // What arrived waits here until it can be handed on, then goes on as one piece:
      // - an event stream's line goes on when it ends: a line decoder joins its buffer with each chunk, so a line
      //   arriving in many chunks (a 16 MB event, cut off by the wire monitor's cap) cost time in the square of their
      //   number; until a chunk brings a line break the chunks wait (no line can be read before it anyway);
      // - while the reader has not taken the last piece, what arrives meanwhile waits for its next read: a reader
      //   behind the socket makes one read for many chunks, not one each (a read costs more than a small chunk).
      // The socket is paused while 64 kB that could be read wait for a reader that does not read.
      const holdLines = /^text\/event-stream\b/i.test(String(incoming.headers['content-type'] ?? ''));
      let waiting: Buffer[] = [];
      let waitingBytes = 0;
      let endsLine = !holdLines; // what waits holds a line break (always, when lines are not held)
      /** Hand on what waits: when the reader has room for it, or (`all`) at the end of the body whatever it is. */
      const handOn = (all: boolean) => {
        if (!waiting.length || !(all || (endsLine && controller!.desiredSize! > 0))) return;
        const out = waiting.length === 1 ? waiting[0]! : Buffer.concat(waiting);
        waiting = [];
        waitingBytes = 0;
        endsLine = !holdLines;
        controller!.enqueue(new Uint8Array(out.buffer, out.byteOffset, out.byteLength));
      };
      const stream = new ReadableStream<Uint8Array>({
        start(c) {
          controller = c;
        },
        pull() {
          handOn(false);
          if (paused) {
            paused = false;
            source.resume();
          }
        },
        cancel() {
          finish();
          incoming.destroy();
          decoder?.destroy();
        },
      });
      source.on('data', (chunk: Buffer) => {
        if (over) return;
        const complete = watch?.data(chunk);
        if (over) return; // the watch gave up on this body (too much, say): it aborted the request
        if (chunk.length) {
          waiting.push(chunk);
          waitingBytes += chunk.length;
          // (A chunk that ends a line, the usual one, is not searched.)
          endsLine ||= chunk[chunk.length - 1] === 0x0a || chunk.indexOf(0x0a) >= 0 || chunk.indexOf(0x0d) >= 0;
        }
        if (complete) {
          // The answer is over (`[DONE]`) though the service keeps the response open: end here.
          handOn(true);
          finish();
          controller!.close();
          incoming.destroy();
          decoder?.destroy();
          return;
        }
        handOn(false);
        if (endsLine && waitingBytes >= 64 * 1024) {
          paused = true;
          source.pause();
        }
      });
      source.on('end', () => {
        if (over) return;
        handOn(true);
        finish();
        controller!.close();
      });
      incoming.on('error', (err) => fail(new TypeError('terminated', { cause: err })));
      incoming.on('close', () => {
        // Closed before its end without an error of its own (Node reports most cuts as 'error' first).
        if (!over && !incoming.complete && !decoder) fail(new TypeError('terminated', { cause: Object.assign(new Error('aborted'), { code: 'ECONNRESET' }) }));
      });
      settled = true;
      resolve(new Response(stream, responseInit));
    });

    request.end(payload);
  });
};
