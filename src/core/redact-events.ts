import type { ChatEvent } from './chat-events.js';
import { StreamRedactor, redact } from './secret-redactor.js';

/**
 * The same events with every registered key masked: in the answer and the reasoning (a key split
 * across chunks at any point is still found; a few trailing characters that could be the start of
 * a key are held until the next chunk or the end), and in the texts the service names (retry
 * reasons, finish reason, id, model). ChatSession applies it once, so what every front end shows
 * is what the session saves.
 */
export async function* redactEvents(events: AsyncIterable<ChatEvent>): AsyncGenerator<ChatEvent, void> {
  const held = { content: new StreamRedactor(), reasoning: new StreamRedactor() };
  function* flush(which: 'content' | 'reasoning'): Generator<ChatEvent> {
    const text = held[which].end();
    if (text) yield { type: which, text };
  }
  function* flushAll(): Generator<ChatEvent> {
    yield* flush('reasoning');
    yield* flush('content');
  }
  try {
    for await (const e of events) {
      switch (e.type) {
        case 'content':
        case 'reasoning': {
          yield* flush(e.type === 'content' ? 'reasoning' : 'content');
          const text = held[e.type].push(e.text);
          if (text) yield { type: e.type, text };
          break;
        }
        case 'retry':
          yield { ...e, reason: redact(e.reason) };
          break;
        case 'finish':
          yield* flushAll();
          yield { ...e, reason: redact(e.reason) };
          break;
        case 'end':
          yield* flushAll();
          yield { ...e, ...(e.id !== undefined ? { id: redact(e.id) } : {}), ...(e.model !== undefined ? { model: redact(e.model) } : {}), ...(e.finishReason !== undefined ? { finishReason: redact(e.finishReason) } : {}) };
          break;
        default:
          yield e;
      }
    }
  } catch (err) {
    yield* flushAll();
    throw err;
  }
  yield* flushAll();
}
