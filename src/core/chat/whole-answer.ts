/**
 * A whole answer read from a finished (or cut-off) body: a completion, or events sent to a
 * whole-answer request. What a cut-off body of events still held is kept, not thrown away.
 */
import type { ChatResult, Usage } from './chat-events.js';
import { chunksFromEvents, firstChoice, looksLikeEvents, textOf, type RawChunk } from './answer-shapes.js';
import { ThinkTagSplitter } from './think-tags.js';
import { GrowingText } from '../text/rope.js';

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
  const fold = new AnswerFold();
  for (const raw of chunks) fold.add(raw);
  return fold.result(thinking);
}

/**
 * An answer put together chunk by chunk as they arrive, so a body of events is not held as its
 * chunks (a few hundred bytes each) until it ends: only the texts grow (rope.ts).
 */
export class AnswerFold {
  private content = '';
  private reasoning = '';
  private readonly texts = { content: new GrowingText(), reasoning: new GrowingText() };
  private sawReasoningField = false;
  private finishReason: string | undefined;
  private usage: Usage | undefined;
  private id: string | undefined;
  private model: string | undefined;
  private choices = 0;
  /** Characters of content and reasoning so far. */
  chars = 0;

  add(raw: RawChunk): void {
    if (!raw || typeof raw !== 'object') return;
    this.id ??= raw.id;
    this.model ??= raw.model;
    if (raw.usage) this.usage = raw.usage;
    const choice = firstChoice(raw);
    if (!choice) return;
    this.choices++;
    const delta = choice.delta ?? choice.message ?? {};
    const r = textOf(delta.reasoning_content ?? delta.reasoning);
    if (r) {
      this.sawReasoningField = true;
      this.reasoning = this.texts.reasoning.add(r);
      this.chars += r.length;
    }
    const c = textOf(delta.content);
    if (c) {
      this.content = this.texts.content.add(c);
      this.chars += c.length;
    }
    if (choice.finish_reason) this.finishReason = choice.finish_reason;
  }

  /** A choice has a finish reason. */
  get finished(): boolean {
    return this.finishReason !== undefined;
  }

  /** The answer so far, or undefined when no chunk held a choice. */
  result(thinking: boolean): ChatResult | undefined {
    if (!this.choices) return undefined;
    let { content, reasoning } = this;
    if (!this.sawReasoningField) {
      const splitter = new ThinkTagSplitter(thinking);
      const pieces = [...splitter.push(content), ...splitter.end()];
      reasoning = pieces.filter((p) => p.kind === 'reasoning').map((p) => p.text).join('');
      content = pieces.filter((p) => p.kind === 'content').map((p) => p.text).join('');
    }
    return { id: this.id, model: this.model, content, reasoning, usage: this.usage, finishReason: this.finishReason };
  }
}
