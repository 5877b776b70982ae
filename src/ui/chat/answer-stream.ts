import { toMedchatError, type MedchatError } from '../../core/errors.js';
import type { SessionEvent } from '../../core/sessions/chat-session.js';
import { changeOf, reduceLive } from './live-turn.js';
import type { Change, LiveTurn, NewItem } from './screen-state.js';

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
