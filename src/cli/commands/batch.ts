import { Option, type Command } from 'commander';
import { addServiceOptions, settingsFlags, warnAboutKeyFlag } from '../options.js';
import { addPrivacyOptions } from './privacy-options.js';
import { addRoleOption, addSchemaOptions } from './script-options.js';
import { cliHelpText } from '../../core/i18n/messages/cli-help.js';

/** The options of `medchat batch` besides the service ones (defined here, so cli/program.ts stays as it is). */
function addBatchOptions(cmd: Command): Command {
  return cmd
    .option('-o, --output <file>', cliHelpText.batchOutput)
    .option('-j, --jobs <n>', cliHelpText.batchJobs)
    .option('--lines', cliHelpText.batchLines)
    .option('--ordered', cliHelpText.batchOrdered)
    .option('-s, --system <text>', cliHelpText.batchSystem)
    .option('--think', cliHelpText.think)
    .option('--no-think', cliHelpText.noThink)
    .option('--max-tokens <n>', cliHelpText.batchMaxTokens)
    .option('--temperature <n>', cliHelpText.temperature)
    .option('--top-p <n>', cliHelpText.topP)
    .option('-m, --model <name>', cliHelpText.model)
    .option('--retries <n>', cliHelpText.batchRetries)
    .addOption(new Option('--idle-timeout <seconds>', cliHelpText.batchIdleTimeout));
}

export function registerBatch(program: Command): void {
  const cmd = program
    .command('batch')
    .description(cliHelpText.batch)
    .argument('<input>', cliHelpText.batchInput);
  addBatchOptions(cmd);
  addSchemaOptions(addRoleOption(cmd));
  addPrivacyOptions(cmd);
  addServiceOptions(cmd);
  cmd.addHelpText(
    'after',
    cliHelpText.batchAfter,
  );
  cmd.action(async (source: string, o) => {
    warnAboutKeyFlag(o);
    const { runBatchCommand } = await import('./batch-run.js');
    process.exitCode = await runBatchCommand(source, o, settingsFlags(o));
  });
}
