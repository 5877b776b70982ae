/**
 * One question of a batch, as read from one input line:
 * - JSON lines (the default): `{"id": "q1", "prompt": "…"}` or `{"id": "q1", "messages": [{role, content}…]}`,
 *   each with an optional `"system"`; other keys are ignored (a study's own metadata may ride along);
 * - `--lines`: each non-blank line is a question, and its line number is its id.
 */
import type { WireMessage } from '../chat/chat-request.js';

export interface BatchItem {
  /** As given: a string or an integer. */
  id: string | number;
  /** The 1-based input line it came from. */
  line: number;
  prompt?: string;
  messages?: WireMessage[];
  system?: string;
}

export type InputMode = 'jsonl' | 'lines';

/** What a line holds: an item, nothing (a blank line), or why it cannot be used. */
type ParsedLine = { item: BatchItem } | { blank: true } | { problem: string };

const ROLES = new Set(['system', 'user', 'assistant']);

/** The key two ids are compared by: 7 and "7" are the same question. */
export const idKey = (id: string | number): string => String(id);

export function parseLine(text: string, line: number, mode: InputMode): ParsedLine {
  if (!text.trim()) return { blank: true };
  if (text.includes('\u0000')) return { problem: 'holds binary data (a NUL byte)' };
  if (mode === 'lines') return { item: { id: line, line, prompt: text } };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { problem: `not valid JSON (${(err as Error).message.replace(/ in JSON at position.*$/, '')})${text.trimStart().startsWith('{') ? '' : '; for plain-text questions use --lines'}` };
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) return { problem: 'not a JSON object like {"id": "q1", "prompt": "…"}' };
  const o = value as Record<string, unknown>;
  const id = o.id;
  if (id === undefined || id === null) return { problem: 'no "id" (each line needs a unique id, e.g. {"id": "q1", "prompt": "…"})' };
  if (!(typeof id === 'string' && id.trim() !== '') && !(typeof id === 'number' && Number.isSafeInteger(id))) {
    return { problem: '"id" must be a non-empty string or an integer' };
  }
  if (o.system !== undefined && typeof o.system !== 'string') return { problem: '"system" must be a string' };
  const hasPrompt = o.prompt !== undefined;
  const hasMessages = o.messages !== undefined;
  if (hasPrompt === hasMessages) return { problem: hasPrompt ? 'give "prompt" or "messages", not both' : 'no "prompt" or "messages"' };
  const item: BatchItem = { id, line };
  if (typeof o.system === 'string') item.system = o.system;
  if (hasPrompt) {
    if (typeof o.prompt !== 'string' || !o.prompt.trim()) return { problem: '"prompt" must be a non-empty string' };
    item.prompt = o.prompt;
    return { item };
  }
  if (!Array.isArray(o.messages) || o.messages.length === 0) return { problem: '"messages" must be a non-empty array of {"role", "content"}' };
  const messages: WireMessage[] = [];
  for (const [i, m] of o.messages.entries()) {
    const r = m as { role?: unknown; content?: unknown } | null;
    if (!r || typeof r !== 'object' || typeof r.role !== 'string' || !ROLES.has(r.role) || typeof r.content !== 'string') {
      return { problem: `messages[${i}] must be {"role": "user" | "assistant" | "system", "content": "…"}` };
    }
    messages.push({ role: r.role as WireMessage['role'], content: r.content });
  }
  if (messages.at(-1)!.role !== 'user') return { problem: 'the last message must be the user\'s question (role "user")' };
  const first = messages.findIndex((m) => m.role !== 'system');
  if (messages[first]!.role === 'assistant') return { problem: `messages[${first}] is an answer with no question before it: a conversation starts with the user's message` };
  if (item.system !== undefined && messages.some((m) => m.role === 'system')) return { problem: 'give the system prompt once: "system" or a system message, not both' };
  item.messages = messages;
  return { item };
}
