import { keyFromText } from './api-key.js';
import { usageError } from '../errors.js';
import { maskKey } from './secret-redactor.js';

/** The keys a user can set with `medchat config set`. One entry per key: its type, default and help. */
type KeyType = 'string' | 'url' | 'secret' | 'int' | 'number' | 'bool' | 'enum';

interface KeySpec {
  type: KeyType;
  help: string;
  default?: string | number | boolean;
  min?: number;
  max?: number;
  values?: readonly string[];
}

export const CONFIG_KEYS = {
  'base-url': { type: 'url', help: 'Root address of the service (scheme and host), e.g. https://api.example.com' },
  'api-key': { type: 'secret', help: 'Access key sent as a Bearer token (stored 0600; prefer `config set api-key` with no value)' },
  'api-key-command': { type: 'string', help: 'A command whose output is the key, e.g. `pass show medchat`' },
  model: { type: 'string', default: 'medical-large-latest', help: 'Model name' },
  'max-tokens': { type: 'int', default: 8192, min: 1, max: 131072, help: 'Most tokens an answer may use' },
  thinking: { type: 'bool', default: true, help: 'Ask the model to reason before answering' },
  temperature: { type: 'number', min: 0, max: 2, help: 'Sampling temperature (unset: the service default)' },
  'top-p': { type: 'number', min: 0, max: 1, help: 'Nucleus sampling (unset: the service default)' },
  'idle-timeout': { type: 'int', default: 120, min: 1, max: 3600, help: 'Seconds without data before an answer is given up' },
  // At most 1,048,576 (1M): eight times the service's 128k, room for a larger model; piped stdin
  // may be 16 bytes a token (io/stdin.ts), so this also keeps stdin at most 16 MB, which medchat
  // reads, counts and checks within its 200 MB. A larger window would only let a huge input in.
  'context-window': { type: 'int', default: 131072, min: 1024, max: 1048576, help: 'Tokens the model can see, input and output together' },
  'compress-at': { type: 'number', default: 0.8, min: 0.1, max: 1, help: 'Share of the window at which old turns are summarised' },
  compress: { type: 'enum', default: 'summarise', values: ['summarise', 'trim'], help: 'How to make room: summarise old turns, or drop them' },
  history: { type: 'bool', default: true, help: 'Save sessions and prompt history on disk' },
  disclaimer: { type: 'bool', default: true, help: 'Show the one-line medical disclaimer in the chat screen' },
  privacy: { type: 'enum', default: 'warn', values: ['warn', 'redact', 'off'], help: 'Patient identifiers in what you send: warn (list them), redact (send placeholders), off' },
  audit: { type: 'bool', default: false, help: 'Keep an audit log: one line per question or job, with no patient text in it' },
  encrypt: { type: 'bool', default: false, help: 'Encrypt saved conversations and prompt history (AES-256-GCM)' },
  'retention-days': { type: 'int', min: 1, max: 36500, help: 'Delete saved conversations older than this many days, at start, saying so (unset: keep them)' },
  language: { type: 'enum', values: ['en', 'zh'], help: "Language of medchat's own messages: en (English) or zh (简体中文) (unset: MEDCHAT_LANG, then the locale)" },
  'screen-reader': { type: 'bool', default: false, help: 'Screen-reader mode: the chat screen as plain lines added one after another, with no redraws, boxes or spinners' },
  'history-key-command': { type: 'string', help: 'A command whose output is the key for encrypted history, e.g. `pass show medchat-history`' },
} as const satisfies Record<string, KeySpec>;

export type ConfigKey = keyof typeof CONFIG_KEYS;
export type ConfigValue = string | number | boolean;

export function isConfigKey(key: string): key is ConfigKey {
  return Object.hasOwn(CONFIG_KEYS, key);
}

export function assertConfigKey(key: string): ConfigKey {
  if (!isConfigKey(key)) {
    throw usageError(`unknown config key "${key}"; see the keys with: medchat config list`);
  }
  return key;
}

/** Parse the text a user typed for a key into its stored value, or throw a usage error. */
export function parseConfigValue(key: ConfigKey, raw: string): ConfigValue {
  const spec: KeySpec = CONFIG_KEYS[key];
  const text = raw.trim();
  const bad = (what: string) => usageError(`${key} must be ${what} (got "${preview(raw)}")`);
  switch (spec.type) {
    case 'bool': {
      if (/^(on|true|yes|1)$/i.test(text)) return true;
      if (/^(off|false|no|0)$/i.test(text)) return false;
      throw bad('on or off');
    }
    case 'int':
    case 'number': {
      const n = Number(text);
      if (text === '' || !Number.isFinite(n) || (spec.type === 'int' && !Number.isInteger(n))) {
        throw bad(spec.type === 'int' ? 'a whole number' : 'a number');
      }
      if (spec.min !== undefined && n < spec.min) throw bad(`at least ${spec.min}`);
      if (spec.max !== undefined && n > spec.max) throw bad(`at most ${spec.max}`);
      return n;
    }
    case 'enum': {
      if (!spec.values?.includes(text)) throw bad(`one of ${spec.values?.join(', ')}`);
      return text;
    }
    case 'url':
      return normaliseBaseUrl(text);
    case 'secret': {
      const key = keyFromText(raw, { kind: 'input' });
      if (!key) throw bad('a non-empty value');
      return key;
    }
    default:
      if (text === '') throw bad('a non-empty value');
      return text;
  }
}

/**
 * The service root: scheme and host (and any path prefix a gateway adds), without a trailing
 * slash or `/v1` (medchat adds `/v1` for chat itself).
 */
export function normaliseBaseUrl(raw: string): string {
  let text = raw.trim();
  if (!/^https?:\/\//i.test(text)) {
    throw usageError(`base URL "${preview(raw)}" needs a scheme, e.g. https://${preview(text.replace(/^\w+:\/\//, '')) || 'host'}`);
  }
  try {
    new URL(text);
  } catch {
    throw usageError(`base URL "${preview(raw)}" is not a valid URL`);
  }
  text = text.replace(/\/+$/, '');
  text = text.replace(/\/v1$/i, '');
  return text.replace(/\/+$/, '');
}

/** Show a secret so the user can tell which one it is, and nobody can use it: `sk-…a1b2`. */
export function maskSecret(secret: string | undefined): string {
  if (!secret) return '(not set)';
  return maskKey(secret);
}

/** What a key's values must be, in words: "a whole number from 1 to 3600". */
export function describeRule(key: ConfigKey): string {
  const spec: KeySpec = CONFIG_KEYS[key];
  const range = (kind: string) =>
    spec.min !== undefined && spec.max !== undefined
      ? `${kind} from ${spec.min} to ${spec.max}`
      : spec.min !== undefined
        ? `${kind} of at least ${spec.min}`
        : spec.max !== undefined
          ? `${kind} of at most ${spec.max}`
          : kind;
  switch (spec.type) {
    case 'bool':
      return 'on or off (true or false)';
    case 'int':
      return range('a whole number');
    case 'number':
      return range('a number');
    case 'enum':
      return `one of ${spec.values?.join(', ')}`;
    case 'url':
      return 'an http:// or https:// address';
    case 'secret':
      return 'the key alone, on one line';
    default:
      return 'a non-empty text';
  }
}

/** The command that puts a sane value back. */
function fixCommand(key: ConfigKey): string {
  const spec: KeySpec = CONFIG_KEYS[key];
  if (spec.default !== undefined) return `medchat config set ${key} ${formatConfigValue(key, spec.default)}`;
  if (key === 'base-url') return 'medchat config set base-url https://…';
  if (spec.type === 'secret') return 'pass show medchat | medchat config set api-key';
  return `medchat config unset ${key}`;
}

/**
 * A value read from the config file, checked by the same rules as `config set` (a file edited by
 * hand may hold anything). Text that `config set` would accept is accepted ("120" for a number);
 * objects, arrays and values out of range are refused with one line naming key, value and fix.
 */
export function checkStoredValue(key: ConfigKey, value: unknown, file: string): ConfigValue {
  if (key === 'api-key' && typeof value === 'string') {
    const k = keyFromText(value, { kind: 'file', path: file });
    if (k) return k;
  }
  const shown = () => {
    if (CONFIG_KEYS[key].type === 'secret') return typeof value === 'string' ? `"${maskKey(value)}"` : typeof value;
    const json = JSON.stringify(value) ?? String(value);
    return json.length > 60 ? json.slice(0, 59) + '…' : json;
  };
  const refuse = () => usageError(`config ${key} is ${shown()} in ${file}; it must be ${describeRule(key)}: ${fixCommand(key)}`);
  if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') throw refuse();
  try {
    return parseConfigValue(key, String(value));
  } catch {
    throw refuse();
  }
}

export function formatConfigValue(key: ConfigKey, value: ConfigValue | undefined): string {
  if (value === undefined) return '(unset)';
  if (CONFIG_KEYS[key].type === 'secret') return maskSecret(String(value));
  if (typeof value === 'boolean') return value ? 'on' : 'off';
  return String(value);
}

/** A user's value quoted back in an error: one line, short. */
function preview(raw: string): string {
  const line = raw.trim().split(/\r?\n/)[0] ?? '';
  return line.length > 60 ? line.slice(0, 59) + '…' : line;
}
