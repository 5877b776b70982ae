/**
 * The organisation policy: a file an administrator writes (/etc/medchat/policy.json; on Windows
 * C:\ProgramData\medchat\policy.json) that wins over the user's config, environment and flags.
 * Loaded once per process; every setting it locks is applied where settings are resolved
 * (core/config/settings.ts `resolveValue`), so other modules only ask `activePolicy()` for what
 * is not a config key (the audit folder) or whether something is required rather than chosen.
 *
 * Fail closed: a file that is there but cannot be used (bad JSON, an unknown key, a wrong type,
 * `privacy: "off"`, an empty list, not a regular file, unreadable) stops medchat with one line
 * naming the file and what to fix (exit 2). Only a file that does not exist means "no policy".
 *
 * Nothing the user controls moves the file: no environment variable, no flag. A test build
 * (build/build.mjs with MEDCHAT_BUILD_TEST_HOOKS=1) defines __MEDCHAT_TEST_HOOKS__ as true and
 * then reads MEDCHAT_TEST_POLICY_FILE; the release bundle defines it as false, so that branch and
 * the variable's name are not in it at all. Run from source (tsx), the define is absent and the
 * hook is off; in-process tests use `usePolicyFile`.
 */
import path from 'node:path';
import { MedchatError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import { FileReadError, readTextFileBounded } from '../io/bounded-read.js';
import { normaliseBaseUrl } from './config-keys.js';
import { configText } from '../i18n/messages/config.js';

export interface Policy {
  /** The policy file these values came from; undefined when there is no policy. */
  file?: string;
  /** Allowed service roots (normalised as config `base-url` is). */
  baseUrl?: string[];
  /** Allowed models. */
  model?: string[];
  /** The lowest privacy mode allowed. */
  privacy?: 'warn' | 'redact';
  history?: boolean;
  /** A ceiling on `retention-days`. */
  retentionDays?: number;
  /** Encrypted history is required. */
  encrypt?: boolean;
  /** The audit log is required. */
  audit?: boolean;
  /** Where audit logs go (else the user's data folder). */
  auditDir?: string;
  disclaimer?: boolean;
  /** A ceiling on `max-tokens`. */
  maxTokens?: number;
  /** false: image jobs are disabled. */
  retexture?: boolean;
  /** false: `--api-key` is refused. */
  apiKeyFlag?: boolean;
}

/** The keys a policy file may hold, as written in it, in the order `medchat policy` lists them. */
export const POLICY_KEYS = [
  'base-url',
  'model',
  'privacy',
  'history',
  'retention-days',
  'encrypt',
  'audit',
  'audit-dir',
  'disclaimer',
  'max-tokens',
  'retexture',
  'api-key-flag',
] as const;
export type PolicyKey = (typeof POLICY_KEYS)[number];


/** A policy file is a few hundred bytes; 64 KB is far more than any could need. */
const MAX_POLICY_BYTES = 64 * 1024;

/** true only in a test build; false in the release bundle; not defined at all when run from source. */
declare const __MEDCHAT_TEST_HOOKS__: boolean;

/**
 * Where the administrator puts the policy on this system. On Windows it is C:\ProgramData, written
 * out: %ProgramData% is an environment variable, which a user can set to a folder of their own.
 */
export function systemPolicyFile(platform: NodeJS.Platform = process.platform): string {
  if (platform === 'win32') return 'C:\\ProgramData\\medchat\\policy.json';
  return '/etc/medchat/policy.json';
}

let fileOverride: string | undefined;
let loaded: Policy | undefined;

/** The policy file this process reads. */
export function policyFile(): string {
  if (fileOverride !== undefined) return fileOverride;
  // Written inline, so the release build folds it to `if (false)` and drops the branch and the name.
  if (typeof __MEDCHAT_TEST_HOOKS__ === 'boolean' && __MEDCHAT_TEST_HOOKS__) {
    const fromEnv = process.env.MEDCHAT_TEST_POLICY_FILE;
    if (fromEnv) return fromEnv;
  }
  return systemPolicyFile();
}

/** In-process tests only: read the policy from `file` (undefined: the system's again), and forget what was loaded. */
export function usePolicyFile(file: string | undefined): void {
  fileOverride = file;
  loaded = undefined;
  announced.clear();
}

/** The policy in force for this process ({} when there is none). Throws (exit 2) when the file is there but not usable. */
export function activePolicy(): Policy {
  loaded ??= loadPolicy(policyFile());
  return loaded;
}

/** A policy file that cannot be used: one line naming it and what to fix. */
export class PolicyError extends MedchatError {
  constructor(message: string) {
    super(message, ExitCode.usage, 'usage');
  }
}

/** Read and check one policy file; {} when it does not exist. */
export function loadPolicy(file: string): Policy {
  const what = configText.thePolicy(file);
  // What a user can do about a broken policy (they cannot edit it; it must not be worked around).
  const fix = configText.policyFix;
  let text: string;
  try {
    text = readTextFileBounded(file, { maxBytes: MAX_POLICY_BYTES, what, notRegularHint: configText.policyNotRegular, tooBigHint: configText.policyTooBig });
  } catch (err) {
    if (err instanceof FileReadError && err.problem === 'missing') return {};
    const reason = err instanceof MedchatError ? err.message.replace(`${what}: `, '') : String(err);
    if (err instanceof FileReadError && err.problem === 'denied') throw new PolicyError(configText.policyDenied(what, fix));
    throw new PolicyError(configText.policyUnusable(what, reason.replace(/; give a (regular )?file$/, ''), fix));
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new PolicyError(configText.policyNotJson(what, (err as Error).message.split('\n')[0] ?? '', fix));
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw new PolicyError(configText.policyNotObject(what, fix));
  return checkPolicy(raw as Record<string, unknown>, file);
}

function checkPolicy(raw: Record<string, unknown>, file: string): Policy {
  const bad = (key: string, must: string) => new PolicyError(configText.policyBadKey(file, key, shown(raw[key]), must, configText.policyFix));
  const policy: Policy = { file };
  for (const key of Object.keys(raw)) {
    if (!(POLICY_KEYS as readonly string[]).includes(key)) {
      throw new PolicyError(configText.policyUnknownKey(file, cut(key), POLICY_KEYS.join(', '), configText.policyFix));
    }
  }
  const list = (key: 'base-url' | 'model', each: (v: string) => string): string[] | undefined => {
    const v = raw[key];
    if (v === undefined) return undefined;
    if (!Array.isArray(v) || !v.every((x) => typeof x === 'string' && x.trim() !== '')) throw bad(key, configText.mustBeList);
    if (v.length === 0) throw bad(key, configText.mustNameOne);
    return v.map((x: string) => {
      try {
        return each(x);
      } catch (err) {
        throw bad(key, key === 'base-url' ? configText.mustHoldUrls((err as Error).message) : configText.mustHoldNames((err as Error).message));
      }
    });
  };
  const onOff = (key: PolicyKey): boolean | undefined => {
    const v = raw[key];
    if (v === undefined) return undefined;
    if (v === true || v === 'on') return true;
    if (v === false || v === 'off') return false;
    throw bad(key, configText.mustBeOnOff);
  };
  const whole = (key: PolicyKey, min: number, max: number): number | undefined => {
    const v = raw[key];
    if (v === undefined) return undefined;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) throw bad(key, configText.mustBeWhole(min, max));
    return v;
  };
  const baseUrl = list('base-url', normaliseBaseUrl);
  if (baseUrl) policy.baseUrl = baseUrl;
  const model = list('model', (x) => x.trim());
  if (model) policy.model = model;
  if (raw.privacy !== undefined) {
    if (raw.privacy === 'off') throw bad('privacy', configText.privacyNeverOff);
    if (raw.privacy !== 'warn' && raw.privacy !== 'redact') throw bad('privacy', configText.privacyWarnOrRedact);
    policy.privacy = raw.privacy;
  }
  const flags: Array<[PolicyKey, 'history' | 'encrypt' | 'audit' | 'disclaimer' | 'retexture' | 'apiKeyFlag']> = [
    ['history', 'history'],
    ['encrypt', 'encrypt'],
    ['audit', 'audit'],
    ['disclaimer', 'disclaimer'],
    ['retexture', 'retexture'],
    ['api-key-flag', 'apiKeyFlag'],
  ];
  for (const [key, field] of flags) {
    const v = onOff(key);
    if (v !== undefined) policy[field] = v;
  }
  const retention = whole('retention-days', 1, 36500);
  if (retention !== undefined) policy.retentionDays = retention;
  const maxTokens = whole('max-tokens', 1, 131072);
  if (maxTokens !== undefined) policy.maxTokens = maxTokens;
  if (raw['audit-dir'] !== undefined) {
    const dir = raw['audit-dir'];
    if (typeof dir !== 'string' || !path.isAbsolute(dir) || /[\0\r\n]/.test(dir)) throw bad('audit-dir', configText.mustBeAbsolute);
    policy.auditDir = dir;
  }
  return policy;
}

function shown(v: unknown): string {
  const json = JSON.stringify(v) ?? String(v);
  return cut(json);
}

function cut(s: string): string {
  const line = s.replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ');
  return line.length > 60 ? line.slice(0, 59) + '…' : line;
}

/** The policy key that locks a config key, as the file names it (the same name). */
export type LockedConfigKey = 'base-url' | 'model' | 'privacy' | 'history' | 'retention-days' | 'encrypt' | 'audit' | 'disclaimer' | 'max-tokens';

/** "by your organisation's policy (/etc/medchat/policy.json)": how every policy line ends. */
export function byPolicy(policy: Policy = activePolicy()): string {
  return configText.byPolicy(policy.file ?? policyFile());
}

const announced = new Set<string>();
let sink: (line: string) => void = (line) => {
  process.stderr.write(line + '\n');
};

/** In-process tests: where "said once" lines go (stderr otherwise). */
export function onPolicyNotice(fn: ((line: string) => void) | undefined): void {
  sink = fn ?? ((line) => process.stderr.write(line + '\n'));
}

/**
 * Say, once per process, that the policy overrode what the user chose for `key`:
 * `medchat: privacy is redact by your organisation's policy (/etc/medchat/policy.json)`.
 */
export function announceLock(key: string, text: string): void {
  if (announced.has(key)) return;
  announced.add(key);
  sink(configText.lockNotice(text, byPolicy()));
}

/** `medchat retexture`, `medchat task` and `/retexture`: refused when the policy turns image jobs off. */
export function retextureRefusal(): string | undefined {
  return activePolicy().retexture === false ? configText.retextureOff(byPolicy()) : undefined;
}

export function assertRetextureAllowed(): void {
  const refusal = retextureRefusal();
  if (refusal) throw new PolicyError(refusal);
}
