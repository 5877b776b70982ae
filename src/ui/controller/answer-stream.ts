/**
 * The chat screen's answer: the question pipeline's events (core/ask) for one posed question, run
 * through the live-turn reducer for the screen. The pipeline keeps the turn (answer, reasoning,
 * usage, status) and saves it; this only renders it, and shows the status the pipeline decided.
 */
import { answer, type AskEvent, type Posed } from '../../core/ask/ask.js';
import type { Turn } from '../../core/context/conversation.js';
import { toMedchatError, type MedchatError } from '../../core/errors.js';
import type { SessionEvent } from '../../core/sessions/chat-session.js';
import { changeOf, finishLive, reduceLive, startLive, type FinishedTurn, type TurnOutcome } from './live-turn.js';
import type { Change, LiveTurn, NewItem } from './screen-state.js';
import { TurnClock } from './turn-clock.js';

interface AnswerHooks {
  /** While it streams: items to print (finished paragraphs, the folded reasoning, a fold notice) and what changed. */
  step(print: NewItem[], change: Change): void;
  /** It ended (`live` is already gone): print `done.print`, then whatever waited for it. `error`: what the stream ended with. */
  ended(done: FinishedTurn, outcome: TurnOutcome, turn: Turn, error: MedchatError | undefined): void;
}

/** The answer being streamed: one at a time, its live state for the screen, Esc to stop it. */
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

  /** Answer a question posed to the conversation (core/ask's `pose`). */
  start(posed: Posed): void {
    this.live = startLive(posed.turn.id, this.now());
    this.clock.start(this.live.startedAt);
    const running = this.stream(posed).finally(() => {
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

  private async stream(posed: Posed): Promise<void> {
    const abort = new AbortController();
    this.abort = abort;
    const turn = posed.turn;
    turn.status = 'streaming';
    let live = this.live!;
    let error: MedchatError | undefined;
    try {
      // Values the guard put back are shown in ⟦ ⟧ (no escape codes: the transcript's text is shown as text).
      const answered = await answer(posed, { signal: abort.signal, stream: true, show: { mark: (v) => `⟦${v}⟧` } }, (e) => {
        const shown = onScreen(e);
        if (!shown) return;
        const step = reduceLive(live, shown, this.now());
        const change = changeOf(live, shown, step);
        live = step.live;
        this.live = live;
        // The session saves the turn as it streams: with the reasoning's own length, not the wait before it.
        if (live.reasoningMs !== undefined) turn.reasoningMs = live.reasoningMs;
        // …and the reasoning's token count the fold line shows, so a resumed turn shows the same one.
        if (live.reasoningTokens) turn.reasoningTokens = live.reasoningTokens;
        this.hooks.step(step.print, change);
      });
      error = answered.error;
    } catch (err) {
      error = toMedchatError(err);
    }
    this.abort = undefined;
    const outcome = outcomeOf(turn);
    const done = finishLive(live, outcome, this.now());
    turn.durationMs = done.times.durationMs;
    if (done.times.reasoningMs !== undefined) turn.reasoningMs = done.times.reasoningMs;
    this.clock.stop();
    this.live = undefined;
    this.hooks.ended(done, outcome, turn, error);
  }
}

/** The status the pipeline decided and saved (conversation.ts's one rule), shown as it is, with its error. */
function outcomeOf(turn: Turn): TurnOutcome {
  const s = turn.status;
  const status = s === 'pending' || s === 'streaming' ? 'failed' : s;
  return { status, ...(status !== 'complete' && status !== 'interrupted' && turn.error ? { error: turn.error } : {}) };
}

/** A pipeline event as the screen's reducer takes it (values put back marked), or nothing to show. */
function onScreen(e: AskEvent): SessionEvent | undefined {
  if (e.type === 'content') return e.shown === undefined ? e : { type: 'content', text: e.shown };
  if (e.type === 'posed' || e.type === 'repair') return undefined;
  return e;
}
