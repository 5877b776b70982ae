import type { Throttle } from '../chat/chat-retries.js';

/**
 * How many requests a batch keeps in flight, and when it may send the next one: additive increase,
 * multiplicative decrease (AIMD, as TCP does). A 429 or 503 halves the limit (never below 1) and,
 * when the service says how long to wait (`retry-after`), holds every new request until then. Only
 * one halving per round: a throttle met by a request sent before the last halving (the other
 * requests that were already on their way) does not halve again. Each run of `limit` answers in a
 * row without a throttle raises the limit by one, up to the `-j` the user asked for.
 */
export interface LimitChange {
  from: number;
  to: number;
}

export class RateControl {
  limit: number;
  /** No new request before this time (epoch ms). */
  pausedUntil = 0;
  throttles = 0;
  private run = 0;
  private lastDecreaseAt = Number.NEGATIVE_INFINITY;

  constructor(
    readonly max: number,
    private readonly now: () => number = Date.now,
    /** The longest one hold may be: a longer `retry-after`, or one with no finite time (Infinity, a date in 2100), holds this long. */
    readonly maxHoldMs = 30_000,
  ) {
    this.limit = max;
  }

  /** A 429/503 arrived. Returns the change when the limit went down. */
  throttled(t: Throttle): LimitChange | undefined {
    const now = this.now();
    this.throttles++;
    this.run = 0;
    if (t.retryAfterMs !== undefined && t.retryAfterMs > 0) this.pausedUntil = Math.max(this.pausedUntil, now + this.holdFor(t.retryAfterMs));
    if (t.attemptStartedAt < this.lastDecreaseAt) return undefined;
    this.lastDecreaseAt = now;
    const from = this.limit;
    this.limit = Math.max(1, Math.floor(this.limit / 2));
    return from === this.limit ? undefined : { from, to: this.limit };
  }

  /** How long a `retry-after` of `ms` holds new requests: what the service asks, at most `maxHoldMs`. */
  holdFor(ms: number): number {
    return ms <= this.maxHoldMs ? Math.max(0, ms) : this.maxHoldMs;
  }

  /** An answer arrived. Returns the change when the limit went up. */
  answered(): LimitChange | undefined {
    if (this.limit >= this.max) return undefined;
    if (++this.run < this.limit) return undefined;
    this.run = 0;
    return { from: this.limit, to: ++this.limit };
  }

  /** Milliseconds to hold new requests (0: send now). */
  holdMs(): number {
    return Math.max(0, this.pausedUntil - this.now());
  }
}
