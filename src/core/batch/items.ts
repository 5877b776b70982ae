/**
 * One question of a batch, as read from one input line:
 * - JSON lines (the default): `{"id": "q1", "prompt": "…"}` or `{"id": "q1", "messages": [{role, content}…]}`,
 *   each with an optional `"system"`; other keys are ignored (a study's own metadata may ride along);
 * - `--lines`: each non-blank line is a question, and its line number is its id.
 */
import type { WireMessage } from '../chat/chat-request.js';
import { batchText } from '../i18n/messages/batch.js';

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
  if (text.includes('\u0000')) return { problem: batchText.lineBinary };
  if (mode === 'lines') return { item: { id: line, line, prompt: text } };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { problem: batchText.notJson((err as Error).message.replace(/ in JSON at position.*$/, ''), !text.trimStart().startsWith('{')) };
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) return { problem: batchText.notObject };
  const o = value as Record<string, unknown>;
  const id = o.id;
  if (id === undefined || id === null) return { problem: batchText.noId };
  if (!(typeof id === 'string' && id.trim() !== '') && !(typeof id === 'number' && Number.isSafeInteger(id))) {
    return { problem: batchText.badId };
  }
  if (o.system !== undefined && typeof o.system !== 'string') return { problem: batchText.badSystem };
  const hasPrompt = o.prompt !== undefined;
  const hasMessages = o.messages !== undefined;
  if (hasPrompt === hasMessages) return { problem: hasPrompt ? batchText.promptAndMessages : batchText.noPrompt };
  const item: BatchItem = { id, line };
  if (typeof o.system === 'string') item.system = o.system;
  if (hasPrompt) {
    if (typeof o.prompt !== 'string' || !o.prompt.trim()) return { problem: batchText.badPrompt };
    item.prompt = o.prompt;
    return { item };
  }
  if (!Array.isArray(o.messages) || o.messages.length === 0) return { problem: batchText.badMessages };
  const messages: WireMessage[] = [];
  for (const [i, m] of o.messages.entries()) {
    const r = m as { role?: unknown; content?: unknown } | null;
    if (!r || typeof r !== 'object' || typeof r.role !== 'string' || !ROLES.has(r.role) || typeof r.content !== 'string') {
      return { problem: batchText.badMessage(i) };
    }
    messages.push({ role: r.role as WireMessage['role'], content: r.content });
  }
  if (messages.at(-1)!.role !== 'user') return { problem: batchText.lastNotUser };
  const first = messages.findIndex((m) => m.role !== 'system');
  if (messages[first]!.role === 'assistant') return { problem: batchText.answerFirst(first) };
  if (item.system !== undefined && messages.some((m) => m.role === 'system')) return { problem: batchText.systemTwice };
  item.messages = messages;
  return { item };
}
