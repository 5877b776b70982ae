import type { ChatResult } from '../chat-events.js';
import type { WireMessage } from '../chat-request.js';
import type { MedchatError } from '../errors.js';
import type { Settings } from '../settings.js';
import type { BatchItem } from './items.js';

/**
 * How a batch turns an item into a request, and an answer into what is written: the seam where
 * the shared request preparation (roles, --schema, files; issue 13) plugs in. One-shot and chat go
 * through the same preparation; batch only needs `prepare(item) → request` and
 * `finish(answer) → result`.
 */
export type SettingsOverrides = Partial<Pick<Settings, 'maxTokens' | 'thinking' | 'temperature' | 'topP'>>;

export interface PreparedRequest {
  messages: WireMessage[];
  /** Settings for this request only (a role's temperature, thinking off for --schema…). */
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
  /** More fields for the output line (e.g. the raw answer beside extracted JSON). */
  fields?: Record<string, unknown>;
}

export interface RequestPlan {
  /** May throw a MedchatError: the item is written with that error, and the run goes on. */
  prepare(item: BatchItem): PreparedRequest | Promise<PreparedRequest>;
}

/**
 * The plan without roles or schema: the item's own system prompt, else `--system`, then the
 * item's messages (or its prompt as the one user message). A `system` message already in the
 * item's messages is kept, and `--system` is not added to it.
 */
export function plainPlan(opts: { system?: string }): RequestPlan {
  return {
    prepare(item) {
      const conversation: WireMessage[] = item.messages ?? [{ role: 'user', content: item.prompt ?? '' }];
      const system = item.system ?? opts.system;
      const hasSystem = conversation.some((m) => m.role === 'system');
      return { messages: system && !hasSystem ? [{ role: 'system', content: system }, ...conversation] : conversation };
    },
  };
}
