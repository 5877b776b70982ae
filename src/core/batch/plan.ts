import type { ChatResult } from '../chat-events.js';
import type { WireMessage } from '../chat-request.js';
import { MedchatError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import type { Planner } from '../request-plan.js';
import { addUsage, schemaJsonFields } from '../schema/report.js';
import type { Settings } from '../settings.js';
import type { BatchItem } from './items.js';

/**
 * How a batch turns an item into a request, and an answer into what is written: the seam where
 * the shared request preparation (request-plan.ts: roles, -s, --schema) plugs in.
 */
export type SettingsOverrides = Partial<Pick<Settings, 'maxTokens' | 'thinking' | 'temperature' | 'topP'>>;

export interface PreparedRequest {
  messages: WireMessage[];
  /** Settings for this request only. */
  overrides?: SettingsOverrides;
  /**
   * What the answer becomes in the output line. `ask` sends one more request (a repair round-trip
   * for --schema) with the same settings and retries. Without `finish`, the answer's text as is.
   */
  finish?: (answer: ChatResult, ask: (messages: WireMessage[]) => Promise<ChatResult>) => Promise<FinishedAnswer>;
}

export interface FinishedAnswer {
  content: string;
  /** The item failed after all (e.g. not valid for the schema): written with its `error`. */
  error?: MedchatError;
  /** More fields for the output line (with a schema: value, valid, schema_errors, attempts, usage of both requests). */
  fields?: Record<string, unknown>;
}

export interface RequestPlan {
  /** May throw a MedchatError: the item is written with that error, and the run goes on. */
  prepare(item: BatchItem): PreparedRequest | Promise<PreparedRequest>;
}

/**
 * The batch plan from the shared planner: the role's system prompt, then -s, then the item's own
 * ("system", or system messages in its "messages"), the schema instruction; the item's messages
 * or its prompt. With a schema, the answer is checked and, when invalid, asked for once more with
 * the validation errors quoted (as one-shot does); still invalid, the line carries exit code 9.
 */
export function plannedBatch(planner: Planner): RequestPlan {
  return {
    prepare(item) {
      const plan = planner.plan({ prompt: item.prompt, messages: item.messages, system: item.system });
      if (!plan.schema) return { messages: plan.messages };
      return {
        messages: plan.messages,
        async finish(answer, ask) {
          let finished = plan.finish(answer.content);
          let attempts = 1;
          let usage = answer.usage;
          if (!finished.ok) {
            const repair = plan.repairRequest(finished);
            const second = await ask([...plan.messages, { role: 'assistant', content: answer.content }, { role: 'user', content: repair }]);
            if (second.usage) usage = addUsage(usage, second.usage);
            finished = plan.finish(second.content);
            attempts = 2;
          }
          const fields = { ...schemaJsonFields(finished, attempts), usage: usage ?? null };
          if (finished.ok) return { content: finished.content, fields };
          const more = finished.errors.length > 1 ? `; and ${finished.errors.length - 1} more in "schema_errors"` : '';
          const error = new MedchatError(`the answer is not valid JSON for the schema, even after one repair request (${finished.errors[0] ?? 'no JSON found'}${more})`, ExitCode.schemaInvalid, 'schema');
          return { content: finished.raw, error, fields };
        },
      };
    },
  };
}
