/**
 * `medchat privacy check [FILE|-]`: what the patient-identifier guard would find, with positions.
 * Only commander is touched here; the guard loads inside the action.
 */
import type { Command } from 'commander';

export function registerPrivacy(program: Command): void {
  const privacy = program.command('privacy').description('the patient-identifier guard: check a text for identifiers before it leaves the machine');
  privacy
    .command('check [file]')
    .description('list the identifiers in a file or stdin (-), with line:column; exit 11 when any are found, 0 when none')
    .option('--json', 'one JSON object: found, counts, findings (kind, text, start, end, line, column)')
    .option('--redacted', 'print the text as --privacy redact would send it, instead of the list')
    .addHelpText(
      'after',
      `
Finds names (by context: Patient:, Mr/Dr, signatures, "seen by"…), dates more specific than a year,
ages over 89, phone/fax numbers, e-mail addresses, national ids (SSN, NHS number, Chinese id…),
record/account/plan/licence numbers after their labels, street addresses and postcodes, URLs,
IP addresses, device and vehicle ids after their labels. A safety net, not a guarantee.

Exit codes: 0 nothing found, 11 identifiers found, 2 usage error.

Examples:
  medchat privacy check note.txt
  pbpaste | medchat privacy check --json | jq '.counts'
  medchat privacy check --redacted < note.txt > note-redacted.txt`,
    )
    .action(async (file: string | undefined, o: { json?: boolean; redacted?: boolean }) => {
      const { privacyCheck } = await import('./privacy-check.js');
      process.exitCode = await privacyCheck(file, o);
    });
  for (const cmd of privacy.commands) cmd.exitOverride();
  privacy.exitOverride();
}
