import { compact } from './compact.js';
import { copy } from './copy.js';
import { exit } from './exit.js';
import { exportCommand } from './export.js';
import { help } from './help.js';
import { maxTokens } from './max-tokens.js';
import { newConversation } from './new.js';
import { reasoning } from './reasoning.js';
import { resume } from './resume.js';
import { retexture } from './retexture.js';
import { retry } from './retry.js';
import { role } from './role.js';
import { sessions } from './sessions.js';
import { system } from './system.js';
import { think } from './think.js';
import { tokens } from './tokens.js';
import type { SlashCommand } from './types.js';

export type { SlashCommand } from './types.js';

/** Every slash command, in the order /help lists them. */
export const COMMANDS: readonly SlashCommand[] = [
  help,
  newConversation,
  think,
  system,
  role,
  maxTokens,
  retry,
  copy,
  exportCommand,
  tokens,
  compact,
  sessions,
  resume,
  retexture,
  reasoning,
  exit,
];

export function findCommand(commands: readonly SlashCommand[], name: string): SlashCommand | undefined {
  const n = name.toLowerCase();
  return commands.find((c) => c.name === n || c.aliases?.includes(n));
}

/**
 * The menu while typing `/na…`: commands whose name (or an alias) starts with what was typed, in
 * /help order, but one named exactly that first.
 */
export function matchCommands(commands: readonly SlashCommand[], typed: string): SlashCommand[] {
  const m = /^\/(\S*)$/.exec(typed);
  if (!m) return [];
  const prefix = m[1]!.toLowerCase();
  const found = commands.filter((c) => c.name.startsWith(prefix) || c.aliases?.some((a) => a.startsWith(prefix) && prefix.length > 0));
  const exact = found.findIndex((c) => c.name === prefix || c.aliases?.includes(prefix));
  return exact > 0 ? [found[exact]!, ...found.filter((_, i) => i !== exact)] : found;
}
