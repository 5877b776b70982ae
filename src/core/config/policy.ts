/**
 * The organisation policy: a file an administrator writes (/etc/medchat/policy.json; on Windows
 * %ProgramData%\medchat\policy.json) that wins over the user's config, environment and flags.
 * Loaded once per process; every setting it locks is applied where settings are resolved
 * (core/config/settings.ts `resolveValue`), so other modules only ask `activePolicy()` for what
 * is not a config key (the audit folder) or whether something is required rather than chosen.
 */
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

let loaded: Policy | undefined;

/** The policy in force for this process ({} when there is none). */
export function activePolicy(): Policy {
  loaded ??= {};
  return loaded;
}

/** Tests only (in-process): put a policy in force, or none (undefined). Not reachable from the command line. */
export function setPolicyForTests(policy: Policy | undefined): void {
  loaded = policy;
}
