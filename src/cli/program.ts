/**
 * The command line. Kept light: only commander is loaded up front; each mode imports what it
 * needs when it runs, so `--version`, `--help` and one-shot never load Ink or React. Nothing
 * imports this module but main.ts: what the modes share with it lives in cli/options.ts and
 * version.ts, below it.
 */
import { Command, CommanderError, Option } from 'commander';
import { MedchatError, toMedchatError } from '../core/errors.js';
import { ExitCode } from '../core/exit-codes.js';
import { sanitizeLine } from '../core/text/sanitize.js';
import { addServiceOptions, type ChatFlags } from './options.js';
import { registerSubcommands } from './commands/index.js';
import { addPrivacyOptions } from './commands/privacy-options.js';
import { addScriptOptions } from './commands/script-options.js';
import { VERSION } from '../version.js';
import { configureAudit } from '../core/audit/setup.js';
import { useConfiguredLanguage } from '../core/i18n/language.js';
import { configuredLanguage } from '../core/config/config-store.js';
import { commanderMessage, localiseHelp } from './commander-text.js';
import { cliHelpText } from '../core/i18n/messages/cli-help.js';
import { cliText } from '../core/i18n/messages/cli.js';
import { screenReaderText } from '../core/i18n/messages/ui-screen-reader.js';

function buildProgram(): Command {
  const program = new Command('medchat');
  program
    // Options after a subcommand name belong to the subcommand (`medchat retexture --json …`).
    .enablePositionalOptions()
    .description(cliHelpText.program)
    .version(VERSION, '-V, --version', cliHelpText.version)
    .helpOption('-h, --help', cliHelpText.help)
    .argument('[prompt...]', cliHelpText.promptArgument)
    .option('-p, --prompt <text>', cliHelpText.prompt)
    .option('-s, --system <text>', cliHelpText.system)
    .option('--think', cliHelpText.think)
    .option('--no-think', cliHelpText.noThink)
    .option('--max-tokens <n>', cliHelpText.maxTokens)
    .option('--temperature <n>', cliHelpText.temperature)
    .option('--top-p <n>', cliHelpText.topP)
    .option('-m, --model <name>', cliHelpText.model)
    .option('--no-stream', cliHelpText.noStream)
    .option('--idle-timeout <seconds>', cliHelpText.idleTimeout)
    .addOption(new Option('--reasoning <mode>', cliHelpText.reasoning).choices(['show', 'hide']).default('show'))
    .option('--json', cliHelpText.json)
    .option('--jsonl', cliHelpText.jsonl)
    .option('--no-stdin', cliHelpText.noStdin)
    .option('-c, --continue', cliHelpText.continue)
    .option('--resume <id>', cliHelpText.resume)
    .option('--incognito', cliHelpText.incognito)
    .option('--screen-reader', screenReaderText.flagOn)
    .option('--no-screen-reader', screenReaderText.flagOff);
  addScriptOptions(program); // -r/--role, --schema, --schema-multi, -f/--file
  addPrivacyOptions(program); // --privacy, --shift-dates
  addServiceOptions(program);
  program.addHelpText(
    'after',
    cliHelpText.programAfter,
  );

  program.action(async (words: string[], o: ChatFlags) => {
    const { runChatEntry } = await import('./chat-entry.js');
    process.exitCode = await runChatEntry(words, o);
  });

  const config = program.command('config').description(cliHelpText.config);
  config.command('set <key> [value]').description(cliHelpText.configSet).option('--yes', cliHelpText.configSetYes).action(async (k: string, v: string | undefined, o: { yes?: boolean }) => {
    const { configCommand } = await import('./commands/config.js');
    process.exitCode = await configCommand('set', k, v, o);
  });
  config.command('get <key>').description(cliHelpText.configGet).action(async (k: string) => {
    const { configCommand } = await import('./commands/config.js');
    process.exitCode = await configCommand('get', k, undefined);
  });
  config.command('unset <key>').description(cliHelpText.configUnset).option('--yes', cliHelpText.configUnsetYes).action(async (k: string, o: { yes?: boolean }) => {
    const { configCommand } = await import('./commands/config.js');
    process.exitCode = await configCommand('unset', k, undefined, o);
  });
  config.command('list').description(cliHelpText.configList).action(async () => {
    const { configCommand } = await import('./commands/config.js');
    process.exitCode = await configCommand('list', undefined, undefined);
  });
  config.command('path').description(cliHelpText.configPath).action(async () => {
    const { configCommand } = await import('./commands/config.js');
    process.exitCode = await configCommand('path', undefined, undefined);
  });
  registerSubcommands(program);
  // The organisation policy is read before any command runs: a policy file that is there but not
  // usable stops every command with its one line (fail closed), not only those that read settings.
  program.hook('preAction', async () => {
    const { activePolicy } = await import('../core/config/policy.js');
    activePolicy();
  });
  return program;
}

/** The one line for a failure: escape sequences, controls and bidi overrides shown, line breaks kept out. */
function report(err: MedchatError): void {
  process.stderr.write(`medchat: ${sanitizeLine(err.message)}\n`);
}

/** `medchat config set`: the words that run `cmd`, for its --help. */
function commandPath(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

export async function main(argv: string[] = process.argv): Promise<void> {
  // Every message from here on, --help and the first error included, in the user's language (core/i18n).
  useConfiguredLanguage(process.env.MEDCHAT_LANG ? undefined : configuredLanguage());
  // The audit log's lines carry the version; a failed audit write is one warning line (the chat screen shows it as a notice).
  configureAudit({ version: VERSION, warn: (line) => process.stderr.write(`${cliText.warning(sanitizeLine(line))}\n`) });
  const program = buildProgram();
  // Every command, subcommands of subcommands included (commander copies these settings only to
  // commands made after them): a usage error is our one line with the next step, exit 2.
  const everyCommand = (cmd: Command): Command[] => [cmd, ...cmd.commands.flatMap(everyCommand)];
  for (const cmd of everyCommand(program)) {
    cmd.exitOverride();
    localiseHelp(cmd);
    cmd.configureOutput({
      // commander's own error messages ("error: unknown option '--x'") become our one line, with the
      // next step; help it prints (e.g. `medchat config` alone) goes out as it is.
      outputError: (s, write) => {
        const line = commanderMessage(s.trim().replace(/^error: /, ''));
        if (line) write(`medchat: ${sanitizeLine(line)}${cliHelpText.seeHelp(commandPath(cmd))}\n`);
      },
    });
  }
  try {
    await program.parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help') {
        process.exitCode = 0;
        return;
      }
      process.exitCode = ExitCode.usage;
      return;
    }
    const e = toMedchatError(err);
    report(e);
    process.exitCode = e.exitCode;
  }
}

