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
import { chooseLanguage, setLanguage } from '../core/i18n/language.js';
import { configuredLanguage } from '../core/config/config-store.js';
import { screenReaderText } from '../core/i18n/messages/ui-screen-reader.js';

function buildProgram(): Command {
  const program = new Command('medchat');
  program
    // Options after a subcommand name belong to the subcommand (`medchat retexture --json …`).
    .enablePositionalOptions()
    .description('A terminal client for the medical chat service: chat, one-shot answers for scripts, image retexture jobs.')
    .version(VERSION, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .argument('[prompt...]', 'a question: answers once on stdout (no prompt on a terminal opens the chat screen)')
    .option('-p, --prompt <text>', 'the question (same as the positional prompt)')
    .option('-s, --system <text>', 'system prompt')
    .option('--think', 'ask the model to reason first (default: config `thinking`, on)')
    .option('--no-think', 'answer without reasoning (faster)')
    .option('--max-tokens <n>', 'most tokens the answer may use (default 8192)')
    .option('--temperature <n>', 'sampling temperature (default: the service default)')
    .option('--top-p <n>', 'nucleus sampling (default: the service default)')
    .option('-m, --model <name>', 'model (default medical-large-latest)')
    .option('--no-stream', 'wait for the whole answer instead of streaming it')
    .option('--idle-timeout <seconds>', 'give up when no data arrives for this long (default 120)')
    .addOption(new Option('--reasoning <mode>', 'show reasoning on stderr, or hide it').choices(['show', 'hide']).default('show'))
    .option('--json', 'print one JSON object at the end: id, model, content, reasoning, usage, finish_reason')
    .option('--jsonl', 'print one JSON event per line as the answer streams')
    .option('--no-stdin', 'ignore piped stdin')
    .option('-c, --continue', 'continue the last conversation (one-shot and chat screen)')
    .option('--resume <id>', 'continue a saved conversation (see medchat sessions list)')
    .option('--incognito', 'save nothing on disk: no session, no prompt history')
    .option('--screen-reader', screenReaderText.flagOn)
    .option('--no-screen-reader', screenReaderText.flagOff);
  addScriptOptions(program); // -r/--role, --schema, --schema-multi, -f/--file
  addPrivacyOptions(program); // --privacy, --shift-dates
  addServiceOptions(program);
  program.addHelpText(
    'after',
    `
Examples:
  medchat                                  open the chat screen
  medchat "what is the normal adult heart rate?"
  cat notes.txt | medchat "summarise this"
  medchat --json -p "list three causes of chest pain" | jq -r .content
  medchat -c "and what if she is pregnant?"   continue the last conversation
  medchat retexture --image scan.png "make it a watercolour" --wait
  medchat --schema 'name, dose_mg number, route' "list the medications" < note.txt
  medchat -r soap -f notes.txt              a role (medchat roles list) and a file
  medchat batch questions.jsonl -o answers.jsonl

Exit codes: 0 answered, 1 service or network failure, 2 usage or configuration error,
3 key refused, 4 answer cut off, 8 answer ended early, 9 not valid JSON for --schema,
130 interrupted. See the README for all of them.`,
  );

  program.action(async (words: string[], o: ChatFlags) => {
    const { runChatEntry } = await import('./chat-entry.js');
    process.exitCode = await runChatEntry(words, o);
  });

  const config = program.command('config').description('show or change settings (stored 0600 in your config folder)');
  config.command('set <key> [value]').description('set a key (api-key with no value reads it from stdin)').option('--yes', 'encrypt off: decrypt saved history without asking').action(async (k: string, v: string | undefined, o: { yes?: boolean }) => {
    const { configCommand } = await import('./commands/config.js');
    process.exitCode = await configCommand('set', k, v, o);
  });
  config.command('get <key>').description('print one key (secrets masked)').action(async (k: string) => {
    const { configCommand } = await import('./commands/config.js');
    process.exitCode = await configCommand('get', k, undefined);
  });
  config.command('unset <key>').description('remove a key, back to its default').option('--yes', 'encrypt: decrypt saved history without asking').action(async (k: string, o: { yes?: boolean }) => {
    const { configCommand } = await import('./commands/config.js');
    process.exitCode = await configCommand('unset', k, undefined, o);
  });
  config.command('list').description('print every key and its value (secrets masked)').action(async () => {
    const { configCommand } = await import('./commands/config.js');
    process.exitCode = await configCommand('list', undefined, undefined);
  });
  config.command('path').description('print where the config file is').action(async () => {
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
  setLanguage(chooseLanguage({ configured: process.env.MEDCHAT_LANG ? undefined : configuredLanguage() }).language);
  // The audit log's lines carry the version; a failed audit write is one warning line (the chat screen shows it as a notice).
  configureAudit({ version: VERSION, warn: (line) => process.stderr.write(`medchat: warning: ${sanitizeLine(line)}\n`) });
  const program = buildProgram();
  // Every command, subcommands of subcommands included (commander copies these settings only to
  // commands made after them): a usage error is our one line with the next step, exit 2.
  const everyCommand = (cmd: Command): Command[] => [cmd, ...cmd.commands.flatMap(everyCommand)];
  for (const cmd of everyCommand(program)) {
    cmd.exitOverride();
    cmd.configureOutput({
      // commander's own error messages ("error: unknown option '--x'") become our one line, with the
      // next step; help it prints (e.g. `medchat config` alone) goes out as it is.
      outputError: (s, write) => {
        const line = s.trim().replace(/^error: /, '');
        if (line) write(`medchat: ${sanitizeLine(line)} (see ${commandPath(cmd)} --help)\n`);
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

