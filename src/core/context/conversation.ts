/**
 * The conversation as medchat keeps it: the system prompt and the turns, each with what the
 * user asked, what came back (answer and reasoning), and how it ended. The service is stateless,
 * so every request resends the turns (context.ts makes the messages, folding old turns into a
 * summary); reasoning is kept for display and export only and never sent back.
 */
import type { Usage } from '../chat/chat-events.js';

export type TurnStatus = 'pending' | 'streaming' | 'complete' | 'interrupted' | 'incomplete' | 'failed';

/**
 * How a turn ended when its request ended with an error of this kind: the one rule every front end
 * shows and every session saves. Stopped by the user (Esc, Ctrl+C, stdout gone) is `interrupted`;
 * an answer the service cut short or ended early (what arrived is kept, reasoning alone included)
 * is `incomplete`; anything else is `failed`.
 */
export function endedStatus(kind: string): Extract<TurnStatus, 'interrupted' | 'incomplete' | 'failed'> {
  return kind === 'interrupted' ? 'interrupted' : kind === 'incomplete' ? 'incomplete' : 'failed';
}

export interface Turn {
  id: string;
  user: string;
  answer: string;
  reasoning: string;
  status: TurnStatus;
  startedAt: number;
  /** Milliseconds from sending to the first answer token, and the whole answer. */
  firstTokenMs?: number;
  reasoningMs?: number;
  /**
   * The reasoning's length in tokens as the service streamed it (one per streamed piece): what
   * the folded line showed live, so a resumed turn shows the same number.
   */
  reasoningTokens?: number;
  durationMs?: number;
  usage?: Usage;
  error?: string;
  /** The privacy guard's record: `user` and `answer` hold what was sent and received. */
  privacy?: TurnPrivacy;
}

/**
 * With `redact`, `user` is the question as sent (placeholders, shifted dates) and `answer` as the
 * service wrote it; the question as typed and the answer as shown (values put back) are here.
 */
interface TurnPrivacy {
  mode: 'warn' | 'redact';
  /** What was found in the question as typed, by kind. */
  found: Record<string, number>;
  typed?: string;
  shown?: string;
  /** The conversation's date shift in days (with --shift-dates), so a continued conversation keeps it. */
  shiftDays?: number;
}

export class Conversation {
  system: string | undefined;
  turns: Turn[] = [];
  private seq = 0;

  constructor(system?: string) {
    this.system = system?.trim() ? system : undefined;
  }

  addTurn(user: string): Turn {
    const turn: Turn = { id: `t${++this.seq}`, user, answer: '', reasoning: '', status: 'pending', startedAt: Date.now() };
    this.turns.push(turn);
    return turn;
  }

  get lastTurn(): Turn | undefined {
    return this.turns[this.turns.length - 1];
  }
}
