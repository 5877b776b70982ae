import type { Command } from 'commander';
import { addServiceOptions } from '../options.js';
import { cliHelpText } from '../../core/i18n/messages/cli-help.js';

/** Options shared by `retexture` (with --wait) and `task`. */
export function addFollowOptions(cmd: Command): Command {
  return cmd
    .option('--wait', cliHelpText.followWait)
    .option('-o, --output <path>', cliHelpText.followOutput)
    .option('--json', cliHelpText.followJson)
    .option('--poll-interval <seconds>', cliHelpText.followPollInterval)
    .option('--timeout <seconds>', cliHelpText.followTimeout)
    .option('--preview', cliHelpText.followPreview);
}

export function registerRetexture(program: Command): void {
  const cmd = program
    .command('retexture')
    .description(cliHelpText.retexture)
    .argument('[prompt...]', cliHelpText.retexturePromptArgument)
    .option('-p, --prompt <text>', cliHelpText.retexturePrompt)
    .option('-i, --image <file|url|->', cliHelpText.retextureImage)
    .option('--state <text>', cliHelpText.retextureState)
    .option('--notify-hook <url>', cliHelpText.retextureNotifyHook)
    .option('--no-storage', cliHelpText.retextureNoStorage)
    .option('--max-image-mb <n>', cliHelpText.retextureMaxImage);
  addFollowOptions(cmd);
  addServiceOptions(cmd);
  cmd.addHelpText(
    'after',
    cliHelpText.retextureAfter,
  );
  cmd.action(async (words: string[], o) => {
    const { runRetextureCommand, endPromptly } = await import('./retexture-run.js');
    try {
      process.exitCode = await runRetextureCommand(words, o);
    } finally {
      endPromptly();
    }
  });
}
