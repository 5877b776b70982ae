/**
 * commander's own words in the user's language: the help headings ("Usage:", "Options:"…), the help
 * command's description, its error messages (unknown option, missing argument…), and help laid out
 * by terminal cells, so Chinese (2 cells a character, few spaces) wraps at 80 columns as English does.
 */
import { Help, type Command, type Option, type Argument } from 'commander';
import { cliHelpText } from '../core/i18n/messages/cli-help.js';
import { language } from '../core/i18n/language.js';
import { textWidth, wrapLine } from '../core/text/width.js';

/** The headings commander passes to styleTitle, and what each is in the catalogue. */
const HEADINGS: Record<string, () => string> = {
  'Usage:': () => cliHelpText.usage,
  'Options:': () => cliHelpText.options,
  'Commands:': () => cliHelpText.commands,
  'Arguments:': () => cliHelpText.arguments,
  'Global Options:': () => cliHelpText.globalOptions,
};

/**
 * commander's boxWrap, by the screen's own wrap (core/text/width.ts wrapLine): measured in cells, breaking
 * between CJK characters, never before a closing mark or after an opening one.
 */
function boxWrap(this: Help, str: string, width: number): string {
  if (width < this.minWidthToWrap) return str;
  return str
    .split(/\r\n|\n/)
    .flatMap((line) => wrapLine(line, width))
    .join('\n');
}

/** Help in the current language, for `cmd` (each command: commander copies settings only to commands made after). */
export function localiseHelp(cmd: Command): void {
  cmd.configureHelp({
    styleTitle: (title: string) => HEADINGS[title]?.() ?? title,
    displayWidth: (s: string) => textWidth(s),
    boxWrap,
    // "用法：medchat …": no space after a full-width colon (commander puts one after "Usage:").
    formatHelp(this: Help, command: Command, helper: Help) {
      return Help.prototype.formatHelp.call(this, command, helper).replace(/^(\S+：) /, '$1');
    },
    optionDescription: (option: Option) => extras(Help.prototype.optionDescription.call(new Help(), option)),
    argumentDescription: (argument: Argument) => extras(Help.prototype.argumentDescription.call(new Help(), argument)),
  });
  if (cmd.commands.length > 0) cmd.helpCommand('help [command]', cliHelpText.helpForCommand);
}

/** commander's "(choices: …, default: …)" after a description, in the current language. */
function extras(description: string): string {
  if (language() === 'en') return description;
  return description.replace(/ ?\(((?:choices|default): .*)\)$/, (_all, inner: string) => {
    const shown = inner
      .replace(/^choices: /, cliHelpText.choices)
      .replace(/^default: /, cliHelpText.defaultValue)
      .replace(/, default: /, `；${cliHelpText.defaultValue}`);
    return `（${shown}）`;
  });
}

/** commander's error message (without "error: ") in the current language; one it does not know stays as it is. */
export function commanderMessage(message: string): string {
  if (language() === 'en') return message;
  const [first = '', ...rest] = message.split('\n');
  const t = cliHelpText;
  let m: RegExpMatchArray | null;
  let line = first;
  if ((m = first.match(/^unknown option '(.*)'$/))) line = t.unknownOption(m[1]!);
  else if ((m = first.match(/^unknown command '(.*)'$/))) line = t.unknownCommand(m[1]!);
  else if ((m = first.match(/^missing required argument '(.*)'$/))) line = t.missingArgument(m[1]!);
  else if ((m = first.match(/^option '(.*)' argument missing$/))) line = t.optionArgumentMissing(m[1]!);
  else if ((m = first.match(/^required option '(.*)' not specified$/))) line = t.requiredOption(m[1]!);
  else if ((m = first.match(/^option '(.*)' argument '(.*)' is invalid\. Allowed choices are (.*)\.$/))) line = t.invalidOptionValue(m[1]!, m[2]!, m[3]!);
  else if ((m = first.match(/^too many arguments(?: for '(.*)')?\. Expected (\d+) arguments? but got (\d+)\.$/))) line = t.tooManyArguments(m[1] ?? '', m[2]!, m[3]!);
  else if ((m = first.match(/^(.*) cannot be used with (.*)$/))) line = t.conflictingOptions(m[1]!, m[2]!);
  const after = rest.map((r) => {
    const s = r.match(/^\(Did you mean one of (.*)\?\)$/);
    if (s) return t.didYouMeanOneOf(s[1]!);
    const one = r.match(/^\(Did you mean (.*)\?\)$/);
    return one ? t.didYouMean(one[1]!) : r;
  });
  return [line, ...after].join('');
}
