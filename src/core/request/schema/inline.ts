/**
 * The short schema form for the shell: `--schema 'name, dose_mg number, route'`. Each field is a
 * name, optionally followed by its type (string unless typed: string, number, integer, boolean).
 * Every field is required and no other field is allowed. `multi`: an array of such objects.
 */
import { usageError } from '../../errors.js';

const INLINE_TYPES = ['string', 'number', 'integer', 'boolean'] as const;
type InlineType = (typeof INLINE_TYPES)[number];

const NAME = /^[A-Za-z_][A-Za-z0-9_-]*$/;

interface InlineField {
  name: string;
  type: InlineType;
}

export function parseInlineFields(text: string): InlineField[] {
  const parts = text.split(',');
  const fields: InlineField[] = [];
  const seen = new Set<string>();
  for (const [i, raw] of parts.entries()) {
    const words = raw.trim().split(/\s+/).filter(Boolean);
    if (words.length === 0) {
      throw usageError(`--schema: field ${i + 1} is empty; write fields like 'name, dose_mg number, route'`);
    }
    if (words.length > 2) {
      throw usageError(`--schema: "${raw.trim()}" is not a field; write a name and, optionally, a type (e.g. dose_mg number)`);
    }
    const [name, typeWord = 'string'] = words as [string, string?];
    if (!NAME.test(name)) {
      throw usageError(`--schema: "${name}" is not a field name; use letters, digits, _ and - (starting with a letter or _)`);
    }
    const type = typeWord.toLowerCase();
    if (!(INLINE_TYPES as readonly string[]).includes(type)) {
      throw usageError(`--schema: unknown type "${typeWord}" for ${name}; use one of ${INLINE_TYPES.join(', ')}`);
    }
    if (seen.has(name)) throw usageError(`--schema: the field ${name} is named twice`);
    seen.add(name);
    fields.push({ name, type: type as InlineType });
  }
  return fields;
}

/** The JSON Schema (draft 2020-12) for the inline form. */
export function inlineSchema(text: string, multi = false): Record<string, unknown> {
  const fields = parseInlineFields(text);
  const object = {
    type: 'object',
    properties: Object.fromEntries(fields.map((f) => [f.name, { type: f.type }])),
    required: fields.map((f) => f.name),
    additionalProperties: false,
  };
  const schema = multi ? { type: 'array', items: object } : object;
  return { $schema: 'https://json-schema.org/draft/2020-12/schema', ...schema };
}
