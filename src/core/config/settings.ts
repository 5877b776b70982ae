import { execFileSync } from 'node:child_process';
import { keyFromText, type KeySource } from './api-key.js';
import { MedchatError, registerSecret, usageError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import { CONFIG_KEYS, normaliseBaseUrl, parseConfigValue, type ConfigKey, type ConfigValue } from './config-keys.js';
import type { ConfigStore } from './config-store.js';

/** Everything a request needs, resolved from flags, then environment, then the config file, then defaults. */
export interface Settings {
  baseUrl: string;
  apiKey: string;
  model: string;
  maxTokens: number;
  thinking: boolean;
  temperature?: number;
  topP?: number;
  idleTimeoutMs: number;
  contextWindow: number;
  compressAt: number;
  compress: 'summarise' | 'trim';
  history: boolean;
  /** Keep an audit line per question and job (core/audit). */
  audit?: boolean;
  disclaimer: boolean;
  /** Where `apiKey` came from (a flag, an environment variable, the config file, api-key-command): a refused key's advice names it. */
  apiKeySource?: KeySource;
}

/** Flag values as commander hands them over (strings for values, booleans for switches). */
export type FlagValues = Partial<Record<ConfigKey, string | number | boolean | undefined>>;

const ENV_FOR: Partial<Record<ConfigKey, string>> = {
  'base-url': 'MEDCHAT_BASE_URL',
  'api-key': 'MEDCHAT_API_KEY',
  model: 'MEDCHAT_MODEL',
};

interface ResolveOptions {
  flags?: FlagValues;
  env?: NodeJS.ProcessEnv;
  store?: ConfigStore;
  /** Chat needs base URL and key; `config` commands do not. */
  requireService?: boolean;
}

export function resolveValue(key: ConfigKey, opts: ResolveOptions): ConfigValue | undefined {
  return resolveLayer(key, opts).value;
}

/** Which layer gave a value: a flag, the environment, the config file, or the default. */
type Layer = 'flag' | 'env' | 'file' | 'default';

/** The value of `key` and the layer it came from, by the precedence flags → environment → config file → defaults. */
function resolveLayer(key: ConfigKey, opts: ResolveOptions): { value: ConfigValue | undefined; from: Layer } {
  const flag = opts.flags?.[key];
  if (flag !== undefined && flag !== null) {
    if (key === 'api-key' && typeof flag === 'string') return { value: keyFromText(flag, { kind: 'flag' }) || undefined, from: 'flag' };
    return { value: typeof flag === 'string' ? parseConfigValue(key, flag) : flag, from: 'flag' };
  }
  const envName = ENV_FOR[key];
  const envValue = envName ? (opts.env ?? process.env)[envName] : undefined;
  if (envValue !== undefined && envValue.trim() !== '') {
    if (key === 'api-key') return { value: keyFromText(envValue, { kind: 'env', name: envName! }), from: 'env' };
    try {
      return { value: parseConfigValue(key, envValue), from: 'env' };
    } catch (err) {
      throw usageError(`${envName}: ${(err as Error).message}`);
    }
  }
  const stored = opts.store?.get(key);
  if (stored !== undefined) return { value: stored, from: 'file' };
  return { value: (CONFIG_KEYS[key] as { default?: ConfigValue }).default, from: 'default' };
}

export function resolveSettings(opts: ResolveOptions): Settings {
  const get = (key: ConfigKey) => resolveValue(key, opts);
  const baseUrlRaw = get('base-url');
  const key = resolveLayer('api-key', opts);
  let apiKey = key.value as string | undefined;
  let apiKeySource: KeySource | undefined = !apiKey
    ? undefined
    : key.from === 'flag'
      ? { kind: 'flag' }
      : key.from === 'env'
        ? { kind: 'env', name: ENV_FOR['api-key']! }
        : key.from === 'file' && opts.store
          ? { kind: 'file', path: opts.store.path }
          : undefined;
  if (opts.requireService !== false) {
    if (!baseUrlRaw) {
      throw usageError('no service address: run `medchat config set base-url https://…` or set MEDCHAT_BASE_URL (or try `medchat demo`: no account needed)');
    }
    if (!apiKey) {
      const command = get('api-key-command') as string | undefined;
      if (command) {
        apiKey = runKeyCommand(command);
        apiKeySource = { kind: 'command' };
      }
    }
    if (!apiKey) {
      throw usageError('no API key: run `medchat config set api-key` (it reads the key from stdin) or set MEDCHAT_API_KEY (or try `medchat demo`: no account needed)');
    }
  }
  registerSecret(apiKey);
  return {
    baseUrl: baseUrlRaw ? normaliseBaseUrl(String(baseUrlRaw)) : '',
    apiKey: apiKey ?? '',
    model: String(get('model')),
    maxTokens: Number(get('max-tokens')),
    thinking: Boolean(get('thinking')),
    temperature: get('temperature') as number | undefined,
    topP: get('top-p') as number | undefined,
    idleTimeoutMs: Number(get('idle-timeout')) * 1000,
    contextWindow: Number(get('context-window')),
    compressAt: Number(get('compress-at')),
    compress: get('compress') as 'summarise' | 'trim',
    history: Boolean(get('history')),
    disclaimer: Boolean(get('disclaimer')),
    audit: Boolean(get('audit')),
    ...(apiKeySource ? { apiKeySource } : {}),
  };
}

/** Run `api-key-command` through the shell; the first line of its stdout, trimmed, is the key. Its stderr goes to the user. */
function runKeyCommand(command: string): string {
  let out: string;
  try {
    out = execFileSync(process.env.SHELL || '/bin/sh', ['-c', command], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
      timeout: 30_000,
    });
  } catch {
    throw new MedchatError('api-key-command failed; check it with: medchat config get api-key-command', ExitCode.usage);
  }
  const key = keyFromText(out, { kind: 'command' });
  if (!key) throw new MedchatError('api-key-command printed nothing; check it with: medchat config get api-key-command', ExitCode.usage);
  return key;
}

/** Said whenever a key arrives on the command line. */
export const KEY_FLAG_WARNING =
  'medchat: warning: --api-key is visible to other users in the process list; prefer MEDCHAT_API_KEY or `medchat config set api-key`\n';
