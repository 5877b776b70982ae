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
  /** Milliseconds between chunks. */
  paceMs?: number;
  /** Milliseconds before the headers are sent (a function gets the request: a latency per question). */
  headerDelayMs?: number | ((req: RecordedRequest) => number);
  /** Milliseconds before the first content chunk (after reasoning). */
  firstContentDelayMs?: number;
  /**
   * Test hook: send this reply another way. Called when the reply is due (after the latency and
   * `headerDelayMs`), in place of the stand-in's own answer. The hook may answer on `x.res` by
   * itself, or call `x.answer(writeFrames)`: the stand-in then checks the request and answers as
   * usual (an error status, the context-window 400, a whole JSON completion), and for a streamed
   * answer writes the status and headers and hands every frame to `writeFrames` instead of
   * writing them all in turn. The stand-in itself never sets it (see test/support/misbehaving-service.ts).
   */
  send?: (x: ChatExchange) => Promise<void>;
}

/** One frame of a streamed answer, as the stand-in writes it (`text` is the whole `data: …\n\n`). */
export interface ChatFrame {
  text: string;
  kind: 'reasoning' | 'content' | 'finish' | 'usage' | 'done';
  /** The first frame of the answer's text: `firstContentDelayMs` comes before it. */
  firstContent?: boolean;
}

/** What a frame writer gets: the response, and the stand-in's way of writing one frame. */
export interface ChatWire {
  res: http.ServerResponse;
  /** True once the client has gone away before the answer ended. */
  readonly gone: boolean;
  /**
   * Write one frame as the stand-in does: the first-content delay before it, waiting for the
   * socket to drain, and `paceMs` after it (not after `[DONE]`). False when the client has gone
   * (nothing was written).
   */
  write(frame: ChatFrame): Promise<boolean>;
}

/**
 * Writes a streamed answer's frames: the answer's chunks, the finish chunk, the usage chunk and
 * `data: [DONE]`, in that order; it ends the response when it is done with it.
 */
export type FrameWriter = (frames: ChatFrame[], wire: ChatWire) => Promise<void>;

/** The request a `send` hook is asked to answer. */
export interface ChatExchange {
  req: RecordedRequest;
  res: http.ServerResponse;
  script: ChatScript;
  /** Answer as the stand-in would; a streamed answer's frames go through `writeFrames` (default: each in turn, then end). */
  answer(writeFrames?: FrameWriter): Promise<void>;
}

/** The stand-in's own frame writer: every frame in turn, then the end of the response. */
export const writeAllFrames: FrameWriter = async (frames, wire) => {
  for (const f of frames) if (!(await wire.write(f))) return;
  wire.res.end();
};

export interface ChatDoubleOptions {
  /** Count prompt tokens of a request (used for usage and the context-window check). */
  countTokens?: (messages: Array<{ role: string; content: string }>) => number;
  /** Reject requests whose prompt tokens + max_tokens pass this, as real servers do (HTTP 400). */
  contextWindow?: number;
  /** Milliseconds every request waits before it is answered (a fixed service latency). */
  latencyMs?: number;
}

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
  /**
   * Test hook: how each chat request is answered. It gets the request, the response and `answer`,
   * the stand-in's own way of answering (the latency, then the next script). The default just
   * calls `answer()`; a test may replace it to count requests, hold them, or answer some by itself
   * without taking a script (see test/support/misbehaving-service.ts).
   */
  onRequest: (req: RecordedRequest, res: http.ServerResponse, answer: () => Promise<void>) => Promise<void> = (_req, _res, answer) => answer();

  constructor(
    readonly server: DoubleServer,
    readonly options: ChatDoubleOptions = {},
  ) {
    this.latencyMs = options.latencyMs ?? 0;
    server.route('POST', /^\/v1\/chat\/completions$/, (req, res) => this.onRequest(req, res, () => this.answer(req, res)));
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
    if (this.latencyMs) await delay(this.latencyMs);
    const script = { ...this.defaultScript, ...(this.queue.shift() ?? {}) };
    const id = `chatcmpl-${(++this.seq).toString().padStart(6, '0')}`;
    const headerDelay = typeof script.headerDelayMs === 'function' ? script.headerDelayMs(req) : script.headerDelayMs;
    if (headerDelay) await delay(headerDelay);
    if (script.send) return script.send({ req, res, script, answer: (writeFrames) => this.reply(req, res, script, id, writeFrames) });
    return this.reply(req, res, script, id);
  }

  private async reply(req: RecordedRequest, res: http.ServerResponse, script: ChatScript, id: string, writeFrames: FrameWriter = writeAllFrames): Promise<void> {
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
    const created = Math.floor(Date.now() / 1000);
    const model = body.model ?? 'medical-large-latest';
    const frame = (delta: Record<string, string>, finishReason: string | null = null) =>
      `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason: finishReason }] })}\n\n`;

    const frames: ChatFrame[] = [];
    const shape = script.reasoningShape ?? 'reasoning_content';
    if (shape === 'reasoning_content' || shape === 'reasoning') {
      for (const r of reasoning) frames.push({ text: frame({ [shape]: r }), kind: 'reasoning' });
      content.forEach((c, i) => frames.push({ text: frame({ content: c }), kind: 'content', firstContent: i === 0 }));
    } else {
      const pieces = [...(shape === 'think-tags' && reasoning.length ? ['<think>'] : []), ...reasoning, ...(reasoning.length ? ['</think>\n\n'] : []), ...content];
      pieces.forEach((c, i) => frames.push({ text: frame({ content: c }), kind: 'content', firstContent: i === 0 }));
    }
    if (finish !== null) frames.push({ text: frame({}, finish), kind: 'finish' });
    if (usage) frames.push({ text: `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [], usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } })}\n\n`, kind: 'usage' });
    frames.push({ text: 'data: [DONE]\n\n', kind: 'done' });

    let aborted = false;
    res.on('close', () => (aborted = !res.writableFinished));
    const wire: ChatWire = {
      res,
      get gone() {
        return aborted;
      },
      write: async (f) => {
        if (aborted) return false;
        if (f.firstContent && script.firstContentDelayMs) await delay(script.firstContentDelayMs);
        if (!res.write(f.text)) await new Promise<void>((r) => res.once('drain', () => r()));
        if (script.paceMs && f.kind !== 'done') await delay(script.paceMs);
        return true;
      },
    };
    await writeFrames(frames, wire);
  }
}
