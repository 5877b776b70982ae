/**
 * Options for scripts and research: roles, schemas and file inputs. Defined here, not in cli/program.ts,
 * so the one-shot command and `batch` add the same options the same way.
 */
import type { Command } from 'commander';

export interface ScriptFlags {
  role?: string;
  schema?: string;
  schemaMulti?: boolean;
  file?: string[];
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

export function addRoleOption(cmd: Command): Command {
  return cmd.option('-r, --role <name>', 'use a role: a system prompt plus settings (see medchat roles list)');
}

export function addSchemaOptions(cmd: Command): Command {
  return cmd
    .option('--schema <file|fields>', "answer with one JSON value valid against a JSON Schema file, or inline fields: 'name, dose_mg number, route'")
    .option('--schema-multi', 'with inline fields: an array of such objects');
}

function addFileOption(cmd: Command): Command {
  return cmd.option('-f, --file <path>', 'send a text file with the question (repeatable; - reads stdin)', collect);
}

export function addScriptOptions(cmd: Command): Command {
  return addFileOption(addSchemaOptions(addRoleOption(cmd)));
}
