/**
 * JSON Schema validation (draft 2020-12) with ajv's 2020 build. ajv and its generated code are
 * loaded only when a schema is in use (`compileSchema` imports them), so start-up without
 * `--schema` pays nothing for them.
 */
import { usageError } from '../../errors.js';
import { riskyPattern, schemaPatterns } from './patterns.js';
import type { SchemaSpec } from './source.js';
import { requestText } from '../../i18n/messages/request.js';

export interface CompiledSchema {
  spec: SchemaSpec;
  /** Validation errors for `value`, one readable line each (empty: valid). */
  validate(value: unknown): string[];
}

interface AjvError {
  instancePath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
}

const DRAFT_2020 = /^https?:\/\/json-schema\.org\/draft\/2020-12\/schema#?$/;

export async function compileSchema(spec: SchemaSpec, what = '--schema'): Promise<CompiledSchema> {
  const declared = typeof spec.schema === 'object' ? spec.schema.$schema : undefined;
  if (declared !== undefined && !(typeof declared === 'string' && DRAFT_2020.test(declared))) {
    throw usageError(
      requestText.schemaDraft(what, spec.label, String(declared)),
    );
  }
  for (const pattern of schemaPatterns(spec.schema)) {
    const why = riskyPattern(pattern);
    if (why) {
      throw usageError(
        requestText.schemaRiskyPattern(what, spec.label, JSON.stringify(pattern), why),
      );
    }
  }
  const mod = (await import('ajv/dist/2020.js')) as unknown as { default: AjvClass & { default?: AjvClass } };
  const Ajv2020 = mod.default.default ?? mod.default;
  // Formats are annotations in draft 2020-12 (no format vocabulary here); unknown keywords are
  // allowed, as the specification allows them; nothing is written to the console.
  const ajv = new Ajv2020({ allErrors: true, strict: false, validateFormats: false, logger: false });
  let check: ((value: unknown) => boolean) & { errors?: AjvError[] | null };
  try {
    check = ajv.compile(spec.schema);
  } catch (err) {
    throw usageError(requestText.schemaUnusable(what, spec.label, oneLine((err as Error).message)));
  }
  return {
    spec,
    validate(value) {
      // ajv's checks call themselves once per level: a value nested thousands deep ran out of stack.
      if (depthOver(value, MAX_DEPTH)) return [TOO_DEEP];
      try {
        if (check(value)) return [];
      } catch (err) {
        if (err instanceof RangeError) return [TOO_DEEP];
        throw err;
      }
      return (check.errors ?? []).map(describeError);
    },
  };
}

/** Answers are checked down to this many levels of arrays and objects; deeper is an error (exit 9, the raw answer kept). */
export const MAX_DEPTH = 256;
// i18n-exempt: a schema error like ajv's: goes to the model in the repair request and into schema_errors of --json
export const TOO_DEEP = `(root): nested deeper than ${MAX_DEPTH} levels; medchat checks JSON nested at most that deep`;

/** Whether `value` has arrays or objects nested more than `max` deep (walked without recursion). */
function depthOver(value: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length) {
    const [v, d] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (d > max) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) if (child !== null && typeof child === 'object') stack.push([child, d + 1]);
  }
  return false;
}

interface AjvClass {
  new (opts: Record<string, unknown>): { compile(schema: unknown): ((value: unknown) => boolean) & { errors?: AjvError[] | null } };
}

/** `/items/0/dose_mg: must be number`; the whole value is `(root)`. */
function describeError(e: AjvError): string {
  const where = e.instancePath || '(root)';
  let msg = e.message ?? e.keyword;
  if (e.keyword === 'additionalProperties' && typeof e.params.additionalProperty === 'string') msg += `: ${JSON.stringify(e.params.additionalProperty)}`;
  if (e.keyword === 'enum' && Array.isArray(e.params.allowedValues)) msg += `: ${e.params.allowedValues.map((v) => JSON.stringify(v)).join(', ')}`;
  if (e.keyword === 'const' && 'allowedValue' in e.params) msg += `: ${JSON.stringify(e.params.allowedValue)}`;
  return `${where}: ${msg}`;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim().slice(0, 300);
}
