/**
 * What the chat screen shows, as plain data (no React): the components render a `ChatSnapshot`.
 *
 * What is printed once (Ink `<Static>`) is `items`, append-only. The streaming turn lives in
 * `live`; as its answer grows past the live limit, finished paragraphs move into `items`.
 */
import type { Usage } from '../../core/chat/chat-events.js';
import type { TurnStatus } from '../../core/context/conversation.js';
import type { Meter } from '../text/format.js';

export type StaticItem =
  /**
   * `role` as it is now (the transcript viewer shows it; the terminal keeps the header as it was
   * printed). Thinking on/off is not shown in the header, on the screen or in the viewer: the
   * footer shows it and follows /think. (`thinking` is kept up to date but shown nowhere.)
   */
  | { id: string; kind: 'header'; version: string; model: string; thinking: boolean; host: string; disclaimer: boolean; role?: string }
  | { id: string; kind: 'user'; text: string }
  | { id: string; kind: 'reasoning'; text: string; ms: number; tokens: number }
  | { id: string; kind: 'answer'; text: string }
  | { id: string; kind: 'status'; status: TurnStatus; error?: string; stats?: string }
  /**
   * `plain`: medchat's own output printed as is (a picture preview in coloured blocks). `breakAt`:
   * a long line is cut only where this separator stands (what the privacy guard found, by count).
   */
  | { id: string; kind: 'notice'; text: string; tone: 'info' | 'warn' | 'error' | 'plain'; breakAt?: string };

type DistributiveOmit<T, K extends keyof T> = T extends unknown ? Omit<T, K> : never;
export type NewItem = DistributiveOmit<StaticItem, 'id'>;

/**
 * What changed, for a screen that can draw some changes without re-rendering: `text`, only more
 * text in the streaming turn; `paragraphs`, that and finished answer paragraphs added to `items`.
 */
export type Change = 'text' | 'paragraphs' | 'any';

/** Work other than an answer that holds the screen (a retexture job, /compact): one live line, Esc stops it. */
export interface JobState {
  label: string;
  startedAt: number;
}

/** The turn that is streaming, as the screen shows it. Times are `Date.now()` values. */
export interface LiveTurn {
  turnId: string;
  phase: 'waiting' | 'reasoning' | 'answer';
  startedAt: number;
  /** When the first token of anything (reasoning or answer) arrived. */
  firstTokenAt?: number;
  reasoningStartedAt?: number;
  /** How long the reasoning took, once it is folded (the answer began, or the turn ended). */
  reasoningMs?: number;
  answerStartedAt?: number;
  /** When the last answer token arrived. */
  answerLastAt?: number;
  /** When anything last arrived from the service: the footer's "no data for 12 s" counts from it. */
  lastDataAt: number;
  /** The whole reasoning so far (sanitised); the view shows its last lines. */
  reasoning: string;
  /** Tokens streamed so far (one per streamed piece, as the service sends them). */
  reasoningTokens: number;
  answerTokens: number;
  /** Answer text not yet moved into the printed transcript (sanitised). */
  answerTail: string;
  /** Times finished paragraphs moved out of `answerTail`: while it and the turn stay the same, the tail only grew. */
  answerCuts: number;
  retry?: string;
  usage?: Usage;
}

/** The last finished answer's figures, for the footer. */
export interface LastStats {
  /** From sending to the first token of anything, reasoning included. */
  firstTokenMs?: number;
  /** Answer tokens per second of answer generation (reasoning time left out). */
  tokensPerSecond?: number;
  usage?: Usage;
}

export interface ChatSnapshot {
  /** Printed above the live region, each once, never reprinted (the terminal keeps and reflows them). */
  items: readonly StaticItem[];
  live?: LiveTurn;
  showReasoning: boolean;
  thinking: boolean;
  maxTokens: number;
  meter: Meter;
  last?: LastStats;
  columns: number;
  rows: number;
  exitRequested: boolean;
  job?: JobState;
  /** What waits for the streaming answer to end: the questions and commands queued behind it. */
  pending?: PendingView;
  demo: boolean;
  /** The role in use (`-r`, `/role`): the input box names it. */
  role?: string;
  /** A question waits for the privacy guard's choice: the input box shows the keys instead of a draft. */
  privacy?: PrivacyAskView;
}

/** What the input box shows while a question waits for the privacy guard's choice. */
export interface PrivacyAskView {
  /** The keys: `Enter send anyway · r redact · e edit`. */
  choices: string;
  /** What was typed meanwhile that is no choice (the end of it, when long): not typed, and the box says so. */
  notTyped?: string;
}

/** What the screen shows of what waits for the streaming answer to end (see after-answer.ts). */
export interface PendingView {
  /** Questions and commands typed while it streams, in order: each goes when the one before it has ended. */
  queued: readonly QueuedLine[];
}

export interface QueuedLine {
  text: string;
  /** A slash command (run), or a question (sent). */
  command: boolean;
}
