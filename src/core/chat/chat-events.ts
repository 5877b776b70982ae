/** What a streamed answer turns into. Every front end (one-shot, chat screen, tests) consumes these. */
export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens?: number;
}

export type ChatEvent =
  | { type: 'reasoning'; text: string }
  | { type: 'content'; text: string }
  | { type: 'usage'; usage: Usage }
  | { type: 'finish'; reason: string }
  /** Waiting before another attempt (rate limit or a transient failure, before any text arrived). */
  | { type: 'retry'; attempt: number; delayMs: number; reason: string }
  /** The answer is complete (`[DONE]` or a finish reason arrived). */
  | { type: 'end'; id?: string; model?: string; finishReason?: string };

/** A whole answer, as the non-streaming path and the collectors return it. */
export interface ChatResult {
  id?: string;
  model?: string;
  content: string;
  reasoning: string;
  usage?: Usage;
  finishReason?: string;
}
