/**
 * The one clock of the streaming answer: it decides how many whole seconds the answer has taken
 * (from the moment the question was sent) and when that number changes, once a second on the
 * second. Every figure of the live turn that counts seconds reads it: the `Waiting for the
 * answer… Ns` and `Thinking… Ns` lines and the footer's `Ns · N tokens`, so they change in the
 * same frame and always show the same second. No React: the screen subscribes
 * once (see clock-context.tsx), so a tick is one render of what shows the seconds.
 */
export class TurnClock {
  private since: number | undefined;
  private shown = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly listeners = new Set<() => void>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Start counting from `since` (a `Date.now()` time): 0s now, 1s one second after `since`, and so on. */
  start(since: number): void {
    this.stop();
    this.since = since;
    this.shown = elapsedSeconds(since, this.now());
    this.schedule();
  }

  /** Stop ticking (the answer ended); the seconds go back to 0. */
  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.since = undefined;
    this.shown = 0;
  }

  /** Whole seconds since the start, as of the last tick (0 when stopped). */
  get seconds(): number {
    return this.shown;
  }

  get running(): boolean {
    return this.since !== undefined;
  }

  /**
   * `fn` runs after every tick. Starting and stopping tell no one: they come with a change of the
   * live turn itself, whose render reads `seconds` anyway (a render of its own would be a frame
   * with the old turn and the new count).
   */
  subscribe = (fn: () => void): (() => void) => {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  };

  private schedule(): void {
    const since = this.since!;
    const next = since + (this.shown + 1) * 1000;
    this.timer = setTimeout(
      () => {
        // Never a second skipped back, nor the same second twice if the timer fires early.
        this.shown = Math.max(this.shown + 1, elapsedSeconds(since, this.now()));
        this.schedule();
        this.notify();
      },
      Math.max(0, next - this.now()),
    );
    // The answer's request keeps the process alive, not this.
    this.timer.unref?.();
  }

  private notify(): void {
    for (const fn of this.listeners) fn();
  }
}

/** Whole seconds from `since` to `now`: the one rule for the live turn's counters. */
function elapsedSeconds(since: number, now: number): number {
  return Math.floor(Math.max(0, now - since) / 1000);
}
