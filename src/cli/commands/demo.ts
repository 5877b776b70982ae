/**
 * `medchat demo [-p question]`: the whole program against a built-in stand-in service on
 * 127.0.0.1, with no account and no key. Nothing touches the user's config, key or sessions:
 * settings are fixed here, the config file is never read, and everything the chat screen would
 * store goes to a temporary folder that is removed on exit.
 */
import { Option, type Command } from 'commander';
import type { DemoFlags } from './demo-run.js';
import { screenReaderText } from '../../core/i18n/messages/ui-screen-reader.js';

export function registerDemo(program: Command): void {
  program
    .command('demo')
    .description('try medchat with a built-in demo service: no account, no key, nothing saved')
    .argument('[prompt...]', 'ask once and print the answer (like medchat "…"), instead of opening the chat screen')
    .option('-p, --prompt <text>', 'ask once (same as the positional prompt)')
    .option('--no-think', 'answer without the reasoning block')
    .option('--json', 'one-shot: print one JSON object at the end')
    .option('--jsonl', 'one-shot: print one JSON event per line')
    .addOption(new Option('--reasoning <mode>', 'one-shot: show or hide reasoning on stderr').choices(['show', 'hide']).default('show'))
    .option('--fast', 'stream as fast as possible (for trying pipes)')
    .option('--screen-reader', screenReaderText.flagOn)
    .option('--no-screen-reader', screenReaderText.flagOff)
    .action(async (words: string[], o: DemoFlags) => {
      const { runDemo } = await import('./demo-run.js');
      process.exitCode = await runDemo(words, o);
    });
}
