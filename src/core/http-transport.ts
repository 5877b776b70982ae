import type http from 'node:http';
import type https from 'node:https';
import type { Readable } from 'node:stream';
import type zlib from 'node:zlib';

// Loaded at the first request, not at start-up (https brings tls and crypto): the chat screen's
// first paint does not wait for them.
const httpModule = () => process.getBuiltinModule('node:http') as typeof http;
const httpsModule = () => process.getBuiltinModule('node:https') as typeof https;
const zlibModule = () => process.getBuiltinModule('node:zlib') as typeof zlib;

/**
 * A `fetch` for the openai SDK built on node:http / node:https: receiving a stream costs about
 * half the CPU of the global fetch (undici), which matters at 50 chunks a second.
 *
 * It behaves as fetch does where the SDK and medchat can tell: connection failures reject with
 * `TypeError('fetch failed', { cause })`, a body cut short errors with `TypeError('terminated',
 * { cause })`, an aborted signal rejects (or errors the body) with the signal's reason, by default
 * a DOMException named 'AbortError'. NODE_EXTRA_CA_CERTS applies as for any https.request.
 * Bodies other than a string or a Uint8Array, Request objects, other schemes and redirects are
 * handed to the global fetch. It never asks for compression.
 *
 * `watch` sees every chunk of the body as it arrives from the socket (before the SDK reads it)
 * and hears once when the body is over, however it ends: medchat's wire monitor, without another
 * stream layer in between.
 */
export interface BodyWatch {
  data(chunk: Buffer): void;
  close(): void;
}

/** A fetch that can watch the body of its response. */
export type WatchedFetch = (input: string | URL | Request, init?: RequestInit, watch?: BodyWatch) => Promise<Response>;

/** Undici's default: connecting (DNS and TCP) may take this long. */
const CONNECT_TIMEOUT_MS = 10_000;
/** Responses that carry no body (a Response with one cannot be made). */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);
const REDIRECT = new Set([301, 302, 303, 307, 308]);

let httpAgent: http.Agent | undefined;
let httpsAgent: https.Agent | undefined;

function agentFor(protocol: string): http.Agent {
  if (protocol === 'https:') return (httpsAgent ??= new (httpsModule().Agent)({ keepAlive: true }));
  return (httpAgent ??= new (httpModule().Agent)({ keepAlive: true }));
}

const abortReason = (signal: AbortSignal): unknown =>
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

/** A body the global fetch watches through one more stream layer (the fallbacks, and the proxy path). */
export function watchResponse(response: Response, watch: BodyWatch): Response {
  if (!response.body) {
    watch.close();
    return response;
  }
  const reader = response.body.getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { value, done } = await reader.read();
        if (done) {
          watch.close();
          controller.close();
          return;
        }
        watch.data(Buffer.from(value.buffer, value.byteOffset, value.byteLength));
        controller.enqueue(value);
      } catch (err) {
        watch.close();
        controller.error(err);
      }
    },
    async cancel(reason) {
      watch.close();
      await reader.cancel(reason).catch(() => {});
    },
  });
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}

/** Another fetch (the proxy path's) made watchable, through one more stream layer. */
export function watching(base: typeof fetch): WatchedFetch {
  return (input, init, watch) => {
    const response = base(input, init);
    return watch ? response.then((r) => watchResponse(r, watch)) : response;
  };
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
    return Promise.reject(new TypeError('Failed to parse URL', { cause: err }));
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return fallback(input, init, watch);
  const signal = init?.signal ?? undefined;
  if (signal?.aborted) return Promise.reject(abortReason(signal));

  return new Promise<Response>((resolve, reject) => {
    const method = (init?.method ?? 'GET').toUpperCase();
    const headers = requestHeaders(init?.headers);
    let payload: string | Uint8Array | undefined;
    if (body != null) {
      payload = body;
      headers['content-length'] = String(typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength);
      if (typeof body === 'string' && !('content-type' in headers)) headers['content-type'] = 'text/plain;charset=UTF-8';
    }

    let req: http.ClientRequest | undefined;
    try {
      // Headers are set after, not passed in the options: NODE_DEBUG=http prints those options,
      // and the Authorization header with them.
      req = (url.protocol === 'https:' ? httpsModule() : httpModule()).request(url, { method, agent: agentFor(url.protocol) });
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

    request.on('error', (err) => fail(settled ? new TypeError('terminated', { cause: err }) : new TypeError('fetch failed', { cause: err })));
    request.on('socket', (socket) => {
      if (!socket.connecting) return;
      connectTimer = setTimeout(() => {
        const err = Object.assign(new Error(`connect ETIMEDOUT ${url.host}`), { code: 'ETIMEDOUT' });
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
      if (REDIRECT.has(status) && incoming.headers.location && (init?.redirect ?? 'follow') !== 'manual') {
        // Rare for this service: let fetch follow it (and apply its rules on methods and headers).
        settled = true;
        release();
        incoming.destroy();
        fallback(input, init, watch).then(resolve, reject);
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
      const stream = new ReadableStream<Uint8Array>({
        start(c) {
          controller = c;
        },
        pull() {
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
        watch?.data(chunk);
        controller!.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        if (controller!.desiredSize! <= 0) {
          paused = true;
          source.pause();
        }
      });
      source.on('end', () => {
        if (over) return;
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
