/**
 * One question of a batch, asked through the one question pipeline (core/ask) on a conversation
 * of its own in memory, and turned into its output line: the context fit, the key masking, the
 * privacy guard, the schema repair and the status rule are the ones every front end gets. The
 * whole-answer request carries the scheduler's retries and rate control. An answer the service
 * ended early (max-tokens, a content filter, no text), an invalid one for the schema, and a failed
 * request are lines with an `error`; what arrived is kept in them.
 */
import type { ChatEvent, Usage } from '../chat/chat-events.js';
import type { CallOptions } from '../chat/chat-client.js';
import { ask, openPrivacy, type Answer } from '../ask/ask.js';
import { itemConversation } from '../ask/item.js';
import { MedchatError, toMedchatError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import type { PrivacyChoice } from '../privacy/choice.js';
import type { Kind } from '../privacy/kinds.js';
import type { Planner } from '../request/request-plan.js';
import { schemaJsonFields } from '../request/schema/report.js';
import type { BatchItem } from './items.js';
import { batchText } from '../i18n/messages/batch.js';

export interface AnswerRecord {
  id: string | number;
  content: string;
  reasoning?: string;
  usage: Usage | null;
  finish_reason: string | null;
  error?: { message: string; exit_code: number };
  [field: string]: unknown;
}

type ItemOutcome =
  /** `answered`: the service answered (even if the line carries an error: an early end, the schema). */
  | { type: 'line'; record: AnswerRecord; answered: boolean; failure?: MedchatError }
  /** Stopped (Ctrl+C, or the run ended): no line. */
  | { type: 'dropped' }
  /** A failure no other question can escape (the key refused, an unknown model…): the run ends. */
  | { type: 'fatal'; error: MedchatError };

/** What the guard found, added up over the run for its summary line. */
export interface PrivacyTally {
  questions: number;
  counts: Partial<Record<Kind, number>>;
}

/** Failures no other item can escape. */
const FATAL = new Set(['auth', 'unknown-model', 'not-found', 'proxy', 'usage']);

interface ItemCall {
  planner: Planner;
  privacy?: PrivacyChoice;
  tally: PrivacyTally;
  call: Omit<CallOptions, 'signal'> & { signal: AbortSignal };
  /** The request waits to retry (the scheduler gives its turn away meanwhile). */
  onRetry: (e: Extract<ChatEvent, { type: 'retry' }>) => void;
  /** Tokens used, as each request returns. */
  onUsage: (usage: Usage) => void;
}

export async function answerItem(item: BatchItem, c: ItemCall): Promise<ItemOutcome> {
  let done: Answer | undefined;
  let compacted: string | undefined;
  let found: Partial<Record<Kind, number>> = {};
  try {
    const plan = c.planner.plan({ prompt: item.prompt, messages: item.messages, system: item.system });
    const privacy = await openPrivacy(c.privacy, []);
    const conversation = itemConversation(plan, privacy);
    found = conversation.found;
    if (Object.keys(found).length) {
      c.tally.questions++;
      for (const [k, n] of Object.entries(found) as Array<[Kind, number]>) c.tally.counts[k] = (c.tally.counts[k] ?? 0) + n;
    }
    const { signal, ...call } = c.call;
    done = await ask({ session: conversation.session, question: conversation.question, privacy, plan, stream: false, signal, call, audit: { mode: 'batch-item', found } }, (e) => {
      if (e.type === 'retry') c.onRetry(e);
      else if (e.type === 'usage') c.onUsage(e.usage);
      else if (e.type === 'compacted') compacted = e.text;
    });
  } catch (err) {
    return failed(item, toMedchatError(err), c);
  }
  const a = done!;
  if (a.error && !a.answered) return failed(item, a.error, c, a, found);
  const record = recordOf(item, a, found, c.privacy);
  if (compacted) record.compacted = compacted;
  let error = a.error;
  if (!error && a.finished) {
    Object.assign(record, schemaJsonFields(a.finished, a.attempts), { usage: a.usage ?? null });
    if (a.finished.ok) record.content = a.finished.content;
    else {
      const errors = a.finished.errors;
      error = new MedchatError(batchText.schemaInvalid(errors[0], errors.length - 1), ExitCode.schemaInvalid, 'schema');
    }
  }
  if (error) record.error = { message: error.message, exit_code: error.exitCode };
  return { type: 'line', record, answered: true };
}

/** The request failed: dropped when stopped, the run's end when nothing can succeed, else a line with what arrived. */
function failed(item: BatchItem, e: MedchatError, c: ItemCall, a?: Answer, found: Partial<Record<Kind, number>> = {}): ItemOutcome {
  if (e.kind === 'interrupted' || c.call.signal.aborted) return { type: 'dropped' };
  if (FATAL.has(e.kind)) return { type: 'fatal', error: e };
  const record = a ? recordOf(item, a, found, c.privacy) : { id: item.id, content: '', usage: null, finish_reason: null };
  record.error = { message: e.message, exit_code: e.exitCode };
  return { type: 'line', record, answered: false, failure: e };
}

function recordOf(item: BatchItem, a: Answer, found: Partial<Record<Kind, number>>, privacy: PrivacyChoice | undefined): AnswerRecord {
  const record: AnswerRecord = {
    id: item.id,
    content: a.content,
    ...(a.reasoning ? { reasoning: a.reasoning } : {}),
    usage: a.usage ?? null,
    finish_reason: a.finishReason ?? null,
  };
  if (privacy && Object.keys(found).length) {
    const putBack = new Set(a.putBack.map((p) => p.placeholder)).size;
    record.privacy = { mode: privacy.mode, found, ...(privacy.mode === 'redact' ? { put_back: putBack } : {}) };
  }
  return record;
}
