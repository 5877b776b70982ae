import type { ChatResult } from '../chat-events.js';
import type { WireMessage } from '../chat-request.js';
import type { Kind } from '../privacy/kinds.js';
import type { PrivacyChoice, SessionPrivacy } from '../privacy/session-privacy.js';
import type { BatchItem } from './items.js';
import type { FinishedAnswer, RequestPlan } from './plan.js';

/**
 * The patient-identifier guard around a batch plan (issue 14): each question is its own
 * conversation, so it gets a guard of its own. The item's user messages are checked (warn: sent
 * as typed) or have their identifiers replaced (redact) before the request leaves; the system
 * prompt (role, -s) is the user's own and is not scanned, as in one-shot. In redact mode the
 * answer's content (and, with --schema, every string in its `value`) gets the values back, and the
 * line says what was done in `privacy`: {mode, found, put_back}. The repair request of --schema
 * quotes the answer as received, placeholders and all. Counts are added up for the run's summary.
 */
export interface PrivacyTally {
  questions: number;
  counts: Partial<Record<Kind, number>>;
}

export function privatePlan(
  plan: RequestPlan,
  choice: PrivacyChoice,
  open: (choice: PrivacyChoice) => SessionPrivacy,
  tally: PrivacyTally,
): RequestPlan {
  return {
    async prepare(item: BatchItem) {
      const prepared = await plan.prepare(item);
      const privacy = open(choice);
      const found: Partial<Record<Kind, number>> = {};
      const messages: WireMessage[] = prepared.messages.map((m) => {
        if (m.role !== 'user' || typeof m.content !== 'string') return m;
        const out = privacy.outgoing(m.content);
        for (const [k, n] of Object.entries(out.counts) as Array<[Kind, number]>) found[k] = (found[k] ?? 0) + n;
        return { ...m, content: out.text };
      });
      const anything = Object.keys(found).length > 0;
      if (anything) {
        tally.questions++;
        for (const [k, n] of Object.entries(found) as Array<[Kind, number]>) tally.counts[k] = (tally.counts[k] ?? 0) + n;
      }
      const finishInner = prepared.finish;
      return {
        ...prepared,
        messages,
        async finish(answer: ChatResult, ask: (messages: WireMessage[]) => Promise<ChatResult>): Promise<FinishedAnswer> {
          const finished = finishInner ? await finishInner(answer, ask) : { content: answer.content };
          if (!anything) return finished;
          if (!privacy.restoring) return { ...finished, fields: { ...finished.fields, privacy: { mode: choice.mode, found } } };
          const restored = privacy.guard.restore(finished.content);
          const putBack = new Set(restored.putBack.map((p) => p.placeholder)).size;
          const fields: Record<string, unknown> = { ...finished.fields, privacy: { mode: choice.mode, found, put_back: putBack } };
          if ('value' in fields) fields.value = restoreStrings(fields.value, (s) => privacy.guard.restore(s).text);
          return { ...finished, content: restored.text, fields };
        },
      };
    },
  };
}

/** `value` with every string in it passed through `restore` (JSON from --schema). */
function restoreStrings(value: unknown, restore: (s: string) => string): unknown {
  if (typeof value === 'string') return restore(value);
  if (Array.isArray(value)) return value.map((v) => restoreStrings(v, restore));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, restoreStrings(v, restore)]));
  return value;
}
