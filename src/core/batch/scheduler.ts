/**
 * Runs the items of a batch: as many requests in flight as the rate control allows, each through
 * the one question pipeline (answer-item.ts) with the client's bounded retries, and hands each
 * finished item's output line to `write`, as it finishes or (ordered) in input order. One item
 * failing is written as its error line and the run goes on; it stops early only when told to
 * (Ctrl+C: the answers in flight finish and are written, items waiting to retry are dropped),
 * when a write fails, or when nothing can succeed (the key refused, an unknown model:
 * answer-item.ts; the service down: OUTAGE_KINDS).
 */
import type { Usage } from '../chat/chat-events.js';
import type { Throttle } from '../chat/chat-retries.js';
import { MedchatError, toMedchatError } from '../errors.js';
import type { PrivacyChoice } from '../privacy/choice.js';
import type { Planner } from '../request/request-plan.js';
import { answerItem, type AnswerRecord, type PrivacyTally } from './answer-item.js';
import type { BatchItem } from './items.js';
import { RateControl, type LimitChange } from './rate.js';
import { batchText } from '../i18n/messages/batch.js';

interface SchedulerOptions {
  planner: Planner;
  /** The patient-identifier guard (undefined or off: none); what it finds is added up in `tally`. */
  privacy?: PrivacyChoice;
  tally: PrivacyTally;
  jobs: number;
  /** Attempts after the first, per request (429/503/5xx, dropped connections). */
  retries: number;
  /** All waits of one request together may come to this much; a longer retry-after fails the item. */
  maxRetryAfterMs: number;
  /** Each wait's most, for one request and for the hold of the whole run: a longer (or endless) retry-after waits this long. */
  maxEachRetryAfterMs: number;
  ordered: boolean;
  /** Write one line; a throw (a full disk) stops the run with that error. */
  write: (record: AnswerRecord) => void | Promise<void>;
  /** Something to show changed (an item written, the limit moved). */
  onChange?: (event: { type: 'written'; record: AnswerRecord } | LimitEvent) => void;
  now?: () => number;
}

/** The limit moved (`change`), or the service asked to wait and new requests are held `holdMs` (capped). */
export interface LimitEvent {
  type: 'limit';
  change?: LimitChange;
  throttle?: Throttle;
  holdMs?: number;
}

export interface BatchStats {
  answered: number;
  failed: number;
  promptTokens: number;
  completionTokens: number;
}

/** Failures of the service or the way to it: this many in a row (no answer between) and the run stops. */
const OUTAGE_KINDS = new Set(['network', 'timeout', 'server', 'rate-limit', 'malformed']);
const outageRun = (jobs: number) => Math.max(10, 2 * jobs);
/** --ordered holds at most this many finished lines waiting for an earlier one. */
const orderedWindow = (jobs: number) => Math.max(64, 8 * jobs);
const MAX_PENDING_WRITES = 256;
/** How long answers on their way may take to finish after a stop (see `stop`). */
export const STOP_GRACE_MS = 5_000;

interface Flight {
  item: BatchItem;
  seq: number;
  controller: AbortController;
  /** It holds one of the `limit` turns: a request on its way. False while it waits to retry. */
  holding: boolean;
  /** Waiting to retry: it goes before any new question. */
  retrying: boolean;
}

export class BatchScheduler {
  readonly rate: RateControl;
  readonly stats: BatchStats = { answered: 0, failed: 0, promptTokens: 0, completionTokens: 0 };
  /** Set when the run stopped before the end: Ctrl+C (`stopped`), or an error that ends it. */
  stopped = false;
  fatal: MedchatError | undefined;
  private readonly flights = new Set<Flight>();
  /** Flights holding a turn (requests on their way), and flights waiting to retry (they go before new questions). */
  private active = 0;
  private retrying = 0;
  private readonly buffered = new Map<number, AnswerRecord | null>();
  private nextToWrite = 0;
  private writing: Promise<void> = Promise.resolve();
  private pendingWrites = 0;
  private writesBroken = false;
  private outage = 0;
  private waiters: Array<() => void> = [];
  private readonly now: () => number;

  constructor(private readonly o: SchedulerOptions) {
    this.now = o.now ?? Date.now;
    this.rate = new RateControl(o.jobs, this.now, o.maxEachRetryAfterMs);
  }

  /** Requests on their way now. */
  get inFlight(): number {
    return this.active;
  }

  /** Run every item (or until stopped). Resolves when every line in flight is written. */
  async run(items: AsyncIterable<BatchItem>): Promise<void> {
    const it = items[Symbol.asyncIterator]();
    let seq = 0;
    try {
      // While a hold lasts, the next question is looked for: with none left the run ends without waiting it out.
      let peeked: Promise<IteratorResult<BatchItem>> | undefined;
      while (await this.room(seq, () => (peeked ??= it.next()))) {
        const next = await (peeked ?? it.next());
        peeked = undefined;
        if (next.done) break;
        this.start(next.value, seq++);
      }
    } finally {
      await it.return?.(undefined);
      while (this.flights.size) await this.wake();
      await this.writing;
    }
  }

  /**
   * Ctrl+C, SIGTERM, SIGHUP: send nothing more; retries are dropped, and answers on their way have
   * `graceMs` to finish and be written. Past that (a stalled service) they are dropped too, so a
   * stop never waits on the idle timeout; a rerun asks them again.
   */
  stop(graceMs = STOP_GRACE_MS): void {
    this.stopped = true;
    for (const f of this.flights) if (!f.holding) f.controller.abort();
    if (this.flights.size) {
      setTimeout(() => {
        for (const f of this.flights) f.controller.abort();
        this.notify();
      }, graceMs).unref();
    }
    this.notify();
  }

  /** End the run with this error: every request in flight is dropped. */
  fail(err: MedchatError): void {
    this.fatal ??= err;
    this.stopped = true;
    for (const f of this.flights) f.controller.abort();
    this.notify();
  }

  private async room(seq: number, peek: () => Promise<IteratorResult<BatchItem>>): Promise<boolean> {
    for (;;) {
      if (this.stopped) return false;
      const hold = this.rate.holdMs();
      if (hold > 0) {
        // A next question found does not end the wait (the hold still holds it).
        const noneLeft = await Promise.race([this.wake(hold).then(() => false), peek().then((r) => (r.done ? true : new Promise<boolean>(() => {})))]);
        this.notify(); // ends the wait's timer too
        if (noneLeft) return false;
        continue;
      }
      const orderedRoom = !this.o.ordered || seq - this.nextToWrite < orderedWindow(this.o.jobs);
      if (this.active + this.retrying < this.rate.limit && orderedRoom && this.pendingWrites < MAX_PENDING_WRITES) return true;
      await this.wake();
    }
  }

  /** Waiting to retry: the turn is given back (a lowered limit then holds for retries too). */
  private waitToRetry(flight: Flight): void {
    this.release(flight);
    if (flight.retrying) return;
    flight.retrying = true;
    this.retrying++;
  }

  /** After its wait, a retry takes a turn again under the current limit, after any hold. */
  private async turnForRetry(flight: Flight): Promise<void> {
    for (;;) {
      if (flight.controller.signal.aborted) return;
      if (this.stopped) {
        flight.controller.abort();
        return;
      }
      const hold = this.rate.holdMs();
      if (hold > 0) await this.wake(hold);
      else if (this.active < this.rate.limit) break;
      else await this.wake();
    }
    this.doneRetrying(flight);
    flight.holding = true;
    this.active++;
  }

  private doneRetrying(flight: Flight): void {
    if (!flight.retrying) return;
    flight.retrying = false;
    this.retrying--;
  }

  private release(flight: Flight): void {
    if (!flight.holding) return;
    flight.holding = false;
    this.active--;
    this.notify();
  }

  private wake(ms?: number): Promise<void> {
    return new Promise((resolve) => {
      // Never past what a timer can hold (2^31 - 1 ms); a wait is re-checked when it ends.
      const timer = ms === undefined ? undefined : setTimeout(done, Math.min(Math.max(0, ms), 2 ** 31 - 1));
      function done() {
        if (timer) clearTimeout(timer);
        resolve();
      }
      this.waiters.push(done);
    });
  }

  private notify(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }

  private start(item: BatchItem, seq: number): void {
    const flight: Flight = { item, seq, controller: new AbortController(), holding: true, retrying: false };
    this.flights.add(flight);
    this.active++;
    void this.answer(flight).then(
      (record) => this.finished(flight, record),
      (err) => this.finished(flight, undefined, toMedchatError(err)),
    );
  }

  /** The item's output line, or undefined when it was dropped (stopped) or ended the run. */
  private async answer(flight: Flight): Promise<AnswerRecord | undefined> {
    const outcome = await answerItem(flight.item, {
      planner: this.o.planner,
      privacy: this.o.privacy,
      tally: this.o.tally,
      call: {
        signal: flight.controller.signal,
        retries: this.o.retries,
        maxRetryAfterMs: this.o.maxRetryAfterMs,
        maxEachRetryAfterMs: this.o.maxEachRetryAfterMs,
        onThrottle: (t: Throttle) => {
          const wasHeld = this.rate.holdMs() > 0;
          const change = this.rate.throttled(t);
          // Said when the limit moves or a hold begins (not for each refusal of a burst).
          const holdMs = t.retryAfterMs !== undefined && t.retryAfterMs > 0 ? this.rate.holdFor(t.retryAfterMs) : undefined;
          if (change || (holdMs !== undefined && !wasHeld)) this.o.onChange?.({ type: 'limit', change, throttle: t, holdMs });
        },
        beforeRetry: () => this.turnForRetry(flight),
      },
      // Waiting to retry: the turn goes to someone else meanwhile (and Ctrl+C drops this question).
      onRetry: () => {
        this.waitToRetry(flight);
        if (this.stopped) flight.controller.abort();
      },
      onUsage: (usage) => this.count(usage),
    });
    if (outcome.type === 'dropped') return undefined;
    if (outcome.type === 'fatal') {
      this.fail(outcome.error);
      return undefined;
    }
    if (outcome.answered) {
      this.outage = 0;
      const change = this.rate.answered();
      if (change) this.o.onChange?.({ type: 'limit', change });
    } else if (outcome.failure && OUTAGE_KINDS.has(outcome.failure.kind) && ++this.outage >= outageRun(this.o.jobs)) {
      const e = outcome.failure;
      this.fail(new MedchatError(batchText.outage(this.outage, e.message), e.exitCode, 'outage'));
    }
    return outcome.record;
  }

  private count(usage: Usage): void {
    this.stats.promptTokens += usage.prompt_tokens ?? 0;
    this.stats.completionTokens += usage.completion_tokens ?? 0;
  }

  private finished(flight: Flight, record: AnswerRecord | undefined, err?: MedchatError): void {
    this.release(flight);
    this.doneRetrying(flight);
    this.flights.delete(flight);
    if (err) this.fail(err);
    if (this.o.ordered) {
      this.buffered.set(flight.seq, record ?? null);
      while (this.buffered.has(this.nextToWrite)) {
        const next = this.buffered.get(this.nextToWrite)!;
        this.buffered.delete(this.nextToWrite++);
        if (next) this.enqueueWrite(next);
      }
    } else if (record) {
      this.enqueueWrite(record);
    }
    this.notify();
  }

  private enqueueWrite(record: AnswerRecord): void {
    this.pendingWrites++;
    this.writing = this.writing.then(async () => {
      try {
        if (this.writesBroken) return; // after a failed write nothing more is written
        await this.o.write(record);
        if (record.error) this.stats.failed++;
        else this.stats.answered++;
        this.o.onChange?.({ type: 'written', record });
      } catch (err) {
        this.writesBroken = true;
        this.fail(toMedchatError(err));
      } finally {
        this.pendingWrites--;
        this.notify();
      }
    });
  }
}
