/**
 * What the model is told. The service takes no `response_format`, so the schema travels in the
 * system message (a standing instruction: it holds for the repair turn, and for every question
 * of a chat); the question itself stays as the user wrote it.
 */
import { capLines } from './check.js';
import type { SchemaSpec } from './source.js';

export function schemaInstruction(spec: SchemaSpec): string {
  return [
    // i18n-exempt: sent to the model
    'Output format: reply with exactly one JSON value that validates against the JSON Schema (draft 2020-12) below.',
    // i18n-exempt: sent to the model
    'Reply with the JSON only: no text before or after it, no Markdown code fence, no comments.',
    // i18n-exempt: sent to the model
    'Use only information from the conversation; do not invent facts to fill a field.',
    '',
    'JSON Schema:',
    JSON.stringify(spec.schema, null, 2),
  ].join('\n');
}

/** The follow-up question after an answer that did not validate: its errors, quoted. */
export function repairRequest(errors: readonly string[]): string {
  return [
    // i18n-exempt: sent to the model
    'Your reply is not valid against the JSON Schema. Validation errors:',
    ...capLines(errors, 20).map((e) => `- ${e}`),
    '',
    // i18n-exempt: sent to the model
    'Reply again with the corrected JSON only: one JSON value that validates against the schema, with no text before or after it and no code fence.',
  ].join('\n');
}
