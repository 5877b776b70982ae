import type http from 'node:http';
import { delay, type DoubleServer, type RecordedRequest } from './server.js';

/**
 * How the double answers one chat request. Everything is optional: the default is a short
 * reasoning followed by an answer that quotes the last user message, then usage and `[DONE]`.
 */
export interface ChatScript {
  /** Answer with this status and body instead (e.g. 401 with an OpenAI-style error). */
  status?: number;
  body?: string;
  headers?: Record<string, string>;
  /** Reasoning chunks, sent before the content chunks. A function gets the request. */
  reasoning?: string[] | ((req: RecordedRequest) => string[]);
  /** Content chunks. A function gets the request (to echo it). */
  content?: string[] | ((req: RecordedRequest) => string[]);
  /** Where the reasoning goes: the documented field, vLLM/Ollama's, or inline tags (with or without the opening one). */
  reasoningShape?: 'reasoning_content' | 'reasoning' | 'think-tags' | 'think-tags-no-open';
  /** Usage on the last chunk; false leaves the usage chunk out. */
  usage?: { prompt_tokens: number; completion_tokens: number } | false;
  finishReason?: string | null;
  /** false: end without `data: [DONE]`. */
  done?: boolean;
  /** Milliseconds between chunks. */
  paceMs?: number;
  /** Milliseconds before the headers are sent (a function gets the request: a latency per question). */
  headerDelayMs?: number | ((req: RecordedRequest) => number);
  /** Milliseconds before the first content chunk (after reasoning). */
  firstContentDelayMs?: number;
  /** After this many chunks: drop the connection / stop sending but keep it open / send a bad line / an error object / an `event: error` frame. */
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

export interface ChatDoubleOptions {
  /** Count prompt tokens of a request (used for usage and the context-window check). */
  countTokens?: (messages: Array<{ role: string; content: string }>) => number;
  /** Reject requests whose prompt tokens + max_tokens pass this, as real servers do (HTTP 400). */
  contextWindow?: number;
  /** Milliseconds every request waits before it is answered (a fixed service latency). */
  latencyMs?: number;
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

/** A simple, deterministic stand-in for a tokenizer: CJK characters count one each, other text by ~4 chars. */
export function roughTokenCount(messages: Array<{ role: string; content: string }>): number {
  let n = 0;
  for (const m of messages) {
    const text = String(m.content ?? '');
    const cjk = text.match(/[\u3400-\u9fff\uf900-\ufaff\u3040-\u30ff\uac00-\ud7af]/g)?.length ?? 0;
    const rest = text.replace(/[\u3400-\u9fff\uf900-\ufaff\u3040-\u30ff\uac00-\ud7af]/g, '');
    n += 4 + cjk + Math.ceil(rest.length / 4);
  }
  return n + 2;
}

export class ChatDouble {
  private readonly queue: ChatScript[] = [];
  defaultScript: ChatScript = {};
  private seq = 0;
  /** Fixed latency before every answer (see ChatDoubleOptions.latencyMs); may be changed between runs. */
  latencyMs: number;
  /** Chat requests being answered right now. */
  inFlight = 0;
  /** Each chat request in arrival order: when it came (Date.now()) and how many were in flight then, itself included. */
  readonly arrivals: Array<{ at: number; inFlight: number }> = [];
  private throttles: Array<ThrottleScript & { burst?: { arrived: () => void; all: Promise<void> } }> = [];
  /** Requests after this many are held, unanswered, until `release()` (see holdAfter). */
  private holdAt: number | undefined;
  private released: Promise<void> = Promise.resolve();
  private releaseHeld: () => void = () => {};

  constructor(
    readonly server: DoubleServer,
    readonly options: ChatDoubleOptions = {},
  ) {
    this.latencyMs = options.latencyMs ?? 0;
    server.route('POST', /^\/v1\/chat\/completions$/, async (req, res) => {
      this.inFlight++;
      this.arrivals.push({ at: Date.now(), inFlight: this.inFlight });
      try {
        if (this.holdAt !== undefined && this.arrivals.length > this.holdAt) await this.released;
        await this.answer(req, res);
      } finally {
        this.inFlight--;
      }
    });
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

  /** The next requests get these scripts, in order; after them, `defaultScript`. */
  enqueue(...scripts: ChatScript[]): this {
    this.queue.push(...scripts);
    return this;
  }

  get requests(): RecordedRequest[] {
    return this.server.requestsTo(/^\/v1\/chat\/completions$/);
  }

  private async answer(req: RecordedRequest, res: http.ServerResponse): Promise<void> {
    const throttle = this.throttles.shift();
    throttle?.burst?.arrived();
    if (this.latencyMs) await delay(this.latencyMs);
    if (throttle) {
      await throttle.burst?.all;
      const status = throttle.status ?? 429;
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      const retryAfter = typeof throttle.retryAfter === 'function' ? throttle.retryAfter() : throttle.retryAfter;
      if (retryAfter !== undefined) headers['retry-after'] = String(retryAfter);
      res.writeHead(status, headers);
      res.end(JSON.stringify({ error: { message: status === 429 ? 'Rate limit reached for requests' : 'The service is overloaded', type: status === 429 ? 'rate_limit_error' : 'server_error', code: null } }));
      return;
    }
    const script = { ...this.defaultScript, ...(this.queue.shift() ?? {}) };
    const id = `chatcmpl-${(++this.seq).toString().padStart(6, '0')}`;
    const headerDelay = typeof script.headerDelayMs === 'function' ? script.headerDelayMs(req) : script.headerDelayMs;
    if (headerDelay) await delay(headerDelay);
    if (script.raw) {
      const raw = script.raw;
      res.writeHead(raw.status ?? 200, { 'content-type': 'text/event-stream', ...raw.headers });
      for (const part of raw.parts) {
        await new Promise<void>((r) => res.write(part, () => r()));
        if (raw.gapMs) await delay(raw.gapMs);
      }
      if (raw.end === 'reset') await resetConnection(res);
      else if (raw.end !== 'stall') res.end();
      return;
    }
    if (script.status && script.status !== 200) {
      res.writeHead(script.status, { 'content-type': 'application/json', ...script.headers });
      res.end(script.body ?? JSON.stringify({ error: { message: `error ${script.status}`, type: 'api_error', code: null } }));
      return;
    }
    const body = req.body ?? {};
    const messages: Array<{ role: string; content: string }> = Array.isArray(body.messages) ? body.messages : [];
    const promptTokens = (this.options.countTokens ?? roughTokenCount)(messages);
    const window = this.options.contextWindow;
    const maxTokens = typeof body.max_tokens === 'number' ? body.max_tokens : 81920;
    if (window && promptTokens + maxTokens > window) {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          error: {
            message: `This model's maximum context length is ${window} tokens. However, you requested ${promptTokens + maxTokens} tokens (${promptTokens} in the messages, ${maxTokens} in the completion). Please reduce the length of the messages or completion.`,
            type: 'invalid_request_error',
            param: 'messages',
            code: 'context_length_exceeded',
          },
        }),
      );
      return;
    }
    const lastUser = [...messages].reverse().find((m) => m.role === 'user')?.content ?? '';
    const thinking = body.enable_thinking !== false;
    const scripted = typeof script.reasoning === 'function' ? script.reasoning(req) : script.reasoning;
    const reasoning = thinking ? (scripted ?? ['Let me think ', 'about this.']) : [];
    const content =
      typeof script.content === 'function'
        ? script.content(req)
        : (script.content ?? ['You said: ', String(lastUser).slice(0, 200)]);
    const completionTokens = Math.max(1, Math.ceil((reasoning.join('').length + content.join('').length) / 4));
    const usage = script.usage === false ? undefined : (script.usage ?? { prompt_tokens: promptTokens, completion_tokens: completionTokens });
    const finish = script.finishReason === undefined ? 'stop' : script.finishReason;

    if (body.stream !== true) {
      res.writeHead(200, { 'content-type': 'application/json', ...script.headers });
      const message: Record<string, string> = { role: 'assistant', content: content.join('') };
      if (reasoning.length && script.reasoningShape !== 'think-tags' && script.reasoningShape !== 'think-tags-no-open') {
        message[script.reasoningShape ?? 'reasoning_content'] = reasoning.join('');
      } else if (reasoning.length) {
        message.content = `${script.reasoningShape === 'think-tags' ? '<think>' : ''}${reasoning.join('')}</think>\n\n${message.content}`;
      }
      res.end(
        JSON.stringify({
          id,
          object: 'chat.completion',
          created: Math.floor(Date.now() / 1000),
          model: body.model ?? 'medical-large-latest',
          choices: [{ index: 0, message, finish_reason: finish ?? 'stop' }],
          usage: usage && { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
        }),
      );
      return;
    }

    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive', ...script.headers });
    if (script.rawStreamBody !== undefined) {
      res.end(script.rawStreamBody);
      return;
    }
    const created = Math.floor(Date.now() / 1000);
    const model = body.model ?? 'medical-large-latest';
    const frame = (delta: Record<string, string>, finishReason: string | null = null) =>
      `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason: finishReason }] })}\n\n`;

    const frames: Array<{ text: string; isFirstContent?: boolean }> = [];
    const shape = script.reasoningShape ?? 'reasoning_content';
    if (shape === 'reasoning_content' || shape === 'reasoning') {
      for (const r of reasoning) frames.push({ text: frame({ [shape]: r }) });
      content.forEach((c, i) => frames.push({ text: frame({ content: c }), isFirstContent: i === 0 }));
    } else {
      const pieces = [...(shape === 'think-tags' && reasoning.length ? ['<think>'] : []), ...reasoning, ...(reasoning.length ? ['</think>\n\n'] : []), ...content];
      pieces.forEach((c, i) => frames.push({ text: frame({ content: c }), isFirstContent: i === 0 }));
    }
    if (finish !== null) frames.push({ text: frame({}, finish) });
    if (usage) frames.push({ text: `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [], usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } })}\n\n` });

    let aborted = false;
    res.on('close', () => (aborted = !res.writableFinished));
    for (let i = 0; i < frames.length; i++) {
      if (aborted) return;
      if (script.dropAfter === i) {
        await resetConnection(res);
        return;
      }
      if (script.stallAfter === i) return; // keep the connection open, send nothing more
      if (script.malformedAfter === i) res.write('data: {"id": "broken", "choices": [\n\n');
      if (script.errorObjectAfter === i) {
        res.end(`data: ${JSON.stringify({ error: { message: 'The model overloaded mid-answer', type: 'server_error', code: 'overloaded' } })}\n\n`);
        return;
      }
      if (script.errorEventAfter === i) {
        res.end(`event: error\ndata: ${JSON.stringify({ message: 'Upstream failed mid-answer', type: 'server_error' })}\n\n`);
        return;
      }
      const f = frames[i]!;
      if (f.isFirstContent && script.firstContentDelayMs) await delay(script.firstContentDelayMs);
      if (!res.write(f.text)) await new Promise<void>((r) => res.once('drain', () => r()));
      if (script.paceMs) await delay(script.paceMs);
    }
    if (script.dropAfter !== undefined && script.dropAfter >= frames.length) {
      await resetConnection(res);
      return;
    }
    if (script.stallAfter !== undefined && script.stallAfter >= frames.length) return;
    if (script.done !== false) res.write('data: [DONE]\n\n');
    res.end();
  }
}

/** Let what was written reach the client, then reset the connection (RST, not a clean close). */
async function resetConnection(res: http.ServerResponse): Promise<void> {
  await new Promise<void>((r) => res.write('', () => r()));
  await delay(30);
  const socket = res.socket as (import('node:net').Socket & { resetAndDestroy?: () => void }) | null;
  if (socket?.resetAndDestroy) socket.resetAndDestroy();
  else socket?.destroy();
}
