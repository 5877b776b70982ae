import { formatTokens } from '../text/format.js';
import { contextText } from '../i18n/messages/context.js';
import { shortList } from './summary-check.js';

/** One fold of earlier turns out of what is sent: summarised, or dropped. Kept in the session's context state. */
export interface Compaction {
  at: number;
  method: 'summarise' | 'trim';
  /** Messages (user and assistant) taken out of what is sent. */
  messages: number;
  beforeTokens: number;
  afterTokens: number;
  /** Why a trim happened instead of a summary: `the summary was cut off (finish_reason length), twice`, `summarising failed (…)`. */
  reason?: string;
  /** A summary that replaced the turns on the second try: what was wrong with the first. */
  firstTry?: string;
  /** Facts (allergies, dosed medications, ages) of dropped turns whose sentences are still sent word for word. */
  quotedFacts?: string[];
  throughTurn: number;
}

/**
 * The line the user sees: `Summarised 14 earlier messages (61.2k → 2.1k tokens)`, or when the
 * summary could not be trusted `The summary was cut off (finish_reason length), twice; dropped 4
 * earlier messages instead (61.2k tokens); the lines stating penicillin allergy are still sent word for word`.
 */
export function describeCompaction(c: Compaction): string {
  if (c.method === 'summarise') {
    const line = contextText.summarised(c.messages, formatTokens(c.beforeTokens), formatTokens(c.afterTokens));
    return c.firstTry ? contextText.secondTry(line, c.firstTry) : line;
  }
  const quoted = c.quotedFacts?.length ? contextText.stillQuoted(shortList(c.quotedFacts)) : '';
  if (!c.reason) return contextText.dropped(c.messages, formatTokens(c.beforeTokens), quoted);
  return contextText.droppedInstead(c.reason, c.messages, formatTokens(c.beforeTokens), quoted);
}

export function mergeCompactions(a: Compaction, b: Compaction): Compaction {
  const quoted = [...(a.quotedFacts ?? []), ...(b.quotedFacts ?? [])];
  const extra = { ...(quoted.length ? { quotedFacts: quoted } : {}), ...(b.firstTry || a.firstTry ? { firstTry: b.firstTry ?? a.firstTry } : {}) };
  if (a.method === 'summarise' && b.method === 'summarise') {
    return { ...b, ...extra, messages: a.messages + b.messages, beforeTokens: a.beforeTokens + b.beforeTokens - a.afterTokens };
  }
  return b.method === 'trim' ? { ...b, ...extra, messages: a.messages + b.messages, beforeTokens: a.beforeTokens + b.beforeTokens } : { ...b, ...extra, messages: a.messages + b.messages };
}
