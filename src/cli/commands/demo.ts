/**
 * `medchat demo [-p question]`: the whole program against a built-in stand-in service on
 * 127.0.0.1, with no account and no key. Nothing touches the user's config, key or sessions:
 * settings are fixed here, the config file is never read, and everything the chat screen would
 * store goes to a temporary folder that is removed on exit.
 */
import { Option, type Command } from 'commander';
import type { DemoFlags } from './demo-run.js';
import { cliHelpText } from '../../core/i18n/messages/cli-help.js';
import { screenReaderText } from '../../core/i18n/messages/ui-screen-reader.js';

export function registerDemo(program: Command): void {
  program
    .command('demo')
    .description(cliHelpText.demo)
    .argument('[prompt...]', cliHelpText.demoPromptArgument)
    .option('-p, --prompt <text>', cliHelpText.demoPrompt)
    .option('--no-think', cliHelpText.demoNoThink)
    .option('--json', cliHelpText.demoJson)
    .option('--jsonl', cliHelpText.demoJsonl)
    .addOption(new Option('--reasoning <mode>', cliHelpText.demoReasoning).choices(['show', 'hide']).default('show'))
    .option('--fast', cliHelpText.demoFast)
    .option('--screen-reader', screenReaderText.flagOn)
    .option('--no-screen-reader', screenReaderText.flagOff)
    .action(async (words: string[], o: DemoFlags) => {
      const { runDemo } = await import('./demo-run.js');
      process.exitCode = await runDemo(words, o);
    });
}
