import { jsonCandidates } from './extract.js';
import type { CompiledSchema } from './validate.js';

/** One answer checked against the schema: the first JSON value in it that validates, or why none did. */
type SchemaCheck =
  | { ok: true; value: unknown; raw: string }
  | { ok: false; errors: string[]; raw: string };

// i18n-exempt: a schema error: goes to the model in the repair request and into schema_errors of --json
export const NO_JSON = '(root): the answer holds no JSON value';

export function checkAnswer(schema: CompiledSchema, answer: string): SchemaCheck {
  const candidates = jsonCandidates(answer);
  if (candidates.length === 0) return { ok: false, errors: [NO_JSON], raw: answer };
  let firstErrors: string[] | undefined;
  for (const c of candidates) {
    const errors = schema.validate(c.value);
    if (errors.length === 0) return { ok: true, value: c.value, raw: answer };
    firstErrors ??= errors;
  }
  return { ok: false, errors: firstErrors!, raw: answer };
}

/** At most `max` lines, then one saying how many more there were. */
export function capLines(lines: readonly string[], max = 10): string[] {
  if (lines.length <= max) return [...lines];
  return [...lines.slice(0, max), `… and ${lines.length - max} more`];
}
