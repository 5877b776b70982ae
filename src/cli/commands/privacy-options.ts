/**
 * `--privacy MODE` and `--shift-dates`, for the main command (one-shot and the chat screen) and
 * batch; what they mean is resolved once, in core/privacy/choice.ts.
 */
import { Option, type Command } from 'commander';

export interface PrivacyFlags {
  privacy?: string;
  shiftDates?: boolean;
}

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
