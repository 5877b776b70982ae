import type { Turn } from '../../core/conversation.js';
import { toMedchatError, type MedchatError } from '../../core/errors.js';
import type { ChatSession, SessionEvent } from '../../core/sessions/chat-session.js';
import { changeOf, finishLive, outcomeOf, reduceLive, startLive, type FinishedTurn, type TurnOutcome } from './live-turn.js';
import type { Change, LiveTurn, NewItem } from './screen-state.js';
import { TurnClock } from './turn-clock.js';

/**
 * Runs one answer's events through the live-turn reducer: after each event, `onStep` gets the new
 * live state, what to print and what kind of change it was. Resolves (never rejects) with the
 * last live state and the error the stream ended with, if any.
 */
export async function streamAnswer(
  events: AsyncIterable<SessionEvent>,
  live: LiveTurn,
  onStep: (live: LiveTurn, print: NewItem[], change: Change) => void,
  now: () => number = Date.now,
): Promise<{ live: LiveTurn; error?: MedchatError }> {
  try {
    for await (const e of events) {
      const step = reduceLive(live, e, now());
      const change = changeOf(live, e, step);
      live = step.live;
      onStep(live, step.print, change);
    }
    return { live };
  } catch (err) {
    return { live, error: toMedchatError(err) };
  }
}

export interface AnswerHooks {
  /** While it streams: items to print (finished paragraphs, the folded reasoning, a fold notice) and what changed. */
  step(print: NewItem[], change: Change): void;
  /** It ended (`live` is already gone): print `done.print`, then whatever waited for it. `error`: what the stream ended with. */
  ended(done: FinishedTurn, outcome: TurnOutcome, turn: Turn, error: MedchatError | undefined): void;
}

/**
 * The answer being streamed: one at a time, its live state for the screen, Esc to stop it. The
 * session keeps the turn (answer, reasoning, usage, status) and saves it; this only renders it.
 */
export class AnswerRunner {
  live: LiveTurn | undefined;
  /** Resolves when the answer has ended and `ended` has run. */
  running: Promise<void> | undefined;
  /** The answer's seconds, from when it was sent, ticking while it streams: what every live counter shows. */
  readonly clock: TurnClock;
  private abort: AbortController | undefined;

  constructor(
    private readonly hooks: AnswerHooks,
    private readonly now: () => number = Date.now,
  ) {
    this.clock = new TurnClock(now);
  }

  /** `wrap`: what the screen shows of the events (the privacy guard puts values back there). */
  start(session: ChatSession, turn: Turn, wrap?: (events: AsyncIterable<SessionEvent>) => AsyncIterable<SessionEvent>): void {
    this.live = startLive(turn.id, this.now());
    this.clock.start(this.live.startedAt);
    const running = this.stream(session, turn, wrap).finally(() => {
      if (this.running === running) this.running = undefined; // `ended` may have started the next answer
    });
    this.running = running;
  }

  /** Close the request; the partial answer stays, marked interrupted. False when nothing streams. */
  stop(): boolean {
    if (!this.abort || this.abort.signal.aborted) return false;
    this.abort.abort();
    return true;
  }

  private async stream(session: ChatSession, turn: Turn, wrap?: (events: AsyncIterable<SessionEvent>) => AsyncIterable<SessionEvent>): Promise<void> {
    const abort = new AbortController();
    this.abort = abort;
    turn.status = 'streaming';
    const sent = session.send(turn, { signal: abort.signal, stream: true });
    const events = wrap ? wrap(sent) : sent;
    const { live, error } = await streamAnswer(
      events,
      this.live!,
      (live, print, change) => {
        this.live = live;
        // The session saves the turn as it streams: with the reasoning's own length, not the wait before it.
        if (live.reasoningMs !== undefined) turn.reasoningMs = live.reasoningMs;
        // …and the reasoning's token count the fold line shows, so a resumed turn shows the same one.
        if (live.reasoningTokens) turn.reasoningTokens = live.reasoningTokens;
        this.hooks.step(print, change);
      },
      this.now,
    );
    this.abort = undefined;
    const outcome = outcomeOf(error, Boolean(turn.answer));
    turn.status = outcome.status;
    if (outcome.error) turn.error = outcome.error;
    const done = finishLive(live, outcome, this.now());
    turn.durationMs = done.times.durationMs;
    if (done.times.reasoningMs !== undefined) turn.reasoningMs = done.times.reasoningMs;
    this.clock.stop();
    this.live = undefined;
    this.hooks.ended(done, outcome, turn, error);
  }
}
