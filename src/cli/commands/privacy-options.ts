/**
 * `--privacy MODE` and `--shift-dates`, for the main command (one-shot and the chat screen) and
 * batch; what they mean is resolved once, in core/privacy/choice.ts.
 */
import { Option, type Command } from 'commander';
import { cliHelpText } from '../../core/i18n/messages/cli-help.js';

export interface PrivacyFlags {
  privacy?: string;
  shiftDates?: boolean;
}

export function addPrivacyOptions(cmd: Command): Command {
  return cmd
    .addOption(
      new Option('--privacy <mode>', cliHelpText.privacy).choices([
        'warn',
        'redact',
        'off',
      ]),
    )
    .option('--shift-dates', cliHelpText.shiftDates);
}
