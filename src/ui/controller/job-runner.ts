import { toMedchatError } from '../../core/errors.js';
import { sanitizeForTerminal } from '../../core/text/sanitize.js';
import type { JobState } from './screen-state.js';
import { chatText } from '../../core/i18n/messages/chat.js';
import { uiChatText } from '../../core/i18n/messages/ui-chat.js';

interface JobHooks {
  /** The job's line appeared or changed. */
  changed(): void;
  /** The job ended (its line is gone; what it did may have changed the conversation). */
  ended(): void;
  /** A failure (or "stopped") to print. */
  notice(text: string, tone: 'warn' | 'error'): void;
}

/**
 * Work other than an answer that holds the screen (`/retexture`, `/compact`): one at a time, one
 * live line (`state`) whose label the work updates, Esc/Ctrl+C aborts it (`stop`), and a failure
 * becomes a notice instead of an exception.
 */
export class JobRunner {
  state: JobState | undefined;
  private abort: AbortController | undefined;
  private done: Promise<void> | undefined;

  constructor(
    private readonly hooks: JobHooks,
    private readonly now: () => number = Date.now,
  ) {}

  /** Resolves when the running job (if any) has ended. */
  get running(): Promise<void> | undefined {
    return this.done;
  }

  /** Run `work` as the screen's one job. The caller checks that nothing else holds the screen. */
  async run(label: string, work: (signal: AbortSignal) => Promise<void>): Promise<void> {
    const abort = new AbortController();
    this.abort = abort;
    this.state = { label: sanitizeForTerminal(label), startedAt: this.now() };
    this.hooks.changed();
    let finished!: () => void;
    this.done = new Promise<void>((r) => (finished = r));
    try {
      await work(abort.signal);
    } catch (err) {
      const e = toMedchatError(err);
      this.hooks.notice(e.kind === 'interrupted' && e.message === chatText.interrupted ? uiChatText.jobStopped : e.message, e.kind === 'interrupted' ? 'warn' : 'error');
    } finally {
      this.state = undefined;
      this.abort = undefined;
      this.done = undefined;
      finished();
      this.hooks.ended();
    }
  }

  /** The running job's line says `label` from now on. */
  setLabel(label: string): void {
    if (!this.state) return;
    this.state = { ...this.state, label: sanitizeForTerminal(label) };
    this.hooks.changed();
  }

  /** Abort the running job; false when there is none (or it is already stopping). */
  stop(): boolean {
    if (!this.abort || this.abort.signal.aborted) return false;
    this.abort.abort();
    return true;
  }
}
