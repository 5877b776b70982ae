import { createContext, useContext, useSyncExternalStore, type ReactNode } from 'react';
import { formatSeconds } from '../../core/text/format.js';
import type { TurnClock } from '../controller/turn-clock.js';

const Seconds = createContext(0);

/**
 * The streaming answer's seconds for the components that show them. One subscription to the turn
 * clock for the whole screen: a tick re-renders this provider and the few components that read
 * `useTurnSeconds` (the waiting or thinking line and the footer's figures), in one frame, and
 * nothing else (its children are the same elements, so React skips them).
 */
export function TurnSecondsProvider({ clock, children }: { clock: TurnClock; children: ReactNode }) {
  const seconds = useSyncExternalStore(clock.subscribe, () => clock.seconds);
  return <Seconds.Provider value={seconds}>{children}</Seconds.Provider>;
}

/** Whole seconds since the streaming answer was sent (0 when none streams). */
export function useTurnSeconds(): number {
  return useContext(Seconds);
}

/** `12s`, `1m05s`: the seconds, as a piece of a line. */
export function TurnSeconds() {
  return <>{formatSeconds(useTurnSeconds())}</>;
}
