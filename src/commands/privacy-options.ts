import { Option, type Command } from 'commander';
import type { ConfigStore } from '../core/config-store.js';
import { usageError } from '../core/errors.js';
import { resolveValue } from '../core/settings.js';

/** `--privacy MODE` and `--shift-dates` (issue 14), for the main command (one-shot and the chat screen). */
export interface PrivacyFlags {
  privacy?: string;
  shiftDates?: boolean;
}

export type PrivacyMode = 'warn' | 'redact' | 'off';

export function addPrivacyOptions(cmd: Command): Command {
  return cmd
    .addOption(
      new Option('--privacy <mode>', 'patient identifiers in what you send: warn (list them), redact (send placeholders, show the answer with the values back), off (default: config `privacy`, warn)').choices([
        'warn',
        'redact',
        'off',
      ]),
    )
    .option('--shift-dates', 'with --privacy redact: move all dates by one random offset instead of replacing them (intervals kept)');
}

/** The mode from --privacy, else config `privacy`, else warn; --shift-dates only with redact. */
export function resolvePrivacy(o: PrivacyFlags, store: ConfigStore): { mode: PrivacyMode; shiftDates: boolean } {
  const mode = resolveValue('privacy', { flags: { privacy: o.privacy }, store }) as PrivacyMode;
  if (o.shiftDates && mode !== 'redact') {
    throw usageError(`--shift-dates goes with --privacy redact (dates are moved instead of replaced); privacy is ${mode}`);
  }
  return { mode, shiftDates: Boolean(o.shiftDates) };
}
