/**
 * The two shapes an answer arrives in, read the same way whichever was asked for: a stream of
 * chunks (server-sent events, `choices[].delta`) or one whole completion (`choices[].message`).
 * A service that answers a stream request with one JSON completion, or `--no-stream` with
 * events, is understood either way. Only the choice with index 0 is read.
 */
import { APIError } from 'openai';
import type { Usage } from './chat-events.js';

interface RawDelta {
  content?: unknown;
  reasoning_content?: unknown;
  reasoning?: unknown;
}

interface RawChoice {
  index?: number;
  delta?: RawDelta;
  message?: RawDelta;
  finish_reason?: string | null;
}

export interface RawChunk {
  id?: string;
  model?: string;
  choices?: RawChoice[];
  usage?: Usage | null;
  error?: unknown;
  message?: unknown;
}

/** Text from `content`: a string, or an array of parts (`[{type:'text',text}]`, or strings). */
export function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  let out = '';
  for (const part of content) {
    if (typeof part === 'string') out += part;
    else if (part && typeof part === 'object') {
      const p = part as { type?: unknown; text?: unknown };
      if (typeof p.text === 'string' && (p.type === undefined || p.type === 'text' || p.type === 'output_text')) out += p.text;
    }
  }
  return out;
}

/** The choice with index 0 (or, when choices carry no index, the first). */
export function firstChoice(chunk: RawChunk): RawChoice | undefined {
  const choices = chunk.choices;
  if (!Array.isArray(choices)) return undefined;
  for (let i = 0; i < choices.length; i++) {
    const c = choices[i];
    if (c && typeof c === 'object' && (typeof c.index === 'number' ? c.index : i) === 0) return c;
  }
  return undefined;
}

/** A whole completion as one chunk (its `message` read as a `delta`). */
function completionAsChunk(completion: RawChunk): RawChunk {
  const choice = firstChoice(completion);
  if (!choice) return completion;
  return { ...completion, choices: [{ index: 0, delta: choice.message ?? choice.delta ?? {}, finish_reason: choice.finish_reason }] };
}

/** Does this text look like server-sent events rather than JSON? */
export function looksLikeEvents(text: string): boolean {
  return /^\s*(data|event|id|retry)\s*:|^\s*:/.test(text);
}

/**
 * The chunks in a whole body of server-sent events (for `--no-stream` answered with a stream).
 * Stops at `[DONE]`; an event that carries an error is thrown, as the SDK does for a stream.
 */
export function chunksFromEvents(text: string): RawChunk[] {
  const chunks: RawChunk[] = [];
  let data: string[] = [];
  const dispatch = (): boolean => {
    if (!data.length) return false;
    const payload = data.join('\n');
    data = [];
    if (payload.startsWith('[DONE]')) return true;
    const parsed = JSON.parse(payload) as RawChunk;
    if (parsed && typeof parsed === 'object' && parsed.error) throw new APIError(undefined, parsed.error as object, undefined, undefined);
    chunks.push(parsed);
    return false;
  };
  for (const line of text.split(/\r\n|\r|\n/)) {
    if (line === '') {
      if (dispatch()) return chunks;
      continue;
    }
    if (line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    if (field !== 'data') continue;
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    data.push(value);
  }
  dispatch();
  return chunks;
}

/** The chunks of a whole body, whichever shape it has (JSON completion or events). */
export function chunksFromBody(text: string, contentType: string): RawChunk[] {
  if (/event-stream/i.test(contentType) || looksLikeEvents(text)) return chunksFromEvents(text);
  const parsed = JSON.parse(text) as RawChunk; // a SyntaxError is the caller's "malformed"
  if (parsed && typeof parsed === 'object' && !Array.isArray(parsed.choices) && parsed.error != null) {
    throw new APIError(undefined, parsed.error as object, undefined, undefined);
  }
  return [completionAsChunk(parsed)];
}
