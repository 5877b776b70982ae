/**
 * The guard as one conversation uses it (the question pipeline, core/ask, for one-shot, the chat
 * screen and each batch line): the question checked or redacted before it is sent, the turn told
 * what was sent and typed, every message of a redacted request sealed, the answer's values put
 * back as it streams. A continued conversation (-c, --resume) first replays its earlier typed
 * questions, so the same person keeps the same placeholder across runs. No I/O: callers print the
 * lines it returns.
 *
 *   const p = SessionPrivacy.open(conversation.turns, { mode, shiftDates });
 *   const out = p.outgoing(typed);          // out.text is what to send; out.line what to say on stderr
 *   const turn = session.ask(out.text); p.attach(turn, out);
 *   const answer = p.answer(mark);          // answer.push(chunk) → text to show; answer.end()
 *   p.finish(turn, answer);                 // turn.privacy.shown; then save the session
 */
import type { Turn } from '../context/conversation.js';
import type { PrivacyChoice } from './choice.js';
import { PrivacyGuard, guardOutgoing, type Outgoing, type PrivacyMode } from './guard.js';
import type { Mark, PutBack } from './restore.js';
import { outgoingLine, putBackLine } from './report.js';
import { GrowingText } from '../text/rope.js';

export interface GuardedQuestion extends Outgoing {
  /** The one stderr line (without "medchat: "), or undefined when nothing was found. */
  line?: string;
  typed: string;
}

/** Also the chat screen's `OutgoingChecker` (warn-prompt.ts), by its shape. */
export class SessionPrivacy {
  private constructor(
    readonly mode: PrivacyMode,
    readonly guard: PrivacyGuard,
  ) {}

  static open(earlier: readonly Turn[], choice: PrivacyChoice, random?: () => number): SessionPrivacy {
    const shiftDays = earlier.find((t) => t.privacy?.shiftDays !== undefined)?.privacy?.shiftDays;
    const guard = new PrivacyGuard({ shiftDates: choice.shiftDates || shiftDays !== undefined, shiftDays, random });
    // Replaying earlier typed questions in order gives each value the placeholder it had.
    for (const t of earlier) if (t.privacy?.mode === 'redact' && t.privacy.typed !== undefined) guard.prepare(t.privacy.typed, 'redact');
    return new SessionPrivacy(choice.mode, guard);
  }

  /** Check or redact a question (mode: this conversation's, or the one the user chose for this question). */
  outgoing(typed: string, mode: PrivacyMode = this.mode): GuardedQuestion {
    const out = guardOutgoing(typed, mode, this.guard);
    return { ...out, typed, line: outgoingLine(out) };
  }

  /** Record on the turn what the guard did (before the turn is first saved is best). */
  attach(turn: Turn, q: GuardedQuestion): void {
    if (q.mode === 'off' || (q.mode === 'warn' && !q.findings.length)) return;
    turn.privacy = { mode: q.mode === 'redact' ? 'redact' : 'warn', found: { ...q.counts } };
    if (q.mode === 'redact') {
      turn.privacy.typed = q.typed;
      if (this.guard.shifter) turn.privacy.shiftDays = this.guard.shifter.days;
    }
  }

  /** Every message of a redacted request, with what this conversation replaced replaced wherever it appears (PrivacyGuard.seal). */
  seal<M extends { content: string }>(messages: readonly M[]): M[] {
    return messages.map((m) => {
      const content = this.guard.seal(m.content);
      return content === m.content ? m : { ...m, content };
    });
  }

  /** Whether answers need anything put back (something was replaced in this conversation). */
  get restoring(): boolean {
    return this.guard.active;
  }

  /** A writer for one answer: push each piece, show what it returns; `end()` at the end. */
  answer(mark?: Mark, prepare?: (piece: string) => string): AnswerRestorer {
    return new AnswerRestorer(this.guard, mark, prepare);
  }

  /** Keep the answer as shown on the turn (only when something was put back). */
  finish(turn: Turn, answer: AnswerRestorer): void {
    if (answer.putBack.length && turn.privacy) turn.privacy.shown = answer.plain;
    else if (answer.putBack.length) turn.privacy = { mode: 'warn', found: {}, shown: answer.plain };
  }
}

/**
 * One answer's restorer: the text to show (marked; `prepare` runs on each piece first, e.g. the
 * terminal sanitizer, so a mark's escape codes are not themselves escaped) and the plain restored
 * text to keep and print as JSON.
 */
class AnswerRestorer {
  private readonly shown;
  private readonly kept;
  /** The plain text so far, a piece a push: one copy, not a node per piece (rope.ts). */
  private readonly text = new GrowingText();

  constructor(
    guard: PrivacyGuard,
    mark?: Mark,
    private readonly prepare: (piece: string) => string = (p) => p,
  ) {
    this.shown = guard.streamRestorer(mark);
    this.kept = guard.streamRestorer();
  }

  /** One piece of the answer in; what to show and what to keep of it now (either may be held back). */
  push(chunk: string): { shown: string; plain: string } {
    const plain = this.kept.push(chunk);
    if (plain) this.text.add(plain);
    return { shown: this.shown.push(this.prepare(chunk)), plain };
  }

  end(): { shown: string; plain: string } {
    const plain = this.kept.end();
    if (plain) this.text.add(plain);
    return { shown: this.shown.end(), plain };
  }

  /** The answer with every value put back, unmarked: to keep and to print as JSON. */
  get plain(): string {
    return this.text.text;
  }

  get putBack(): PutBack[] {
    return this.kept.putBack;
  }

  /** For output that is not a terminal: the values put back, listed (the answer itself is unmarked). */
  get line(): string | undefined {
    return putBackLine(this.putBack);
  }
}
