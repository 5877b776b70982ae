import { formatTokens } from '../text/format.js';

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
  const what = `${c.messages} earlier ${c.messages === 1 ? 'message' : 'messages'}`;
  if (c.method === 'summarise') {
    const line = `Summarised ${what} (${formatTokens(c.beforeTokens)} → ${formatTokens(c.afterTokens)} tokens)`;
    return c.firstTry ? `${line} on a second try: the first ${c.firstTry.replace(/^the summary /, '')}` : line;
  }
  const quoted = c.quotedFacts?.length ? `; the lines stating ${shortList(c.quotedFacts)} are still sent word for word` : '';
  if (!c.reason) return `Dropped ${what} (${formatTokens(c.beforeTokens)} tokens) to fit the context window${quoted}`;
  return `${c.reason.charAt(0).toUpperCase()}${c.reason.slice(1)}; dropped ${what} instead (${formatTokens(c.beforeTokens)} tokens)${quoted}`;
}

function shortList(labels: readonly string[], max = 4): string {
  return labels.length <= max ? labels.join(', ') : `${labels.slice(0, max).join(', ')} and ${labels.length - max} more`;
}

export function mergeCompactions(a: Compaction, b: Compaction): Compaction {
  const quoted = [...(a.quotedFacts ?? []), ...(b.quotedFacts ?? [])];
  const extra = { ...(quoted.length ? { quotedFacts: quoted } : {}), ...(b.firstTry || a.firstTry ? { firstTry: b.firstTry ?? a.firstTry } : {}) };
  if (a.method === 'summarise' && b.method === 'summarise') {
    return { ...b, ...extra, messages: a.messages + b.messages, beforeTokens: a.beforeTokens + b.beforeTokens - a.afterTokens };
  }
  return b.method === 'trim' ? { ...b, ...extra, messages: a.messages + b.messages, beforeTokens: a.beforeTokens + b.beforeTokens } : { ...b, ...extra, messages: a.messages + b.messages };
}
