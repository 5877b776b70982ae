/**
 * The service as tests need it to misbehave: the stand-in of src/stand-in/ (which only ever answers
 * as a well-behaved service does), with the faults a test asks for added through its two hooks:
 * `ChatDouble.onRequest` (per request: count, hold, throttle) and `ChatScript.send` (per reply:
 * drop, stall, malformed or error frames, a missing `[DONE]`, a raw body).
 *
 * `startServiceDouble` here is the stand-in's, with a `MisbehavingChat` as its `chat`: its
 * `enqueue` takes the fault fields below beside the stand-in's own, and it adds `throttleNext`,
 * `holdAfter`/`release`, `arrivals` and `inFlight`.
 */
import type http from 'node:http';
import type { Socket } from 'node:net';
import { ChatDouble, DoubleServer, RetextureDouble, type ChatDoubleOptions, type ChatFrame, type ChatScript, type ChatWire } from '../../src/stand-in/index.js';

// Everything else a test takes from the stand-in, from here too; `startServiceDouble` and `ServiceDouble` below are this file's own.
export * from '../../src/stand-in/index.js';

const delay = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** A chat script with the faults the stand-in never commits. Plain data (it may cross to a worker thread). */
export interface MisbehavingScript extends ChatScript {
  /** false: end without `data: [DONE]`. */
  done?: boolean;
  /** After this many frames: drop the connection / stop sending but keep it open / send a bad line / an error object / an `event: error` frame. */
  dropAfter?: number;
  stallAfter?: number;
  malformedAfter?: number;
  errorObjectAfter?: number;
  errorEventAfter?: number;
  /** Raw text written as the whole response body with status 200 (for not-an-event-stream cases). */
  rawStreamBody?: string;
  /**
   * A response written byte for byte, for streamed and non-streamed requests alike: each part is
   * written and flushed on its own (so a multi-byte character can be split across TCP packets),
   * then the connection ends cleanly, is reset, or stays open sending nothing.
   */
  raw?: { status?: number; headers?: Record<string, string>; parts: Array<string | Buffer>; gapMs?: number; end?: 'close' | 'reset' | 'stall' };
}

/** A rate limiter's answer: `status` (429 or 503) with `retry-after` (seconds, or an HTTP date). */
export interface ThrottleScript {
  status?: 429 | 503;
  /** A function is asked when the refusal is sent: an HTTP date then counts from that moment, not from the test's start. */
  retryAfter?: number | string | (() => number | string);
  /**
   * Refuse the `n` requests of `throttleNext` together, as a burst meets a rate limiter: each
   * refusal waits until all `n` have arrived (or 30 s have passed), so they are in flight at
   * once however slowly the client sends them.
   */
  together?: boolean;
}

/** How long `together` waits for the rest of a burst before answering anyway (the test then says what arrived). */
const BURST_WAIT_MS = 30_000;

/** The stand-in's script for `s`: its fault fields become a `send` hook (none: `s` as it is). */
export function misbehaving(s: MisbehavingScript): ChatScript {
  const { done, dropAfter, stallAfter, malformedAfter, errorObjectAfter, errorEventAfter, rawStreamBody, raw, ...script } = s;
  const faults = { done, dropAfter, stallAfter, malformedAfter, errorObjectAfter, errorEventAfter };
  if (raw) return { ...script, send: ({ res }) => sendRaw(res, raw) };
  if (rawStreamBody !== undefined) return { ...script, send: (x) => x.answer(async (_frames, wire) => void wire.res.end(rawStreamBody)) };
  if (Object.values(faults).every((v) => v === undefined)) return script;
  return { ...script, send: (x) => x.answer((frames, wire) => writeWithFaults(frames, wire, faults)) };
}

async function sendRaw(res: http.ServerResponse, raw: NonNullable<MisbehavingScript['raw']>): Promise<void> {
  res.writeHead(raw.status ?? 200, { 'content-type': 'text/event-stream', ...raw.headers });
  for (const part of raw.parts) {
    await new Promise<void>((r) => res.write(part, () => r()));
    if (raw.gapMs) await delay(raw.gapMs);
  }
  if (raw.end === 'reset') await resetConnection(res);
  else if (raw.end !== 'stall') res.end();
}

/** The stand-in's frames, with a fault before frame `n` (counting the answer's frames, not `[DONE]`). */
async function writeWithFaults(frames: ChatFrame[], wire: ChatWire, f: Pick<MisbehavingScript, 'done' | 'dropAfter' | 'stallAfter' | 'malformedAfter' | 'errorObjectAfter' | 'errorEventAfter'>): Promise<void> {
  const res = wire.res;
  const data = frames.filter((x) => x.kind !== 'done');
  const end = frames.find((x) => x.kind === 'done');
  for (let i = 0; i < data.length; i++) {
    if (wire.gone) return;
    if (f.dropAfter === i) return resetConnection(res);
    if (f.stallAfter === i) return; // keep the connection open, send nothing more
    if (f.malformedAfter === i) res.write('data: {"id": "broken", "choices": [\n\n');
    if (f.errorObjectAfter === i) {
      res.end(`data: ${JSON.stringify({ error: { message: 'The model overloaded mid-answer', type: 'server_error', code: 'overloaded' } })}\n\n`);
      return;
    }
    if (f.errorEventAfter === i) {
      res.end(`event: error\ndata: ${JSON.stringify({ message: 'Upstream failed mid-answer', type: 'server_error' })}\n\n`);
      return;
    }
    await wire.write(data[i]!);
  }
  if (f.dropAfter !== undefined && f.dropAfter >= data.length) return resetConnection(res);
  if (f.stallAfter !== undefined && f.stallAfter >= data.length) return;
  if (f.done !== false && end) res.write(end.text);
  res.end();
}

/** Let what was written reach the client, then reset the connection (RST, not a clean close). */
export async function resetConnection(res: http.ServerResponse): Promise<void> {
  await new Promise<void>((r) => res.write('', () => r()));
  await delay(30);
  const socket = res.socket as (Socket & { resetAndDestroy?: () => void }) | null;
  if (socket?.resetAndDestroy) socket.resetAndDestroy();
  else socket?.destroy();
}

/** The stand-in's chat, able to misbehave as a test asks (see the file's comment). */
export class MisbehavingChat extends ChatDouble {
  /** Chat requests being answered right now. */
  inFlight = 0;
  /** Each chat request in arrival order: when it came (Date.now()) and how many were in flight then, itself included. */
  readonly arrivals: Array<{ at: number; inFlight: number }> = [];
  private throttles: Array<ThrottleScript & { burst?: { arrived: () => void; all: Promise<void> } }> = [];
  /** Requests after this many are held, unanswered, until `release()` (see holdAfter). */
  private holdAt: number | undefined;
  private released: Promise<void> = Promise.resolve();
  private releaseHeld: () => void = () => {};

  constructor(server: DoubleServer, options: ChatDoubleOptions = {}) {
    super(server, options);
    this.onRequest = async (_req, res, answer) => {
      this.inFlight++;
      this.arrivals.push({ at: Date.now(), inFlight: this.inFlight });
      try {
        if (this.holdAt !== undefined && this.arrivals.length > this.holdAt) await this.released;
        const throttle = this.throttles.shift();
        if (!throttle) return await answer();
        throttle.burst?.arrived();
        if (this.latencyMs) await delay(this.latencyMs);
        await throttle.burst?.all;
        refuse(res, throttle);
      } finally {
        this.inFlight--;
      }
    };
  }

  override enqueue(...scripts: MisbehavingScript[]): this {
    return super.enqueue(...scripts.map(misbehaving));
  }

  /**
   * The next `n` requests (whatever they ask, before any queued script) are refused as a rate
   * limiter does: 429 (or 503) with `retry-after`, an OpenAI-style error body, after the latency.
   */
  throttleNext(n: number, script: ThrottleScript = {}): this {
    let burst: { arrived: () => void; all: Promise<void> } | undefined;
    if (script.together) {
      let count = 0;
      let all!: () => void;
      const done = new Promise<void>((r) => (all = r));
      const timer = setTimeout(all, BURST_WAIT_MS);
      timer.unref();
      burst = {
        arrived: () => {
          if (++count === n) {
            clearTimeout(timer);
            all();
          }
        },
        all: done,
      };
    }
    for (let i = 0; i < n; i++) this.throttles.push({ ...script, burst });
    return this;
  }

  /**
   * Answer the requests that arrive up to `n` in all (counting every chat request so far), and hold
   * the ones after them, unanswered, until `release()`: a test's way to stop a run midway, at a
   * point it chose, instead of racing it with timers.
   */
  holdAfter(n: number): this {
    this.holdAt = n;
    this.released = new Promise<void>((r) => (this.releaseHeld = r));
    return this;
  }

  /** Answer the held requests, and hold no more. */
  release(): void {
    this.holdAt = undefined;
    this.releaseHeld();
  }
}

function refuse(res: http.ServerResponse, throttle: ThrottleScript): void {
  const status = throttle.status ?? 429;
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  const retryAfter = typeof throttle.retryAfter === 'function' ? throttle.retryAfter() : throttle.retryAfter;
  if (retryAfter !== undefined) headers['retry-after'] = String(retryAfter);
  res.writeHead(status, headers);
  res.end(JSON.stringify({ error: { message: status === 429 ? 'Rate limit reached for requests' : 'The service is overloaded', type: status === 429 ? 'rate_limit_error' : 'server_error', code: null } }));
}

export interface ServiceDouble {
  server: DoubleServer;
  chat: MisbehavingChat;
  retexture: RetextureDouble;
  url: string;
  close: () => Promise<void>;
}

/** Start the stand-in service, able to misbehave, on an ephemeral 127.0.0.1 port. */
export async function startServiceDouble(options: ChatDoubleOptions = {}): Promise<ServiceDouble> {
  const server = new DoubleServer();
  const chat = new MisbehavingChat(server, options);
  const retexture = new RetextureDouble(server);
  await server.listen();
  return { server, chat, retexture, url: server.url, close: () => server.close() };
}
