/**
 * The schema repair rule, the only one (the question pipeline's loop in ask.ts follows it for
 * one-shot and batch alike): each answer is checked against the schema; the first, when it does
 * not match, is asked for once more, as a follow-up turn quoting the validation errors (the first
 * answer stays in the conversation); the second is checked and kept, whatever it is. Never more
 * than one repair.
 */
import type { Finished, RequestPlan } from '../request/request-plan.js';

export type SchemaPlan = Pick<RequestPlan, 'finish' | 'repairRequest'>;

/** The first answer did not match the schema: asking once more. */
export interface RepairEvent {
  type: 'repair';
  errors: string[];
}

export type SchemaStep =
  /** Keep this answer: its check (valid, or still invalid after the repair). */
  | { done: true; finished: Finished }
  /** Ask once more: `request` is the follow-up question, `errors` what was wrong. */
  | { done: false; finished: Finished; errors: string[]; request: string };

/** What to do after answer number `attempt` (1 for the question's, 2 for the repair's), as received. */
export function schemaStep(plan: SchemaPlan, answer: string, attempt: number): SchemaStep {
  const finished = plan.finish(answer);
  if (finished.ok || attempt >= 2) return { done: true, finished };
  return { done: false, finished, errors: finished.errors, request: plan.repairRequest(finished) };
}
