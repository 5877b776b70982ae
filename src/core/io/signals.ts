import { ExitCode } from '../exit-codes.js';

export type StopSignal = 'SIGINT' | 'SIGTERM' | 'SIGHUP';

export const exitCodeForSignal: Record<StopSignal, number> = {
  SIGINT: ExitCode.interrupted,
  SIGTERM: ExitCode.terminated,
  SIGHUP: ExitCode.hangup,
};

/** Call `handler` on SIGINT, SIGTERM or SIGHUP (instead of dying at once). Returns a function that removes it. */
export function onStopSignals(handler: (signal: StopSignal) => void): () => void {
  const signals: StopSignal[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  const listeners = signals.map((s) => {
    const fn = () => handler(s);
    process.on(s, fn);
    return [s, fn] as const;
  });
  return () => {
    for (const [s, fn] of listeners) process.off(s, fn);
  };
}

/** A stop signal aborts `controller`; `stoppedBy()` tells which one came, if any. Call `dispose` when done. */
interface SignalAbort {
  controller: AbortController;
  stoppedBy: () => StopSignal | undefined;
  dispose: () => void;
}

export function abortOnStopSignals(): SignalAbort {
  const controller = new AbortController();
  let stopped: StopSignal | undefined;
  const dispose = onStopSignals((s) => {
    stopped = s;
    controller.abort();
  });
  return { controller, stoppedBy: () => stopped, dispose };
}
