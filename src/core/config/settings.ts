import { execFileSync } from 'node:child_process';
import { keyFromText, type KeySource } from './api-key.js';
import { MedchatError, registerSecret, usageError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import { CONFIG_KEYS, normaliseBaseUrl, parseConfigValue, type ConfigKey, type ConfigValue } from './config-keys.js';
import type { ConfigStore } from './config-store.js';
import { activePolicy, announceLock, byPolicy, PolicyError, type Policy } from './policy.js';

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

/**
 * The value of `key` for this run: flags → environment → config file → defaults, then the
 * organisation policy (core/config/policy.ts) over all of them: a flag, or a service or model
 * outside the policy's list, is refused (exit 2); a config value past a floor, ceiling or lock is
 * replaced by the policy's, said once; a default the policy does not allow is replaced silently.
 */
export function resolveValue(key: ConfigKey, opts: ResolveOptions): ConfigValue | undefined {
  return applyPolicy(key, resolveLayer(key, opts), opts);
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
  if (key.from === 'flag') assertApiKeyOptionAllowed(true);
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

// ---------------------------------------------------------------------------------------------
// The organisation policy, applied to settings (policy.ts reads and checks the file).

/** The order of privacy modes, lowest first. */
const PRIVACY_RANK: Record<string, number> = { off: 0, warn: 1, redact: 2 };
const LIST_KEYS = new Set<ConfigKey>(['base-url', 'model']);
const FLAG_FOR: Partial<Record<ConfigKey, string>> = {
  'base-url': '--base-url',
  model: '--model',
  'max-tokens': '--max-tokens',
  privacy: '--privacy',
  thinking: '--think',
  temperature: '--temperature',
  'top-p': '--top-p',
  'idle-timeout': '--idle-timeout',
};
const onOff = (v: boolean) => (v ? 'on' : 'off');

/**
 * What the policy puts in place of a value it does not allow for `key` (the first allowed service
 * or model, the privacy floor, the locked value, the ceiling); undefined when it does not lock `key`.
 */
export function policyValue(key: ConfigKey, policy: Policy = activePolicy()): ConfigValue | undefined {
  switch (key) {
    case 'base-url':
      return policy.baseUrl?.[0];
    case 'model':
      return policy.model?.[0];
    case 'privacy':
      return policy.privacy;
    case 'history':
      return policy.history;
    case 'disclaimer':
      return policy.disclaimer;
    case 'encrypt':
      return policy.encrypt === true ? true : undefined;
    case 'audit':
      return policy.audit === true ? true : undefined;
    case 'retention-days':
      return policy.retentionDays;
    case 'max-tokens':
      return policy.maxTokens;
    default:
      return undefined;
  }
}

/** What the policy says of `key`, in words ("one of a, b", "at least redact", "at most 8192", "on"); undefined when it does not lock it. */
export function policyRule(key: ConfigKey, policy: Policy = activePolicy()): string | undefined {
  const v = policyValue(key, policy);
  if (v === undefined) return undefined;
  switch (key) {
    case 'base-url':
      return policy.baseUrl!.length === 1 ? policy.baseUrl![0] : `one of ${policy.baseUrl!.join(', ')}`;
    case 'model':
      return policy.model!.length === 1 ? policy.model![0] : `one of ${policy.model!.join(', ')}`;
    case 'privacy':
      return v === 'warn' ? 'warn or redact (not off)' : 'redact';
    case 'retention-days':
    case 'max-tokens':
      return `at most ${v}`;
    default:
      return onOff(Boolean(v));
  }
}

/** Why the policy does not allow `value` for `key` (one phrase ending "by your organisation's policy (file)"); undefined when it does. */
export function policyForbids(key: ConfigKey, value: ConfigValue | undefined, policy: Policy = activePolicy()): string | undefined {
  const locked = policyValue(key, policy);
  if (locked === undefined || value === undefined) return undefined;
  const by = byPolicy(policy);
  switch (key) {
    case 'base-url':
    case 'model': {
      const list = (key === 'base-url' ? policy.baseUrl : policy.model)!;
      const v = key === 'base-url' ? normaliseBaseUrl(String(value)) : String(value);
      return list.includes(v) ? undefined : `${key} ${v} is not allowed ${by}; allowed: ${list.join(', ')}`;
    }
    case 'privacy':
      return (PRIVACY_RANK[String(value)] ?? 0) >= (PRIVACY_RANK[String(locked)] ?? 0) ? undefined : `privacy ${value} is not allowed: privacy is at least ${locked} ${by}`;
    case 'retention-days':
    case 'max-tokens':
      return Number(value) <= Number(locked) ? undefined : `${key} is at most ${locked} ${by}`;
    case 'encrypt':
    case 'audit':
      return value === true ? undefined : `${key} is required ${by} and cannot be turned off`;
    default:
      return value === locked ? undefined : `${key} is ${onOff(Boolean(locked))} ${by} and cannot be turned ${onOff(Boolean(value))}`;
  }
}

/** Where a value came from, for a refusal: the flag, the environment variable, or the config file. */
function sourceOf(key: ConfigKey, from: Layer, opts: ResolveOptions): string {
  if (from === 'flag') return FLAG_FOR[key] ?? key;
  if (from === 'env') return ENV_FOR[key] ?? key;
  return `config ${key}${opts.store ? ` (in ${opts.store.path})` : ''}`;
}

function applyPolicy(key: ConfigKey, layer: { value: ConfigValue | undefined; from: Layer }, opts: ResolveOptions): ConfigValue | undefined {
  if (key === 'api-key' && layer.from === 'flag') assertApiKeyOptionAllowed(true);
  const policy = activePolicy();
  const enforced = policyValue(key, policy);
  if (enforced === undefined) return layer.value;
  // Nothing chosen: the default if the policy allows it (never for a list: its first value), else the policy's.
  if (layer.from === 'default' || layer.value === undefined) {
    return !LIST_KEYS.has(key) && layer.value !== undefined && !policyForbids(key, layer.value, policy) ? layer.value : enforced;
  }
  const why = policyForbids(key, layer.value, policy);
  if (!why) return layer.value;
  // A flag that asks for what the policy does not allow, or a service or model outside its list: refused.
  if (layer.from === 'flag' || LIST_KEYS.has(key)) {
    const flag = sourceOf(key, layer.from, opts);
    const fix =
      layer.from === 'flag'
        ? key === 'max-tokens'
          ? `give ${flag} ${enforced} or less`
          : key === 'privacy'
            ? `leave out ${flag} or give ${flag} ${enforced}`
            : `leave out ${flag}`
        : layer.from === 'env' ? `unset ${ENV_FOR[key]}` : `run: medchat config unset ${key}`;
    throw new PolicyError(`${sourceOf(key, layer.from, opts)}: ${why}; ${fix}`);
  }
  // A config value past a floor, ceiling or lock: the policy's value, said once.
  const shown = typeof enforced === 'boolean' ? onOff(enforced) : String(enforced);
  announceLock(key, key === 'max-tokens' || key === 'retention-days' ? `${key} is ${shown}, the most allowed` : `${key} is ${shown}`);
  return enforced;
}

/** `--api-key` when the policy turns it off: refused (exit 2), the key never echoed. */
export function assertApiKeyOptionAllowed(given: boolean): void {
  if (given && activePolicy().apiKeyFlag === false) {
    throw new PolicyError(`--api-key is turned off ${byPolicy()}; give the key with MEDCHAT_API_KEY or \`medchat config set api-key\` (it reads it from stdin)`);
  }
}

/**
 * The session flags under a history lock: with history on by policy, `--incognito` is refused;
 * with it off, nothing is saved and `-c`/`--resume` are refused (there is nothing to continue).
 */
export function assertSessionOptionsAllowed(o: { incognito?: boolean; resume?: boolean }): void {
  const history = activePolicy().history;
  if (history === true && o.incognito) throw new PolicyError(`--incognito is not allowed: history is on ${byPolicy()}, so every conversation is saved`);
  if (history === false && o.resume) throw new PolicyError(`saved conversations are off ${byPolicy()}: there is nothing to continue; leave out -c/--resume`);
}
