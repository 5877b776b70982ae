/**
 * Options for scripts and research: roles, schemas and file inputs. Defined here, not in cli/program.ts,
 * so the one-shot command and `batch` add the same options the same way.
 */
import type { Command } from 'commander';
import { cliHelpText } from '../../core/i18n/messages/cli-help.js';

export interface ScriptFlags {
  role?: string;
  schema?: string;
  schemaMulti?: boolean;
  file?: string[];
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

export function addRoleOption(cmd: Command): Command {
  return cmd.option('-r, --role <name>', cliHelpText.role);
}

export function addSchemaOptions(cmd: Command): Command {
  return cmd
    .option('--schema <file|fields>', cliHelpText.schema)
    .option('--schema-multi', cliHelpText.schemaMulti);
}

function addFileOption(cmd: Command): Command {
  return cmd.option('-f, --file <path>', cliHelpText.file, collect);
}

export function addScriptOptions(cmd: Command): Command {
  return addFileOption(addSchemaOptions(addRoleOption(cmd)));
}
