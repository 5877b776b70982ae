/**
 * Chat events with every registered key masked: in the answer and the reasoning (a key split
 * across chunks at any point is still found; a few trailing characters that could be the start of
 * a key are held until the next chunk or the end), and in the texts the service names (retry
 * reasons, finish reason, id, model). ChatSession passes every event through one of these, once,
 * so what every front end shows is what the session saves. It is synchronous (no async generator
 * in between): `take` each event as it arrives, then `flush` at the end or before an error.
 */
import type { ChatEvent } from './chat-events.js';
import { StreamRedactor, redact } from '../config/secret-redactor.js';

const NONE: readonly ChatEvent[] = [];

export class EventRedactor {
  private readonly content = new StreamRedactor();
  private readonly reasoning = new StreamRedactor();

  /** The events to pass on for `e`, in order: what was held of the other kind of text first, then `e` masked. */
  take(e: ChatEvent): readonly ChatEvent[] {
    switch (e.type) {
      case 'content':
      case 'reasoning': {
        const other = this.held(e.type === 'content' ? 'reasoning' : 'content');
        const text = (e.type === 'content' ? this.content : this.reasoning).push(e.text);
        // Unchanged (the usual case): the same event, no copy.
        const out = text === e.text ? e : text ? { type: e.type, text } : undefined;
        if (other) return out ? [other, out] : [other];
        return out ? [out] : NONE;
      }
      case 'retry':
        return [{ ...e, reason: redact(e.reason) }];
      case 'finish':
        return [...this.flush(), { ...e, reason: redact(e.reason) }];
      case 'end':
        return [
          ...this.flush(),
          {
            ...e,
            ...(e.id !== undefined ? { id: redact(e.id) } : {}),
            ...(e.model !== undefined ? { model: redact(e.model) } : {}),
            ...(e.finishReason !== undefined ? { finishReason: redact(e.finishReason) } : {}),
          },
        ];
      default:
        return [e];
    }
  }

  /** Everything still held (reasoning, then content), masked: at the end, and before an error is passed on. */
  flush(): readonly ChatEvent[] {
    const reasoning = this.held('reasoning');
    const content = this.held('content');
    if (reasoning && content) return [reasoning, content];
    if (reasoning) return [reasoning];
    return content ? [content] : NONE;
  }

  private held(which: 'content' | 'reasoning'): ChatEvent | undefined {
    const text = (which === 'content' ? this.content : this.reasoning).end();
    return text ? { type: which, text } : undefined;
  }
}
