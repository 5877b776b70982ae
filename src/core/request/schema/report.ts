/**
 * How a schema answer is reported: the fields `--json` adds, and the stderr lines after a
 * failure (the validation errors, one a line, capped, and where the raw answer is kept).
 */
import type { Usage } from '../../chat/chat-events.js';
import type { Finished } from '../request-plan.js';
import { capLines } from './check.js';
import { requestText } from '../../i18n/messages/request.js';

const MAX_ERROR_LINES = 10;

export function schemaJsonFields(finished: Finished | undefined, attempts: number): Record<string, unknown> {
  return {
    value: finished?.ok ? (finished.value ?? null) : null,
    valid: Boolean(finished?.ok),
    schema_errors: finished && !finished.ok ? finished.errors : [],
    attempts,
  };
}

export function schemaFailureLines(errors: readonly string[], opts: { json: boolean; kept?: string }): string[] {
  const lines = capLines(errors, MAX_ERROR_LINES).map((e) => `  ${e}`);
  if (opts.json) lines.push(requestText.rawInContent);
  else if (opts.kept) lines.push(requestText.rawKept(opts.kept));
  else lines.push(requestText.rawRunWithJson);
  return lines;
}

export function addUsage(a: Usage | undefined, b: Usage): Usage {
  if (!a) return b;
  return {
    prompt_tokens: a.prompt_tokens + b.prompt_tokens,
    completion_tokens: a.completion_tokens + b.completion_tokens,
    total_tokens: (a.total_tokens ?? a.prompt_tokens + a.completion_tokens) + (b.total_tokens ?? b.prompt_tokens + b.completion_tokens),
  };
}
