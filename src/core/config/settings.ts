import { execFileSync } from 'node:child_process';
import { keyFromText, type KeySource } from './api-key.js';
import { MedchatError, registerSecret, usageError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import { CONFIG_KEYS, normaliseBaseUrl, parseConfigValue, type ConfigKey, type ConfigValue } from './config-keys.js';
import type { ConfigStore } from './config-store.js';
import { activePolicy, announceLock, byPolicy, PolicyError, type Policy } from './policy.js';
import { configText } from '../i18n/messages/config.js';

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
      throw usageError(configText.noBaseUrl);
    }
    if (!apiKey) {
      const command = get('api-key-command') as string | undefined;
      if (command) {
        apiKey = runKeyCommand(command);
        apiKeySource = { kind: 'command' };
      }
    }
    if (!apiKey) {
      throw usageError(configText.noApiKey);
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
    throw new MedchatError(configText.keyCommandFailed, ExitCode.usage);
  }
  const key = keyFromText(out, { kind: 'command' });
  if (!key) throw new MedchatError(configText.keyCommandEmpty, ExitCode.usage);
  return key;
}

/** Said whenever a key arrives on the command line (a function: read in the language of the moment). */
export const apiKeyOptionWarning = (): string => configText.apiKeyOptionWarning;

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
const onOff = (v: boolean) => (v ? configText.on : configText.off);

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
      return policy.baseUrl!.length === 1 ? policy.baseUrl![0] : configText.ruleOneOf(policy.baseUrl!.join(', '));
    case 'model':
      return policy.model!.length === 1 ? policy.model![0] : configText.ruleOneOf(policy.model!.join(', '));
    case 'privacy':
      return v === 'warn' ? configText.rulePrivacyWarn : 'redact';
    case 'retention-days':
    case 'max-tokens':
      return configText.ruleAtMost(String(v));
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
      return list.includes(v) ? undefined : configText.notAllowed(key, v, by, list.join(', '));
    }
    case 'privacy':
      return (PRIVACY_RANK[String(value)] ?? 0) >= (PRIVACY_RANK[String(locked)] ?? 0) ? undefined : configText.privacyNotAllowed(String(value), String(locked), by);
    case 'retention-days':
    case 'max-tokens':
      return Number(value) <= Number(locked) ? undefined : configText.isAtMost(key, String(locked), by);
    case 'encrypt':
    case 'audit':
      return value === true ? undefined : configText.isRequired(key, by);
    default:
      return value === locked ? undefined : configText.isLocked(key, onOff(Boolean(locked)), by, onOff(Boolean(value)));
  }
}

/** Where a value came from, for a refusal: the flag, the environment variable, or the config file. */
function sourceOf(key: ConfigKey, from: Layer, opts: ResolveOptions): string {
  if (from === 'flag') return FLAG_FOR[key] ?? key;
  if (from === 'env') return ENV_FOR[key] ?? key;
  return opts.store ? configText.configIn(key, opts.store.path) : `config ${key}`;
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
          ? configText.fixGiveAtMost(flag, String(enforced))
          : key === 'privacy'
            ? configText.fixLeaveOutOrGive(flag, String(enforced))
            : configText.fixLeaveOut(flag)
        : layer.from === 'env' ? configText.fixUnsetEnv(ENV_FOR[key] ?? key) : configText.fixConfigUnset(key);
    throw new PolicyError(`${sourceOf(key, layer.from, opts)}: ${why}; ${fix}`);
  }
  // A config value past a floor, ceiling or lock: the policy's value, said once.
  const shown = typeof enforced === 'boolean' ? onOff(enforced) : String(enforced);
  announceLock(key, key === 'max-tokens' || key === 'retention-days' ? configText.lockedMost(key, shown) : configText.lockedIs(key, shown));
  return enforced;
}

/** `--api-key` when the policy turns it off: refused (exit 2), the key never echoed. */
export function assertApiKeyOptionAllowed(given: boolean): void {
  if (given && activePolicy().apiKeyFlag === false) {
    throw new PolicyError(configText.apiKeyFlagOff(byPolicy()));
  }
}

/**
 * The session flags under a history lock: with history on by policy, `--incognito` is refused;
 * with it off, nothing is saved and `-c`/`--resume` are refused (there is nothing to continue).
 */
export function assertSessionOptionsAllowed(o: { incognito?: boolean; resume?: boolean }): void {
  const history = activePolicy().history;
  if (history === true && o.incognito) throw new PolicyError(configText.incognitoRefused(byPolicy()));
  if (history === false && o.resume) throw new PolicyError(configText.resumeRefused(byPolicy()));
}
