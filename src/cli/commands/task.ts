import type { Command } from 'commander';
import { addServiceOptions } from '../options.js';
import { addFollowOptions } from './retexture.js';

export function registerTask(program: Command): void {
  const cmd = program
    .command('task')
    .description('show a retexture task: its image URL when done, else its status (--wait follows it to the end)')
    .argument('<id>', 'the task id that `medchat retexture` printed');
  addFollowOptions(cmd);
  addServiceOptions(cmd);
  cmd.addHelpText(
    'after',
    `
Without --wait: prints the image URL when the task is done, else its status and progress
(e.g. "IN_PROGRESS 45%"); a failed or cancelled task prints its reason on stderr (exit 6).

Examples:
  medchat task 1712345678901234567 --wait
  medchat task 1712345678901234567 --wait --output result.png
  medchat task 1712345678901234567 --json | jq -r .status`,
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
