import OpenAI, { APIConnectionError, APIError } from 'openai';
import { buildChatBody, type WireMessage } from './chat-request.js';
import type { ChatEvent, ChatResult, Usage } from './chat-events.js';
import { MedchatError } from './errors.js';
import { ExitCode } from './exit-codes.js';
import { getFetch, proxyConfigured } from './http.js';
import { httpFetch, watching } from './http-transport.js';
import { describeServiceError } from './service-errors.js';
import type { Settings } from './settings.js';
import { ThinkTagSplitter } from './think-tags.js';
import { WireMonitor } from './wire-monitor.js';

export type ClientSettings = Pick<
  Settings,
  'baseUrl' | 'apiKey' | 'model' | 'maxTokens' | 'thinking' | 'temperature' | 'topP' | 'idleTimeoutMs'
>;

export interface CallOptions {
  signal?: AbortSignal;
  /** Attempts after the first, for 408/429/5xx and dropped connections before any text. */
  retries?: number;
  /** A `retry-after` longer than this is not waited for: the call fails and says how long the service asked for. */
  maxRetryAfterMs?: number;
}

const RETRYABLE = new Set([408, 409, 429, 500, 502, 503, 504]);
const DEFAULT_RETRIES = Number(process.env.MEDCHAT_RETRIES ?? 2);
const DEFAULT_MAX_RETRY_AFTER_MS = 30_000;

interface Exchange {
  client: OpenAI;
  monitor: WireMonitor;
  controller: AbortController;
  dispose: () => void;
}

/** One SDK client per request: its fetch is wrapped by a monitor that belongs to that request. */
async function openExchange(settings: ClientSettings, signal?: AbortSignal): Promise<Exchange> {
  const controller = new AbortController();
  const onAbort = () => controller.abort(signal?.reason);
  if (signal?.aborted) controller.abort(signal.reason);
  signal?.addEventListener('abort', onAbort, { once: true });
  // Without a proxy, node:http (cheapest per chunk); with one, undici's proxy agent (src/core/http.ts).
  const transport = proxyConfigured() ? watching(await getFetch()) : httpFetch;
  const monitor = new WireMonitor(settings.idleTimeoutMs, () => controller.abort(new Error('idle timeout')), transport);
  const client = new OpenAI({
    apiKey: settings.apiKey,
    baseURL: `${settings.baseUrl}/v1`,
    maxRetries: 0, // retries are ours: bounded, and a huge retry-after is not obeyed blindly
    timeout: settings.idleTimeoutMs + 5_000, // our idle monitor fires first
    logLevel: 'off',
    fetch: monitor.fetch,
    defaultHeaders: { 'User-Agent': 'medchat' },
  });
  return {
    client,
    monitor,
    controller,
    dispose: () => {
      monitor.stop();
      signal?.removeEventListener('abort', onAbort);
    },
  };
}

function retryAfterMs(err: APIError): number | undefined {
  const h = err.headers;
  const ms = h?.get('retry-after-ms');
  if (ms && !Number.isNaN(Number(ms))) return Number(ms);
  const ra = h?.get('retry-after');
  if (!ra) return undefined;
  const secs = Number(ra);
  if (!Number.isNaN(secs)) return secs * 1000;
  const date = Date.parse(ra);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

function transientConnection(err: unknown): boolean {
  if (!(err instanceof APIConnectionError)) return false;
  let e: unknown = err;
  for (let i = 0; i < 5 && e; i++) {
    const code = (e as { code?: string }).code;
    if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET' || code === 'EPIPE') return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });

/**
 * Run `attempt` with bounded retries. Yields a `retry` event before each wait so a front end can
 * say what is happening. Only failures before any answer text are retried.
 */
async function* withRetries<T>(
  settings: ClientSettings,
  opts: CallOptions,
  attempt: () => Promise<T>,
): AsyncGenerator<ChatEvent, T> {
  const retries = opts.retries ?? DEFAULT_RETRIES;
  const cap = opts.maxRetryAfterMs ?? DEFAULT_MAX_RETRY_AFTER_MS;
  for (let n = 0; ; n++) {
    try {
      return await attempt();
    } catch (err) {
      if (opts.signal?.aborted) throw interrupted();
      const status = err instanceof APIError ? err.status : undefined;
      const retryable = (status !== undefined && RETRYABLE.has(status)) || transientConnection(err);
      if (err instanceof SyntaxError) throw err; // a malformed body: the caller says which kind
      if (!retryable || n >= retries) throw describeServiceError(err, settings);
      let delay = 500 * 2 ** n * (1 - Math.random() * 0.25);
      const asked = err instanceof APIError ? retryAfterMs(err) : undefined;
      if (asked !== undefined) {
        if (asked > cap) {
          const base = describeServiceError(err, settings);
          throw new MedchatError(
            `${base.message.replace(/; [^;]*$/, '')}; the service asks to wait ${Math.ceil(asked / 1000)}s, try again later`,
            base.exitCode,
            base.kind,
          );
        }
        delay = asked;
      }
      yield { type: 'retry', attempt: n + 1, delayMs: delay, reason: status ? `HTTP ${status}` : 'connection dropped' };
      await sleep(delay, opts.signal);
      if (opts.signal?.aborted) throw interrupted();
    }
  }
}

const interrupted = () => new MedchatError('interrupted', ExitCode.interrupted, 'interrupted');

interface RawDelta {
  content?: string | null;
  reasoning_content?: string | null;
  reasoning?: string | null;
}

interface RawChunk {
  id?: string;
  model?: string;
  choices?: Array<{ delta?: RawDelta; finish_reason?: string | null }>;
  usage?: Usage | null;
  error?: unknown;
  message?: unknown;
}

/**
 * Stream one answer as typed events. Ends with an `end` event when the answer is complete;
 * throws a MedchatError otherwise (after yielding whatever arrived), with exit code 4 when the
 * stream was cut off and 130 when `signal` stopped it.
 */
export async function* streamChat(
  settings: ClientSettings,
  messages: readonly WireMessage[],
  opts: CallOptions = {},
): AsyncGenerator<ChatEvent, void> {
  const body = buildChatBody(settings, messages, true);
  let ex: Exchange | undefined;
  let midAnswer = false;
  const splitter = new ThinkTagSplitter(settings.thinking);
  try {
    const stream = yield* withRetries(settings, opts, async () => {
      ex?.dispose();
      ex = await openExchange(settings, opts.signal);
      return ex.client.chat.completions.create(body, { signal: ex.controller.signal });
    });
    const exchange = ex!;
    let sawReasoningField = false;
    let finishReason: string | undefined;
    let id: string | undefined;
    let model: string | undefined;
    let chunks = 0;
    for await (const raw of stream as AsyncIterable<RawChunk>) {
      chunks++;
      if (!raw || typeof raw !== 'object' || !Array.isArray(raw.choices)) {
        if (raw && typeof raw === 'object' && (raw.error !== undefined || raw.message !== undefined)) {
          throw new APIError(undefined, raw.error ?? raw, undefined, undefined);
        }
        if (raw?.usage) yield { type: 'usage', usage: raw.usage };
        continue;
      }
      id ??= raw.id;
      model ??= raw.model;
      for (const choice of raw.choices) {
        const delta = choice.delta ?? {};
        const reasoning = delta.reasoning_content ?? delta.reasoning;
        if (typeof reasoning === 'string' && reasoning) {
          sawReasoningField = true;
          midAnswer = true;
          yield { type: 'reasoning', text: reasoning };
        }
        if (typeof delta.content === 'string' && delta.content) {
          midAnswer = true;
          if (sawReasoningField) yield { type: 'content', text: delta.content };
          else for (const piece of splitter.push(delta.content)) yield { type: piece.kind, text: piece.text };
        }
        if (choice.finish_reason) finishReason = choice.finish_reason;
      }
      if (raw.usage) yield { type: 'usage', usage: raw.usage };
    }
    for (const piece of splitter.end()) yield { type: piece.kind, text: piece.text };
    if (finishReason) yield { type: 'finish', reason: finishReason };
    if (opts.signal?.aborted) throw interrupted();
    if (exchange.monitor.idleExpired) {
      throw new MedchatError(
        `no data from the service for ${Math.round(settings.idleTimeoutMs / 1000)}s; the answer is incomplete (raise --idle-timeout to wait longer)`,
        ExitCode.incomplete,
        'incomplete',
      );
    }
    if (!exchange.monitor.sawDone && !finishReason) {
      // Nothing usable arrived: a service failure (1). Part of an answer arrived: cut off (4).
      if (chunks === 0 && exchange.monitor.bytesReceived > 0) {
        throw new MedchatError('the service replied with something that is not an answer stream', ExitCode.failure, 'malformed');
      }
      if (chunks === 0) throw new MedchatError('the service closed the connection without answering; try again', ExitCode.failure, 'network');
      throw new MedchatError('the service closed the connection before the answer was finished; the answer is incomplete', ExitCode.incomplete, 'incomplete');
    }
    yield { type: 'end', id, model, finishReason };
  } catch (err) {
    // Whatever was held back to look for a </think> still arrived: hand it over before failing.
    for (const piece of splitter.end()) yield { type: piece.kind, text: piece.text };
    if (opts.signal?.aborted) throw interrupted();
    if (ex?.monitor.idleExpired && (!(err instanceof MedchatError) || err.kind === 'interrupted')) {
      throw new MedchatError(
        midAnswer
          ? `no data from the service for ${Math.round(settings.idleTimeoutMs / 1000)}s; the answer is incomplete (raise --idle-timeout to wait longer)`
          : `no response from the service within ${Math.round(settings.idleTimeoutMs / 1000)}s; try again, or raise --idle-timeout`,
        midAnswer ? ExitCode.incomplete : ExitCode.failure,
        midAnswer ? 'incomplete' : 'timeout',
      );
    }
    throw describeServiceError(err, { ...settings, midAnswer });
  } finally {
    ex?.controller.abort();
    ex?.dispose();
  }
}

/** A whole answer in one response (`--no-stream`, and the summarising request). */
export async function completeChat(
  settings: ClientSettings,
  messages: readonly WireMessage[],
  opts: CallOptions = {},
  onEvent?: (e: ChatEvent) => void,
): Promise<ChatResult> {
  const body = buildChatBody(settings, messages, false);
  let ex: Exchange | undefined;
  try {
    const gen = withRetries(settings, opts, async () => {
      ex?.dispose();
      ex = await openExchange(settings, opts.signal);
      return ex.client.chat.completions.create(body, { signal: ex.controller.signal });
    });
    let step = await gen.next();
    while (!step.done) {
      onEvent?.(step.value);
      step = await gen.next();
    }
    const res = step.value as unknown as {
      id?: string;
      model?: string;
      choices?: Array<{ message?: RawDelta; finish_reason?: string }>;
      usage?: Usage;
    };
    if (!res || typeof res !== 'object' || !Array.isArray(res.choices) || !res.choices[0]?.message) {
      throw new MedchatError('the service replied with something that is not a chat completion', ExitCode.failure, 'malformed');
    }
    const choice = res.choices[0];
    const message = choice.message ?? {};
    let reasoning = message.reasoning_content ?? message.reasoning ?? '';
    let content = message.content ?? '';
    if (!reasoning) {
      const splitter = new ThinkTagSplitter(settings.thinking);
      const pieces = [...splitter.push(content), ...splitter.end()];
      reasoning = pieces.filter((p) => p.kind === 'reasoning').map((p) => p.text).join('');
      content = pieces.filter((p) => p.kind === 'content').map((p) => p.text).join('');
    }
    return { id: res.id, model: res.model, content, reasoning, usage: res.usage ?? undefined, finishReason: choice.finish_reason };
  } catch (err) {
    if (opts.signal?.aborted) throw interrupted();
    if (ex?.monitor.idleExpired && (!(err instanceof MedchatError) || err.kind === 'interrupted')) {
      throw new MedchatError(`no response from the service within ${Math.round(settings.idleTimeoutMs / 1000)}s; try again, or raise --idle-timeout`, ExitCode.failure, 'timeout');
    }
    if (err instanceof SyntaxError) {
      // A whole-answer body that is cut short or empty (the SDK's JSON.parse failed).
      const empty = ex?.monitor.bytesReceived === 0;
      throw new MedchatError(`the service sent ${empty ? 'an empty' : 'a malformed'} response; try again`, ExitCode.failure, 'malformed');
    }
    throw describeServiceError(err, settings);
  } finally {
    ex?.controller.abort();
    ex?.dispose();
  }
}
