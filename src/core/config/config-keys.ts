import { keyFromText } from './api-key.js';
import { usageError } from '../errors.js';
import { maskKey } from './secret-redactor.js';
import { configKeyHelp, configText } from '../i18n/messages/config.js';

/** The keys a user can set with `medchat config set`. One entry per key: its type, default and help. */
type KeyType = 'string' | 'url' | 'secret' | 'int' | 'number' | 'bool' | 'enum';

interface KeySpec {
  type: KeyType;
  default?: string | number | boolean;
  min?: number;
  max?: number;
  values?: readonly string[];
}

const KEY_SPECS = {
  'base-url': { type: 'url' },
  'api-key': { type: 'secret' },
  'api-key-command': { type: 'string' },
  model: { type: 'string', default: 'medical-large-latest' },
  'max-tokens': { type: 'int', default: 8192, min: 1, max: 131072 },
  thinking: { type: 'bool', default: true },
  temperature: { type: 'number', min: 0, max: 2 },
  'top-p': { type: 'number', min: 0, max: 1 },
  'idle-timeout': { type: 'int', default: 120, min: 1, max: 3600 },
  // At most 1,048,576 (1M): eight times the service's 128k, room for a larger model; piped stdin
  // may be 16 bytes a token (io/stdin.ts), so this also keeps stdin at most 16 MB, which medchat
  // reads, counts and checks within its 200 MB. A larger window would only let a huge input in.
  'context-window': { type: 'int', default: 131072, min: 1024, max: 1048576 },
  'compress-at': { type: 'number', default: 0.8, min: 0.1, max: 1 },
  compress: { type: 'enum', default: 'summarise', values: ['summarise', 'trim'] },
  history: { type: 'bool', default: true },
  disclaimer: { type: 'bool', default: true },
  privacy: { type: 'enum', default: 'warn', values: ['warn', 'redact', 'off'] },
  audit: { type: 'bool', default: false },
  encrypt: { type: 'bool', default: false },
  'retention-days': { type: 'int', min: 1, max: 36500 },
  language: { type: 'enum', values: ['en', 'zh'] },
  'screen-reader': { type: 'bool', default: false },
  'history-key-command': { type: 'string' },
} as const satisfies Record<string, KeySpec>;

/** Each key's spec with its `help`, read in the current language (configKeyHelp) when it is shown. */
export const CONFIG_KEYS = withHelp(KEY_SPECS);

function withHelp<T extends Record<keyof typeof configKeyHelp, KeySpec>>(specs: T): { readonly [K in keyof T]: T[K] & { readonly help: string } } {
  const out = {} as Record<string, KeySpec & { help: string }>;
  for (const key of Object.keys(specs) as Array<keyof typeof configKeyHelp>) {
    out[key] = Object.defineProperty({ ...specs[key] }, 'help', { enumerable: true, get: () => configKeyHelp[key] }) as KeySpec & { help: string };
  }
  return Object.freeze(out) as never;
}

export type ConfigKey = keyof typeof CONFIG_KEYS;
export type ConfigValue = string | number | boolean;

export function isConfigKey(key: string): key is ConfigKey {
  return Object.hasOwn(CONFIG_KEYS, key);
}

export function assertConfigKey(key: string): ConfigKey {
  if (!isConfigKey(key)) {
    throw usageError(configText.unknownKey(key));
  }
  return key;
}

/** Parse the text a user typed for a key into its stored value, or throw a usage error. */
export function parseConfigValue(key: ConfigKey, raw: string): ConfigValue {
  const spec: KeySpec = CONFIG_KEYS[key];
  const text = raw.trim();
  const bad = (what: string) => usageError(configText.mustBe(key, what, preview(raw)));
  switch (spec.type) {
    case 'bool': {
      if (/^(on|true|yes|1)$/i.test(text)) return true;
      if (/^(off|false|no|0)$/i.test(text)) return false;
      throw bad(configText.onOrOff);
    }
    case 'int':
    case 'number': {
      const n = Number(text);
      if (text === '' || !Number.isFinite(n) || (spec.type === 'int' && !Number.isInteger(n))) {
        throw bad(spec.type === 'int' ? configText.wholeNumber : configText.aNumber);
      }
      if (spec.min !== undefined && n < spec.min) throw bad(configText.atLeast(spec.min));
      if (spec.max !== undefined && n > spec.max) throw bad(configText.atMost(spec.max));
      return n;
    }
    case 'enum': {
      if (!spec.values?.includes(text)) throw bad(configText.oneOf(spec.values?.join(', ') ?? ''));
      return text;
    }
    case 'url':
      return normaliseBaseUrl(text);
    case 'secret': {
      const key = keyFromText(raw, { kind: 'input' });
      if (!key) throw bad(configText.nonEmpty);
      return key;
    }
    default:
      if (text === '') throw bad(configText.nonEmpty);
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
    throw usageError(configText.needsScheme(preview(raw), preview(text.replace(/^\w+:\/\//, '')) || 'host'));
  }
  try {
    new URL(text);
  } catch {
    throw usageError(configText.notValidUrl(preview(raw)));
  }
  text = text.replace(/\/+$/, '');
  text = text.replace(/\/v1$/i, '');
  return text.replace(/\/+$/, '');
}

/** Show a secret so the user can tell which one it is, and nobody can use it: `sk-…a1b2`. */
export function maskSecret(secret: string | undefined): string {
  // i18n-exempt: stands for a value on stdout (config get), which scripts may compare
  if (!secret) return '(not set)';
  return maskKey(secret);
}

/** What a key's values must be, in words: "a whole number from 1 to 3600". */
export function describeRule(key: ConfigKey): string {
  const spec: KeySpec = CONFIG_KEYS[key];
  const range = (kind: string) =>
    spec.min !== undefined && spec.max !== undefined
      ? configText.rangeFromTo(kind, spec.min, spec.max)
      : spec.min !== undefined
        ? configText.rangeAtLeast(kind, spec.min)
        : spec.max !== undefined
          ? configText.rangeAtMost(kind, spec.max)
          : kind;
  switch (spec.type) {
    case 'bool':
      return configText.ruleBool;
    case 'int':
      return range(configText.wholeNumber);
    case 'number':
      return range(configText.aNumber);
    case 'enum':
      return configText.oneOf(spec.values?.join(', ') ?? '');
    case 'url':
      return configText.ruleUrl;
    case 'secret':
      return configText.ruleSecret;
    default:
      return configText.ruleText;
  }
}

/** The command that puts a sane value back (a command: the same in every language). */
function fixCommand(key: ConfigKey): string {
  const spec: KeySpec = CONFIG_KEYS[key];
  // i18n-exempt: a command
  if (spec.default !== undefined) return `medchat config set ${key} ${formatConfigValue(key, spec.default)}`;
  if (key === 'base-url') return 'medchat config set base-url https://…'; // i18n-exempt: a command
  if (spec.type === 'secret') return 'pass show medchat | medchat config set api-key'; // i18n-exempt: a command
  return `medchat config unset ${key}`; // i18n-exempt: a command
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
  const refuse = () => usageError(configText.storedRefused(key, shown(), file, describeRule(key), fixCommand(key)));
  if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') throw refuse();
  try {
    return parseConfigValue(key, String(value));
  } catch {
    throw refuse();
  }
}

export function formatConfigValue(key: ConfigKey, value: ConfigValue | undefined): string {
  // i18n-exempt: what `config get` prints on stdout for a key with no value, a value scripts may compare
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
