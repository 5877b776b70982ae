/**
 * The patient-identifier guard's setting for one run, resolved once for every front end (one-shot,
 * the chat screen, batch): `--privacy`, else config `privacy` (or its environment variable), else
 * warn; `--shift-dates` only with redact. The organisation policy's floor applies (resolveValue:
 * a `--privacy` below it is refused, a config value below it raised). Loads none of the guard itself.
 */
import type { ConfigStore } from '../config/config-store.js';
import { usageError } from '../errors.js';
import { resolveValue } from '../config/settings.js';
import type { PrivacyMode } from './guard.js';
import { privacyText } from '../i18n/messages/privacy.js';

export interface PrivacyChoice {
  mode: PrivacyMode;
  /** redact only: move every date by one offset instead of replacing it (intervals kept). */
  shiftDates?: boolean;
}

export function resolvePrivacy(o: { privacy?: string; shiftDates?: boolean }, store: ConfigStore, env?: NodeJS.ProcessEnv): PrivacyChoice {
  const mode = resolveValue('privacy', { flags: { privacy: o.privacy }, store, env }) as PrivacyMode;
  if (o.shiftDates && mode !== 'redact') {
    throw usageError(privacyText.shiftDatesNeedsRedact(mode));
  }
  return { mode, shiftDates: Boolean(o.shiftDates) };
}
