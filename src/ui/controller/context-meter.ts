import type { TokenBreakdown } from '../../core/context/context.js';
import type { Meter } from '../text/format.js';
import { meterFrom } from './session-items.js';

/**
 * The footer's context meter: what the next request would take (system prompt, summary, every
 * kept turn with its answer, the draft being typed, and max_tokens) against the window. Counted
 * when asked after something changed, not on every keystroke's frame or streamed chunk.
 */
export class ContextMeter {
  private cache: Meter | undefined;
  private text = '';

  constructor(private readonly count: (draft: string) => TokenBreakdown) {}

  /** The text in the input box: the meter counts it as the next question. */
  get draft(): string {
    return this.text;
  }

  /** Returns true when the draft changed (the caller decides whether to recount now). */
  setDraft(text: string): boolean {
    if (text === this.text) return false;
    this.text = text;
    return true;
  }

  /** Forget the count: the conversation, the settings or the draft changed. */
  invalidate(): void {
    this.cache = undefined;
  }

  value(): Meter {
    this.cache ??= meterFrom(this.count(this.text));
    return this.cache;
  }

  /** The numbers behind the meter, counted now. */
  breakdown(): TokenBreakdown {
    return this.count(this.text);
  }
}
