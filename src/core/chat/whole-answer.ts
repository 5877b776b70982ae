/**
 * A whole answer read from a finished (or cut-off) body: a completion, or events sent to a
 * whole-answer request. What a cut-off body of events still held is kept, not thrown away.
 */
import type { ChatResult, Usage } from './chat-events.js';
import { chunksFromEvents, firstChoice, looksLikeEvents, textOf, type RawChunk } from './answer-shapes.js';
import { ThinkTagSplitter } from './think-tags.js';

/** The body as text; when reading fails part-way, the error carries what arrived (`partialText`). */
export async function readBodyText(response: Response): Promise<string> {
  const decoder = new TextDecoder();
  let text = '';
  try {
    if (response.body) for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) text += decoder.decode(chunk, { stream: true });
    return text + decoder.decode();
  } catch (err) {
    if (err && typeof err === 'object') Object.assign(err, { partialText: text });
    throw err;
  }
}

/** What a cut-off body of events still holds, or undefined when it holds no answer text. */
export function partialAnswer(err: unknown, thinking: boolean): ChatResult | undefined {
  const kept = (err as { partialResult?: ChatResult } | undefined)?.partialResult;
  if (kept) return kept;
  const text = (err as { partialText?: unknown } | undefined)?.partialText;
  if (typeof text !== 'string' || !looksLikeEvents(text)) return undefined;
  let result: ChatResult | undefined;
  try {
    // Only whole events: the last one may have been cut inside its JSON.
    const whole = text.slice(0, Math.max(text.lastIndexOf('\n\n'), text.lastIndexOf('\r\n\r\n')) + 2);
    result = resultFromChunks(chunksFromEvents(whole), thinking);
  } catch {
    return undefined;
  }
  return result && (result.content || result.reasoning) ? result : undefined;
}

/** One answer from the chunks of a whole body (a completion, or events), or undefined when none holds a choice. */
export function resultFromChunks(chunks: Iterable<RawChunk>, thinking: boolean): ChatResult | undefined {
  let content = '';
  let reasoning = '';
  let sawReasoningField = false;
  let finishReason: string | undefined;
  let usage: Usage | undefined;
  let id: string | undefined;
  let model: string | undefined;
  let choices = 0;
  for (const raw of chunks) {
    if (!raw || typeof raw !== 'object') continue;
    id ??= raw.id;
    model ??= raw.model;
    if (raw.usage) usage = raw.usage;
    const choice = firstChoice(raw);
    if (!choice) continue;
    choices++;
    const delta = choice.delta ?? choice.message ?? {};
    const r = textOf(delta.reasoning_content ?? delta.reasoning);
    if (r) sawReasoningField = true;
    reasoning += r;
    content += textOf(delta.content);
    if (choice.finish_reason) finishReason = choice.finish_reason;
  }
  if (!choices) return undefined;
  if (!sawReasoningField) {
    const splitter = new ThinkTagSplitter(thinking);
    const pieces = [...splitter.push(content), ...splitter.end()];
    reasoning = pieces.filter((p) => p.kind === 'reasoning').map((p) => p.text).join('');
    content = pieces.filter((p) => p.kind === 'content').map((p) => p.text).join('');
  }
  return { id, model, content, reasoning, usage, finishReason };
}
