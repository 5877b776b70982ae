/**
 * A question that brings its own conversation (a batch line) as a conversation of its own, in
 * memory (nothing is saved), so it goes through the one question pipeline (ask.ts) like any
 * other: the line's system prompt and earlier messages are its data, checked or redacted by the
 * guard like the question, in reading order (so placeholders are numbered as they appear); the
 * user's own instructions (role, -s, the schema's) are not scanned, only sealed when sent. The
 * window is filled before anything is folded (compress-at 1): a line that fits is sent whole, a
 * line whose question alone cannot fit is refused with the numbers.
 */
import type { Kind } from '../privacy/kinds.js';
import type { GuardedQuestion, SessionPrivacy } from '../privacy/session-privacy.js';
import type { RequestPlan } from '../request/request-plan.js';
import { ChatSession } from '../sessions/chat-session.js';

interface ItemConversation {
  session: ChatSession;
  question: string | GuardedQuestion;
  /** What the guard found in all of the line's texts (question included), by kind. */
  found: Partial<Record<Kind, number>>;
}

export function itemConversation(plan: RequestPlan, privacy?: SessionPrivacy): ItemConversation {
  const found: Partial<Record<Kind, number>> = {};
  const guarded = (text: string): GuardedQuestion | undefined => {
    const q = privacy?.outgoing(text);
    for (const [k, n] of Object.entries(q?.counts ?? {}) as Array<[Kind, number]>) found[k] = (found[k] ?? 0) + n;
    return q;
  };
  const guard = (text: string) => guarded(text)?.text ?? text;
  const system = plan.systemWith(plan.itemSystem.map(guard));
  const session = ChatSession.open({ ...plan.settings, compressAt: 1 }, { system, incognito: true });
  for (const e of plan.earlier) {
    // Exchanges that happened elsewhere: in the conversation as answered turns, not asked again.
    const turn = session.conversation.addTurn(guard(e.user));
    turn.answer = guard(e.answer);
    turn.status = 'complete';
  }
  return { session, question: guarded(plan.question) ?? plan.question, found };
}
