import { FrontMatterError, parseFrontMatter } from './front-matter.js';
import { requestText } from '../../i18n/messages/request.js';

/**
 * A role: a named system prompt plus the settings it brings (thinking, max tokens, temperature,
 * a schema). Stored as Markdown with front matter; the body is the system prompt.
 */
export interface Role {
  name: string;
  description: string;
  /** The system prompt (the file's body). */
  system: string;
  thinking?: boolean;
  maxTokens?: number;
  temperature?: number;
  /** As written in the file: inline fields, JSON, or a JSON Schema file beside the role. */
  schema?: string;
  schemaMulti?: boolean;
  source: 'built-in' | 'user';
  /** The user's file (user roles). */
  file?: string;
  /** The whole file, as `roles show` prints it. */
  text: string;
}

const ROLE_KEYS = ['description', 'thinking', 'max-tokens', 'temperature', 'schema', 'schema-multi'] as const;

/** Role names: what a file name can safely be on every system (no path, no dot files). */
export const ROLE_NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/i;

export class RoleFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RoleFileError';
  }
}

export function parseRole(name: string, text: string, source: Role['source'], file?: string): Role {
  let fm;
  try {
    fm = parseFrontMatter(text);
  } catch (err) {
    if (err instanceof FrontMatterError) throw new RoleFileError(err.message);
    throw err;
  }
  const role: Role = { name, description: '', system: fm.body, source, text, ...(file ? { file } : {}) };
  for (const [rawKey, value] of Object.entries(fm.meta)) {
    const key = rawKey.replace(/_/g, '-');
    switch (key) {
      case 'description':
        role.description = value.replace(/\s+/g, ' ').trim();
        break;
      case 'thinking':
        role.thinking = bool(key, value);
        break;
      case 'schema-multi':
        role.schemaMulti = bool(key, value);
        break;
      case 'max-tokens': {
        const n = Number(value);
        if (!/^\d+$/.test(value.trim()) || n < 1 || n > 131072) throw new RoleFileError(requestText.roleMaxTokens(value));
        role.maxTokens = n;
        break;
      }
      case 'temperature': {
        const n = Number(value);
        if (!value.trim() || !Number.isFinite(n) || n < 0 || n > 2) throw new RoleFileError(requestText.roleTemperature(value));
        role.temperature = n;
        break;
      }
      case 'schema':
        if (!value.trim()) throw new RoleFileError(requestText.roleSchemaEmpty);
        role.schema = value;
        break;
      default:
        throw new RoleFileError(requestText.roleUnknownKey(rawKey, ROLE_KEYS.join(', ')));
    }
  }
  if (role.schemaMulti && !role.schema) throw new RoleFileError(requestText.roleMultiNeedsSchema);
  if (!role.system && !role.schema) throw new RoleFileError(requestText.roleNoPrompt);
  return role;
}

function bool(key: string, v: string): boolean {
  if (/^(on|true|yes)$/i.test(v.trim())) return true;
  if (/^(off|false|no)$/i.test(v.trim())) return false;
  throw new RoleFileError(requestText.roleOnOff(key, v));
}
