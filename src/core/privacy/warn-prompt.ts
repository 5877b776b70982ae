import { describeCounts } from './kinds.js';
import type { PrivacyMode } from './guard.js';
import type { GuardedQuestion } from './session-privacy.js';
import { privacyText } from '../i18n/messages/privacy.js';

/**
 * The chat screen's choice when `privacy` is warn and a question holds identifiers: nothing is
 * sent until the user picks. A line under the question says what was found, and the input box
 * the keys:
 *
 *   ⚠ found 2 names, 1 date
 *   choose: Enter send anyway · r redact · e edit
 *
 * Enter sends the question as typed; r sends it with placeholders (the answer shown with the
 * values back); e, Esc or Ctrl+C puts it back in the input box to edit. Any other key changes
 * nothing: no other letter sends, so a word typed ahead ("so…") can never send the identifiers.
 * In redact mode questions go out redacted without asking; in off mode as typed; in warn mode
 * with nothing found, as typed. Plain TS: the screen shows `found` and `choices` and passes keys in.
 */
export interface OutgoingChecker {
  outgoing(typed: string, mode?: PrivacyMode): GuardedQuestion;
  readonly mode: PrivacyMode;
}

export type WarnDecision =
  /** Send `text` (what goes on the wire; `question.typed` is what the user typed). */
  | { do: 'send'; text: string; question: GuardedQuestion; redacted: boolean }
  /** Show `found` under the question (its counts separated by `, `) and `choices` where the user types, and wait for a key. */
  | { do: 'ask'; found: string; choices: string }
  /** Put `text` back in the input box. */
  | { do: 'edit'; text: string }
  /** Not a choice (or nothing is being asked): nothing happens. */
  | { do: 'wait' };

export interface KeyInfo {
  return?: boolean;
  escape?: boolean;
  ctrl?: boolean;
}


export class WarnPrompt {
  private pending: GuardedQuestion | undefined;

  constructor(private readonly checker: OutgoingChecker) {}

  /** Whether a question is waiting for the user's choice (the input box should not take typing). */
  get asking(): boolean {
    return this.pending !== undefined;
  }

  /** The user pressed Enter on a question. */
  submit(typed: string): WarnDecision {
    if (this.pending) return { do: 'wait' };
    const mode = this.checker.mode;
    if (mode !== 'warn') {
      const q = this.checker.outgoing(typed, mode);
      return { do: 'send', text: q.text, question: q, redacted: mode === 'redact' && q.replaced.length > 0 };
    }
    const q = this.checker.outgoing(typed, 'warn');
    if (!q.findings.length) return { do: 'send', text: typed, question: q, redacted: false };
    this.pending = q;
    return { do: 'ask', found: privacyText.warnFound(describeCounts(q.counts)), choices: privacyText.warnChoices };
  }

  /** A key while asking. */
  key(input: string, info: KeyInfo = {}): WarnDecision {
    const q = this.pending;
    if (!q) return { do: 'wait' };
    if (info.return) {
      this.pending = undefined;
      return { do: 'send', text: q.typed, question: q, redacted: false };
    }
    if (!info.ctrl && (input === 'r' || input === 'R')) {
      this.pending = undefined;
      const redacted = this.checker.outgoing(q.typed, 'redact');
      return { do: 'send', text: redacted.text, question: redacted, redacted: true };
    }
    if (info.escape || (info.ctrl && input === 'c') || (!info.ctrl && (input === 'e' || input === 'E'))) {
      return this.cancel();
    }
    return { do: 'wait' };
  }

  /** Back to editing (Esc, Ctrl+C, or the screen closing the prompt). */
  cancel(): WarnDecision {
    const q = this.pending;
    this.pending = undefined;
    return q ? { do: 'edit', text: q.typed } : { do: 'wait' };
  }
}
