import OpenAI, { APIError } from 'openai';
import { chunksFromBody, firstChoice, looksLikeEvents, textOf } from './answer-shapes.js';
import { AnswerFold, partialAnswer, readBodyText, resultFromChunks } from './whole-answer.js';
import { buildChatBody, type WireMessage } from './chat-request.js';
import type { ChatEvent, ChatResult } from './chat-events.js';
import { MedchatError } from '../errors.js';
import { EventStreamReader } from './event-stream.js';
import { ExitCode } from '../exit-codes.js';
import { chatText } from '../i18n/messages/chat.js';
import { httpFetch } from '../net/http-transport.js';
import { describeServiceError } from './service-errors.js';
import { interrupted, withRetries, type CallOptions } from './chat-retries.js';
import type { Settings } from '../config/settings.js';
import { ThinkTagSplitter } from './think-tags.js';
import { MAX_INPUT_BYTES } from '../io/stdin.js';
import { formatBytes } from '../io/bounded-read.js';
import { formatWindow } from '../text/format.js';
import { STREAM_LIMITS, WHOLE_ANSWER_LIMITS, WireMonitor, type WireLimits } from './wire-monitor.js';

export type { CallOptions } from './chat-retries.js';

export type ClientSettings = Pick<
  Settings,
  'baseUrl' | 'apiKey' | 'model' | 'maxTokens' | 'thinking' | 'temperature' | 'topP' | 'idleTimeoutMs'
> &
  /** What the longest answer can be (answerLimitFor); the default window when not given. */
  Partial<Pick<Settings, 'contextWindow'>>;

/** The context window assumed when the caller gives none (config `context-window`'s default). */
const DEFAULT_WINDOW = 131_072;

/**
 * The longest answer medchat reads, content and reasoning together, in characters (each at
 * least one byte): 16 for each token of the context window (2 MB for 128k, as for stdin), which
 * no model can write in one answer (text runs at 3-5 bytes a token, and the window holds the
 * question too). A service that goes on past it is stopped there: what arrived is kept, and the
 * answer is cut off (exit 4). Never more than 4 MB, whatever the window (a million tokens' worth:
 * more than any model writes in one answer), so memory stays bounded: with history on, medchat
 * peaks at about 100 MB at 4 MB, 140 MB at 8 MB, 205 MB at 16 MB (test/e2e/resources.test.ts).
 */
export function answerLimitFor(contextWindow: number | undefined): number {
  return Math.min(Math.max(MAX_INPUT_BYTES, Math.floor(contextWindow ?? DEFAULT_WINDOW) * 16), ANSWER_CEILING);
}
const ANSWER_CEILING = 4 * 1024 * 1024;

/** Stopped at answerLimitFor: the answer is incomplete (exit 4), what arrived is kept. */
export function answerTooLong(limit: number, contextWindow: number | undefined): MedchatError {
  return new MedchatError(
    chatText.answerTooLong(formatBytes(limit), formatWindow(contextWindow ?? DEFAULT_WINDOW)),
    ExitCode.incomplete,
    'incomplete',
  );
}

interface Exchange {
  client: OpenAI;
  monitor: WireMonitor;
  controller: AbortController;
  dispose: () => void;
}

/** One SDK client per request: its fetch is wrapped by a monitor that belongs to that request. */
async function openExchange(settings: ClientSettings, signal: AbortSignal | undefined, limits: WireLimits): Promise<Exchange> {
  const controller = new AbortController();
  const onAbort = () => controller.abort(signal?.reason);
  if (signal?.aborted) controller.abort(signal.reason);
  signal?.addEventListener('abort', onAbort, { once: true });
  // node:http (cheapest per chunk), which also takes the proxy if one is set.
  // i18n-exempt: an abort reason, never shown
  const monitor = new WireMonitor(settings.idleTimeoutMs, (why) => controller.abort(new Error(why === 'idle' ? 'idle timeout' : 'too much data')), httpFetch, limits);
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


/**
 * An answer the service ended early, as the error that says so (exit 8), or undefined when it
 * ended normally: cut off at max-tokens (`length`), stopped by a content filter, or ended without
 * any answer text (only reasoning, or nothing). What did arrive is kept and shown anyway. Its kind
 * is 'incomplete': the session and the chat screen keep the turn as an incomplete answer.
 */
export function endedEarly(
  settings: Pick<ClientSettings, 'maxTokens'>,
  answer: { finishReason?: string | null; content: string; reasoning: string },
): MedchatError | undefined {
  const reason = answer.finishReason ?? undefined;
  if (reason === 'length') {
    return new MedchatError(
      chatText.cutAtMaxTokens(settings.maxTokens),
      ExitCode.endedEarly,
      'incomplete',
    );
  }
  if (reason === 'content_filter') {
    return new MedchatError(chatText.contentFilter, ExitCode.endedEarly, 'incomplete');
  }
  if (!answer.content.trim()) {
    return new MedchatError(
      answer.reasoning.trim()
        ? chatText.onlyReasoning(reason ?? 'none')
        : chatText.noAnswerText(reason ?? 'none'),
      ExitCode.endedEarly,
      'incomplete',
    );
  }
  return undefined;
}

/** Raise the monitor's verdict (idle, too much) as the one error that says it, if it gave up. */
function monitorVerdict(ex: Exchange | undefined, settings: ClientSettings, midAnswer: boolean): MedchatError | undefined {
  const m = ex?.monitor;
  if (!m) return undefined;
  if (m.tooMuch) {
    const what =
      m.tooMuch === 'event'
        ? chatText.eventTooBig(m.limits.eventBytes / 1024 / 1024)
        : chatText.bodyTooBig(m.limits.bodyBytes / 1024 / 1024);
    return new MedchatError(chatText.tooMuch(what, midAnswer), ExitCode.failure, 'too-much');
  }
  if (m.idleExpired) {
    return new MedchatError(
      midAnswer
        ? chatText.idleMidAnswer(Math.round(settings.idleTimeoutMs / 1000))
        : chatText.idleBeforeAnswer(Math.round(settings.idleTimeoutMs / 1000)),
      midAnswer ? ExitCode.incomplete : ExitCode.failure,
      midAnswer ? 'incomplete' : 'timeout',
    );
  }
  return undefined;
}

/** A response that is one JSON completion, not events (some services answer a stream request so). */
const isWholeJson = (type: string) => /json/i.test(type) && !/event-stream/i.test(type);

/**
 * Stream one answer as typed events. Ends with an `end` event when the answer is complete;
 * throws a MedchatError otherwise (after yielding whatever arrived), with exit code 4 when the
 * stream was cut off, 8 when the service ended it early (see `endedEarly`) and 130 when
 * `signal` stopped it. `[DONE]`, or a finish reason with the usage, ends the answer even if the
 * service leaves the response open.
 */
export async function* streamChat(
  settings: ClientSettings,
  messages: readonly WireMessage[],
  opts: CallOptions = {},
): AsyncGenerator<ChatEvent, void> {
  const body = buildChatBody(settings, messages, true);
  let ex: Exchange | undefined;
  let midAnswer = false;
  let tooLong = false;
  const splitter = new ThinkTagSplitter(settings.thinking);
  try {
    const response = yield* withRetries(settings, opts, async () => {
      ex?.dispose();
      ex = await openExchange(settings, opts.signal, STREAM_LIMITS);
      return ex.client.chat.completions.create(body, { signal: ex.controller.signal }).asResponse();
    });
    const exchange = ex!;
    let sawReasoningField = false;
    let finishReason: string | undefined;
    let id: string | undefined;
    let model: string | undefined;
    let chunks = 0;
    // The answer's length so far (content and reasoning, as they arrive: one addition per piece), and its bound.
    const limit = answerLimitFor(settings.contextWindow);
    let received = 0;
    // All `endedEarly` asks of the answer and the reasoning is whether they are blank: the first piece of each that
    // is not blank is kept (trimmed), not the whole text.
    let someContent = '';
    let someReasoning = '';
    const keep = (piece: { kind: 'content' | 'reasoning'; text: string }) => {
      if (piece.kind === 'content') someContent ||= piece.text.trim();
      else someReasoning ||= piece.text.trim();
    };
    // Whichever shape the service chose: events, or one JSON completion.
    const type = response.headers.get('content-type') ?? '';
    const wholeCompletion = isWholeJson(type);
    // Events are read in the loop itself, every chunk a piece of the body completes at once (no generator between).
    const events = wholeCompletion ? undefined : new EventStreamReader(response, exchange.controller);
    try {
      let batch = events ? await events.next() : chunksFromBody(await response.text(), type);
      read: for (; batch; batch = await events?.next()) {
        for (const raw of batch) {
          chunks++;
          if (!raw || typeof raw !== 'object' || !Array.isArray(raw.choices)) {
            if (raw && typeof raw === 'object' && (raw.error !== undefined || raw.message !== undefined)) {
              throw new APIError(undefined, raw.error ?? raw, undefined, undefined);
            }
            if (raw?.usage) yield { type: 'usage', usage: raw.usage };
            if (raw?.usage && finishReason) break read; // the answer is over, whether or not [DONE] follows
            continue;
          }
          id ??= raw.id;
          model ??= raw.model;
          const choice = firstChoice(raw);
          if (choice) {
            const delta = choice.delta ?? choice.message ?? {}; // a whole completion sent as one event
            const reasoning = textOf(delta.reasoning_content ?? delta.reasoning);
            if (reasoning) {
              sawReasoningField = true;
              midAnswer = true;
              received += reasoning.length;
              someReasoning ||= reasoning.trim();
              yield { type: 'reasoning', text: reasoning };
            }
            const text = textOf(delta.content);
            if (text) {
              midAnswer = true;
              received += text.length;
              if (sawReasoningField) {
                someContent ||= text.trim();
                yield { type: 'content', text };
              } else {
                for (const piece of splitter.push(text)) {
                  keep(piece);
                  yield { type: piece.kind, text: piece.text };
                }
              }
            }
            if (choice.finish_reason) finishReason = choice.finish_reason;
            if (received > limit) {
              tooLong = true;
              break read; // everything that arrived has been handed over; the rest is not read
            }
          }
          if (raw.usage) yield { type: 'usage', usage: raw.usage };
          if (raw.usage && finishReason) break read; // the answer is over, whether or not [DONE] follows
        }
      }
    } finally {
      events?.cancel(); // a body not read to its end (the answer was over, or failed) is closed
    }
    for (const piece of splitter.end()) {
      keep(piece);
      yield { type: piece.kind, text: piece.text };
    }
    if (tooLong) throw answerTooLong(limit, settings.contextWindow);
    if (finishReason) yield { type: 'finish', reason: finishReason };
    if (opts.signal?.aborted) throw interrupted();
    const verdict = finishReason && exchange.monitor.idleExpired ? undefined : monitorVerdict(exchange, settings, midAnswer);
    if (verdict) throw verdict;
    // A whole JSON completion (sent to a stream request) that parsed is complete, finish_reason or not.
    if (!exchange.monitor.sawDone && !finishReason && !(wholeCompletion && chunks > 0)) {
      // Nothing usable arrived: a service failure (1). Part of an answer arrived: cut off (4).
      if (chunks === 0 && exchange.monitor.bytesReceived > 0) {
        throw new MedchatError(chatText.notAStream, ExitCode.failure, 'malformed');
      }
      if (chunks === 0) throw new MedchatError(chatText.closedWithoutAnswer, ExitCode.failure, 'network');
      throw new MedchatError(chatText.closedMidAnswer, ExitCode.incomplete, 'incomplete');
    }
    const early = endedEarly(settings, { finishReason, content: someContent, reasoning: someReasoning });
    if (early) throw early;
    yield { type: 'end', id, model, finishReason };
  } catch (err) {
    // Whatever was held back to look for a </think> still arrived: hand it over before failing.
    for (const piece of splitter.end()) yield { type: piece.kind, text: piece.text };
    if (opts.signal?.aborted) throw interrupted();
    if (!(err instanceof MedchatError) || err.kind === 'interrupted') {
      const verdict = monitorVerdict(ex, settings, midAnswer);
      if (verdict) throw verdict;
    }
    throw describeServiceError(err, { ...settings, midAnswer });
  } finally {
    ex?.controller.abort();
    ex?.dispose();
  }
}

/**
 * A whole answer in one response (`--no-stream`, and the summarising request). Returns what the
 * service sent, including a `finishReason` of `length` (the caller decides, see `endedEarly`).
 */
export async function completeChat(
  settings: ClientSettings,
  messages: readonly WireMessage[],
  opts: CallOptions = {},
  onEvent?: (e: ChatEvent) => void,
): Promise<ChatResult> {
  const body = buildChatBody(settings, messages, false);
  let ex: Exchange | undefined;
  let bodyRead = false; // the whole body arrived: nothing left open to close
  try {
    const gen = withRetries(settings, opts, async () => {
      ex?.dispose();
      ex = await openExchange(settings, opts.signal, WHOLE_ANSWER_LIMITS);
      return ex.client.chat.completions.create(body, { signal: ex.controller.signal }).asResponse();
    });
    let step = await gen.next();
    while (!step.done) {
      onEvent?.(step.value);
      step = await gen.next();
    }
    const response = step.value as Response;
    if (/event-stream/i.test(response.headers.get('content-type') ?? '')) return await resultFromEventStream(response, ex!, settings);
    const text = await readBodyText(response);
    bodyRead = true;
    if (/^\s*[^\s{[]/.test(text) && !looksLikeEvents(text)) {
      throw new MedchatError(chatText.notACompletion, ExitCode.failure, 'malformed');
    }
    const result = resultFromChunks(chunksFromBody(text, response.headers.get('content-type') ?? ''), settings.thinking);
    if (!result) {
      throw new MedchatError(chatText.notACompletion, ExitCode.failure, 'malformed');
    }
    return result;
  } catch (err) {
    // Events sent to a whole-answer request and cut off: what arrived is kept with the error.
    const partial = partialAnswer(err, settings.thinking);
    if (partial) {
      const failure = opts.signal?.aborted ? interrupted() : (monitorVerdict(ex, settings, true) ?? describeServiceError(err, { ...settings, midAnswer: true }));
      throw Object.assign(failure, { partial });
    }
    if (opts.signal?.aborted) throw interrupted();
    if (!(err instanceof MedchatError) || err.kind === 'interrupted') {
      const verdict = monitorVerdict(ex, settings, false);
      if (verdict) throw verdict;
    }
    if (err instanceof SyntaxError) {
      // A whole-answer body that is cut short or empty (JSON.parse failed).
      const empty = ex?.monitor.bytesReceived === 0;
      throw new MedchatError(chatText.emptyOrMalformed(empty), ExitCode.failure, 'malformed');
    }
    throw describeServiceError(err, settings);
  } finally {
    // Aborting costs two DOMExceptions (ours and the SDK's); a batch makes thousands of these calls.
    if (!bodyRead) ex?.controller.abort();
    ex?.dispose();
  }
}

/**
 * Events sent to a whole-answer request (`--no-stream`): read as a stream, so `[DONE]`, or a
 * finish reason with the usage, ends the answer even if the service leaves the response open,
 * and an answer cut off keeps what arrived (on the error, as `partialResult`).
 */
async function resultFromEventStream(response: Response, ex: Exchange, settings: ClientSettings): Promise<ChatResult> {
  const fold = new AnswerFold();
  const limit = answerLimitFor(settings.contextWindow);
  let ended = false;
  let tooLong = false;
  const keepPartial = (err: unknown) => {
    const partial = fold.result(settings.thinking);
    if (partial && (partial.content || partial.reasoning) && err && typeof err === 'object') Object.assign(err, { partialResult: partial });
    return err;
  };
  const events = new EventStreamReader(response, ex.controller);
  try {
    read: for (let batch = await events.next(); batch; batch = await events.next()) {
      for (const raw of batch) {
        if (raw && typeof raw === 'object' && !Array.isArray(raw.choices) && (raw.error !== undefined || raw.message !== undefined)) {
          throw new APIError(undefined, (raw.error ?? raw) as object, undefined, undefined);
        }
        fold.add(raw);
        if (fold.chars > limit) {
          tooLong = true;
          break read;
        }
        if (raw?.usage && fold.finished) {
          ended = true;
          break read;
        }
      }
    }
  } catch (err) {
    throw keepPartial(err);
  } finally {
    events.cancel();
  }
  if (tooLong) throw keepPartial(answerTooLong(limit, settings.contextWindow));
  // Events that ended properly ([DONE]) but held no choice are an answer with no text (exit 8), as when streamed.
  const result = fold.result(settings.thinking) ?? (ex.monitor.sawDone ? { content: '', reasoning: '' } : undefined);
  if (!result) throw new MedchatError(chatText.notACompletion, ExitCode.failure, 'malformed');
  if (!ended && !fold.finished && !ex.monitor.sawDone) {
    const cut = result.content || result.reasoning;
    throw keepPartial(
      cut
        ? new MedchatError(chatText.closedMidAnswer, ExitCode.incomplete, 'incomplete')
        : new MedchatError(chatText.closedWithoutAnswer, ExitCode.failure, 'network'),
    );
  }
  return result;
}
