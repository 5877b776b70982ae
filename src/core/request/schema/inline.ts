/**
 * The short schema form for the shell: `--schema 'name, dose_mg number, route'`. Each field is a
 * name, optionally followed by its type (string unless typed: string, number, integer, boolean).
 * Every field is required and no other field is allowed. `multi`: an array of such objects.
 */
import { usageError } from '../../errors.js';
import { requestText } from '../../i18n/messages/request.js';

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
      throw usageError(requestText.inlineEmptyField(i + 1));
    }
    if (words.length > 2) {
      throw usageError(requestText.inlineNotField(raw.trim()));
    }
    const [name, typeWord = 'string'] = words as [string, string?];
    if (!NAME.test(name)) {
      throw usageError(requestText.inlineBadName(name));
    }
    const type = typeWord.toLowerCase();
    if (!(INLINE_TYPES as readonly string[]).includes(type)) {
      throw usageError(requestText.inlineUnknownType(typeWord, name, INLINE_TYPES.join(', ')));
    }
    if (seen.has(name)) throw usageError(requestText.inlineTwice(name));
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
