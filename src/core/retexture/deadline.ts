/**
 * Time limits for the retexture and task commands. `--timeout` bounds the whole command
 * (submit, waiting, download): one `CommandDeadline` is made at the start and every request
 * gets a timer of its own, at most a per-request limit and never past what is left of the
 * deadline. A request that hangs (headers never sent, a body that never ends) is aborted by
 * whichever comes first, and the caller learns which one it was.
 */

/** One service request (submit, a poll) may take this long at most. */
export const REQUEST_TIMEOUT_MS = 30_000;
/** The submit uploads the image (up to 25 MB), so it gets longer. */
export const SUBMIT_TIMEOUT_MS = 60_000;
/** A download may take as long as it likes while bytes keep coming; this long without any gives up. */
export const DOWNLOAD_IDLE_TIMEOUT_MS = 30_000;

export class CommandDeadline {
  private constructor(
    /** Epoch milliseconds when the command gives up. */
    readonly at: number,
    /** The whole budget, for messages ("within 5s"). */
    readonly totalMs: number,
    private readonly now: () => number,
  ) {}

  static after(ms: number, now: () => number = Date.now): CommandDeadline {
    return new CommandDeadline(now() + ms, ms, now);
  }

  leftMs(): number {
    return this.at - this.now();
  }

  passed(): boolean {
    return this.leftMs() <= 0;
  }
}

type Expiry = 'request' | 'deadline';

interface RequestTimer {
  /** Aborts when the caller's signal does, the request limit passes, or the deadline does. */
  signal: AbortSignal;
  /** Which limit aborted the request, if one did (undefined for the caller's own abort). */
  expired: () => Expiry | undefined;
  /** Data arrived: with `idle` timers, the request limit starts again (the deadline does not move). */
  touch: () => void;
  dispose: () => void;
}

/**
 * A signal for one request. `limitMs` is the request's own limit (from now, or since the last
 * `touch()` when `idle`), cut to what is left of `deadline`.
 */
export function requestTimer(outer: AbortSignal | undefined, limitMs: number, deadline?: CommandDeadline, opts: { idle?: boolean } = {}): RequestTimer {
  const controller = new AbortController();
  let expired: Expiry | undefined;
  let timer: NodeJS.Timeout | undefined;
  const fire = (why: Expiry) => {
    if (controller.signal.aborted) return;
    expired = why;
    controller.abort(Object.assign(new Error(why === 'deadline' ? 'deadline passed' : 'request timed out') /* i18n-exempt: an abort reason, described by service-http.ts */, { name: 'TimeoutError' }));
  };
  const arm = () => {
    if (timer) clearTimeout(timer);
    const left = deadline ? deadline.leftMs() : Infinity;
    const ms = Math.max(0, Math.min(limitMs, left));
    timer = setTimeout(() => fire(left <= limitMs ? 'deadline' : 'request'), ms);
  };
  const onOuter = () => {
    if (!controller.signal.aborted) controller.abort(outer?.reason);
  };
  if (outer?.aborted) onOuter();
  else outer?.addEventListener('abort', onOuter, { once: true });
  if (!controller.signal.aborted) arm();
  return {
    signal: controller.signal,
    expired: () => expired,
    touch: () => {
      if (opts.idle && !controller.signal.aborted) arm();
    },
    dispose: () => {
      if (timer) clearTimeout(timer);
      outer?.removeEventListener('abort', onOuter);
    },
  };
}
