/**
 * What the program (cli/program.ts) and the modes it starts share: the chat flags, the options every
 * command that talks to the service takes, and the warning about a key given as a flag. Lives
 * below cli/program.ts, so nothing imports the program back.
 */
import type { Command } from 'commander';
import { assertApiKeyOptionAllowed, apiKeyOptionWarning, type FlagValues } from '../core/config/settings.js';
import { cliHelpText } from '../core/i18n/messages/cli-help.js';

export interface ChatFlags {
  prompt?: string;
  think?: boolean;
  maxTokens?: string;
  temperature?: string;
  topP?: string;
  system?: string;
  model?: string;
  baseUrl?: string;
  apiKey?: string;
  stream: boolean;
  idleTimeout?: string;
  reasoning: 'show' | 'hide';
  json?: boolean;
  jsonl?: boolean;
  stdin: boolean;
  /** Sessions: continue the last conversation, resume one, or save nothing. */
  continue?: boolean;
  resume?: string;
  incognito?: boolean;
  /** `--screen-reader` / `--no-screen-reader`; undefined: INK_SCREEN_READER, then the config key. */
  screenReader?: boolean;
}

export function settingsFlags(o: Partial<ChatFlags>): FlagValues {
  return {
    'base-url': o.baseUrl,
    'api-key': o.apiKey,
    model: o.model,
    'max-tokens': o.maxTokens,
    thinking: o.think,
    temperature: o.temperature,
    'top-p': o.topP,
    'idle-timeout': o.idleTimeout,
  };
}

/** The warning about a key given as a flag; refused instead (exit 2) where the organisation policy turns `--api-key` off. */
export function warnAboutKeyFlag(o: { apiKey?: string }): void {
  assertApiKeyOptionAllowed(o.apiKey !== undefined);
  if (o.apiKey) {
    process.stderr.write(apiKeyOptionWarning());
  }
}

/** Options shared by every command that talks to the service. */
export function addServiceOptions(cmd: Command): Command {
  return cmd
    .option('--base-url <url>', cliHelpText.baseUrl)
    .option('--api-key <key>', cliHelpText.apiKey);
}
