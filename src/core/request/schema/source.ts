/**
 * What `--schema` (or a role's `schema:`) names: a JSON Schema file, JSON text, or the inline
 * form. Decided in that order: text starting with `{` is JSON; a file that exists is read; text
 * that looks like a path (ends in .json, or holds a slash) but names no file is an error; the
 * rest is the inline form (`name, dose_mg number`).
 *
 * A schema travels in the system message and is saved with the conversation, so one that is
 * medchat's config file, or that holds the API key in use, is refused with a line saying why
 * (masking the key would leave a schema that means nothing).
 */
import fs from 'node:fs';
import path from 'node:path';
import { redactSecrets, usageError } from '../../errors.js';
import { configDir } from '../../config/paths.js';
import { inlineSchema } from './inline.js';
import { readTextFileBounded } from '../../io/bounded-read.js';
import { requestText } from '../../i18n/messages/request.js';

export interface SchemaSpec {
  /** The JSON Schema itself (draft 2020-12). */
  schema: Record<string, unknown> | boolean;
  /** Where it came from, for messages: a file name, "inline" or "JSON". */
  label: string;
}

/** Schema files are small; anything larger is surely the wrong file. */
const MAX_SCHEMA_FILE_BYTES = 1024 * 1024;

export function resolveSchemaSpec(text: string, opts: { multi?: boolean; baseDir?: string; what?: string; configFile?: string } = {}): SchemaSpec {
  const what = opts.what ?? '--schema';
  const t = text.trim();
  if (!t) throw usageError(requestText.schemaEmpty(what));
  if (t.startsWith('{')) {
    if (opts.multi) throw multiOnlyInline(what);
    refuseKey(t, what, '(JSON text)');
    return { schema: parseSchemaJson(t, `${what} (JSON)`), label: 'JSON' };
  }
  const file = path.resolve(opts.baseDir ?? process.cwd(), t);
  let stat: fs.Stats | undefined;
  try {
    stat = fs.statSync(file);
  } catch {
    stat = undefined;
  }
  if (stat) {
    if (opts.multi) throw multiOnlyInline(what);
    if (sameFile(file, opts.configFile ?? path.join(configDir(), 'config.json'))) {
      throw usageError(requestText.schemaIsConfig(what, t));
    }
    const body = readTextFileBounded(file, { maxBytes: MAX_SCHEMA_FILE_BYTES, what: `${what} ${t}`, tooBigHint: requestText.schemaTooBigHint });
    refuseKey(body, what, t);
    return { schema: parseSchemaJson(body, `${what} ${t}`), label: t };
  }
  if (/\.json$/i.test(t) || /[\\/]/.test(t)) throw usageError(requestText.schemaNoFile(what, t));
  return { schema: inlineSchema(t, opts.multi), label: 'inline' };
}

function sameFile(a: string, b: string): boolean {
  try {
    return fs.realpathSync(a) === fs.realpathSync(b);
  } catch {
    return false;
  }
}

/** A schema holding (a run of) the API key in use is never sent. */
function refuseKey(text: string, what: string, where: string): void {
  if (redactSecrets(text) === text) return;
  throw usageError(requestText.schemaHoldsKey(what, where));
}

function parseSchemaJson(text: string, where: string): Record<string, unknown> | boolean {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw usageError(requestText.schemaNotJson(where, (err as Error).message));
  }
  if (typeof value === 'boolean' || (value !== null && typeof value === 'object' && !Array.isArray(value))) {
    return value as Record<string, unknown> | boolean;
  }
  throw usageError(requestText.schemaNotObject(where));
}

function multiOnlyInline(what: string) {
  return usageError(requestText.schemaMultiInlineOnly(what));
}
