/**
 * `medchat privacy check [FILE|-]`: what the patient-identifier guard would find, with positions.
 * Only commander is touched here; the guard loads inside the action.
 */
import type { Command } from 'commander';
import { cliHelpText } from '../../core/i18n/messages/cli-help.js';

export function registerPrivacy(program: Command): void {
  const privacy = program.command('privacy').description(cliHelpText.privacyCommand);
  privacy
    .command('check [file]')
    .description(cliHelpText.privacyCheck)
    .option('--json', cliHelpText.privacyCheckJson)
    .option('--redacted', cliHelpText.privacyCheckRedacted)
    .addHelpText(
      'after',
      cliHelpText.privacyCheckAfter,
    )
    .action(async (file: string | undefined, o: { json?: boolean; redacted?: boolean }) => {
      const { privacyCheck } = await import('./privacy-check.js');
      process.exitCode = await privacyCheck(file, o);
    });
  for (const cmd of privacy.commands) cmd.exitOverride();
  privacy.exitOverride();
}
