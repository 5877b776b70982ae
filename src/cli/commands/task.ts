import type { Command } from 'commander';
import { addServiceOptions } from '../options.js';
import { addFollowOptions } from './retexture.js';
import { cliHelpText } from '../../core/i18n/messages/cli-help.js';

export function registerTask(program: Command): void {
  const cmd = program
    .command('task')
    .description(cliHelpText.task)
    .argument('<id>', cliHelpText.taskId);
  addFollowOptions(cmd);
  addServiceOptions(cmd);
  cmd.addHelpText(
    'after',
    cliHelpText.taskAfter,
  );
  cmd.action(async (id: string, o) => {
    const { runTaskCommand, endPromptly } = await import('./retexture-run.js');
    try {
      process.exitCode = await runTaskCommand(id, o);
    } finally {
      endPromptly();
    }
  });
}
