import type { ContextState } from '../context/context.js';
import type { Turn } from '../context/conversation.js';

/** The shape of a session file (store.ts reads and writes it; session-merge.ts merges two). */
export const SESSION_FORMAT = 'medchat-session';
export const SESSION_VERSION = 1;

export interface StoredTurn extends Turn {
  /** o200k counts of `user` and `answer`, so a resumed history is not tokenised again. */
  tokens?: { user: number; answer: number };
}

export interface SessionData {
  format: typeof SESSION_FORMAT;
  version: number;
  id: string;
  title: string;
  createdAt: string;
  updatedAt: string;
  model: string;
  system?: string;
  /** The role the conversation was started with (`-r`), for `sessions search --role`. */
  role?: string;
  turns: StoredTurn[];
  context: ContextState;
}

