import type { Turn } from './core/conversation.js';
import type { AnswerRestorer, SessionPrivacy } from './core/privacy/session-privacy.js';
import { sanitizeForTerminal } from './core/sanitize.js';

/**
 * The patient-identifier guard in one-shot mode (issue 14). `open` loads the guard only when the
 * mode has work to do (not `off`), just before the question is sent, so start-up is untouched.
 *
 * What the user sees: warn lists what was found on stderr and sends the question as typed;
 * redact sends placeholders, says so on stderr, and prints the answer with the values put back:
 * on a terminal each value put back is underlined (in ⟦ ⟧ with NO_COLOR), in a pipe or file the
 * answer is plain and stderr lists "[NAME-1] → …" so scripts get clean text and the user still
 * sees what was put back.
 */
export interface PrivacySetting {
  mode: 'warn' | 'redact' | 'off';
  shiftDates?: boolean;
}

export class OneShotPrivacy {
  private answerRestorer: AnswerRestorer | undefined;
  private reasoningRestorer: AnswerRestorer | undefined;
  private question: ReturnType<SessionPrivacy['outgoing']> | undefined;

  private constructor(private readonly privacy: SessionPrivacy) {}

  static async open(setting: PrivacySetting | undefined, earlier: readonly Turn[]): Promise<OneShotPrivacy | undefined> {
    if (!setting || setting.mode === 'off') return undefined;
    const { SessionPrivacy } = await import('./core/privacy/session-privacy.js');
    return new OneShotPrivacy(SessionPrivacy.open(earlier, setting));
  }

  /** The question as it will be sent, and the stderr line (without "medchat: ") when something was found. */
  check(typed: string): { text: string; line?: string } {
    this.question = this.privacy.outgoing(typed);
    return { text: this.question.text, line: this.question.line };
  }

  attach(turn: Turn): void {
    if (this.question) this.privacy.attach(turn, this.question);
  }

  /** Start an answer: `terminal` when stdout is one (values marked), `colour` whether it may be underlined. */
  startAnswer(terminal: boolean, colour: boolean): void {
    const mark = terminal ? (v: string) => (colour ? `\x1b[4m${sanitizeForTerminal(v)}\x1b[24m` : `⟦${sanitizeForTerminal(v)}⟧`) : undefined;
    this.answerRestorer = this.privacy.answer(mark, terminal ? sanitizeForTerminal : undefined);
    this.reasoningRestorer = this.privacy.answer();
  }

  /** Whether anything can need putting back (else the answer passes untouched). */
  get restoring(): boolean {
    return this.privacy.restoring;
  }

  /** An answer piece: `shown` for stdout (already sanitized on a terminal), `plain` restored as received. */
  content(piece: string): { shown: string; plain: string } {
    return this.answerRestorer!.push(piece);
  }

  reasoning(piece: string): string {
    return this.reasoningRestorer!.push(piece).plain;
  }

  /** The rest held back (a placeholder cut at the end of the stream). */
  end(): { shown: string; plain: string; reasoning: string } {
    const a = this.answerRestorer!.end();
    return { ...a, reasoning: this.reasoningRestorer!.end().plain };
  }

  /** What to say on stderr after the answer: the values put back (listed for a pipe; counted on a terminal). */
  afterLine(terminal: boolean, colour: boolean): string | undefined {
    const r = this.answerRestorer;
    if (!r?.putBack.length) return undefined;
    if (!terminal) return r.line;
    const n = new Set(r.putBack.map((p) => p.placeholder)).size;
    return `privacy: ${n} value${n === 1 ? '' : 's'} put back in the answer (${colour ? 'underlined' : 'in ⟦ ⟧'})`;
  }

  /** Keep the answer as shown on the turn (the session stores what was sent and what was shown). */
  finish(turn: Turn): void {
    if (this.answerRestorer) this.privacy.finish(turn, this.answerRestorer);
  }

  /** For --json: what the guard did. */
  json(): Record<string, unknown> | undefined {
    const q = this.question;
    if (!q || (!q.findings.length && !this.answerRestorer?.putBack.length)) return undefined;
    return {
      mode: q.mode,
      found: q.counts,
      put_back: [...new Map((this.answerRestorer?.putBack ?? []).map((p) => [p.placeholder, p.value]))].map(([placeholder, value]) => ({ placeholder, value })),
    };
  }
}
