import type { ChatEvent, ChatResult, Usage } from '../chat-events.js';
import { completeChat, endedEarly, type CallOptions, type ClientSettings } from '../chat-client.js';
import type { WireMessage } from '../chat-request.js';
import { toMedchatError, type MedchatError } from '../errors.js';
import type { BatchItem } from './items.js';
import type { RequestPlan } from './plan.js';

/**
 * One question of a batch, asked and turned into its output line: the plan prepares the request,
 * the one-shot client (completeChat, with its bounded retries) asks it, the plan finishes the
 * answer. An answer the service ended early (max-tokens, a content filter, no text) and a failed
 * request are lines with an `error`; what arrived is kept in them.
 */
export interface AnswerRecord {
  id: string | number;
  content: string;
  reasoning?: string;
  usage: Usage | null;
  finish_reason: string | null;
  error?: { message: string; exit_code: number };
  [field: string]: unknown;
}

export type ItemOutcome =
  /** `answered`: the service answered (even if the line carries an error from the plan or an early end). */
  | { type: 'line'; record: AnswerRecord; answered: boolean; failure?: MedchatError }
  /** Stopped (Ctrl+C, or the run ended): no line. */
  | { type: 'dropped' }
  /** A failure no other question can escape (the key refused, an unknown model…): the run ends. */
  | { type: 'fatal'; error: MedchatError };

/** Failures no other item can escape. */
const FATAL = new Set(['auth', 'unknown-model', 'not-found', 'proxy', 'usage']);

export interface ItemCall {
  settings: ClientSettings;
  plan: RequestPlan;
  call: CallOptions & { signal: AbortSignal };
  onEvent: (e: ChatEvent) => void;
  /** Tokens used, as each request returns. */
  onUsage: (usage: Usage) => void;
}

export async function answerItem(item: BatchItem, c: ItemCall): Promise<ItemOutcome> {
  let settings = c.settings;
  try {
    const prepared = await c.plan.prepare(item);
    settings = { ...settings, ...prepared.overrides };
    const ask = async (messages: WireMessage[]) => {
      const result = await completeChat(settings, messages, c.call, c.onEvent);
      if (result.usage) c.onUsage(result.usage);
      return result;
    };
    const answer = await ask(prepared.messages);
    const early = endedEarly(settings, answer);
    const finished = prepared.finish && !early ? await prepared.finish(answer, ask) : { content: answer.content };
    const record = recordOf(item, answer, finished.content, finished.fields);
    const error = early ?? finished.error;
    if (error) record.error = { message: error.message, exit_code: error.exitCode };
    return { type: 'line', record, answered: true };
  } catch (err) {
    const e = toMedchatError(err);
    if (e.kind === 'interrupted' || c.call.signal.aborted) return { type: 'dropped' };
    if (FATAL.has(e.kind)) return { type: 'fatal', error: e };
    const partial = (err as { partial?: ChatResult }).partial;
    if (partial?.usage) c.onUsage(partial.usage);
    const record = recordOf(item, partial ?? { content: '', reasoning: '' }, partial?.content ?? '');
    record.error = { message: e.message, exit_code: e.exitCode };
    return { type: 'line', record, answered: false, failure: e };
  }
}

function recordOf(item: BatchItem, answer: ChatResult, content: string, fields?: Record<string, unknown>): AnswerRecord {
  const record: AnswerRecord = {
    id: item.id,
    content,
    ...(answer.reasoning ? { reasoning: answer.reasoning } : {}),
    usage: answer.usage ?? null,
    finish_reason: answer.finishReason ?? null,
  };
  return fields ? { ...record, ...fields, id: item.id } : record;
}

