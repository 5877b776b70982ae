import { currentRoleSettings, roleSettings } from '../../core/roles/active.js';
import { listRoles, loadRole } from '../../core/roles/store.js';
import { wrapLine } from '../text/width.js';
import { twoColumns } from './help.js';
import type { SlashCommand } from './types.js';

export const role: SlashCommand = {
  name: 'role',
  args: '[name|off]',
  help: 'use a role (system prompt + settings, e.g. soap, ddx, explain), list them, or turn it off',
  idleOnly: true,
  async run(chat, args) {
    const current = chat.role?.name;
    if (!args) {
      // Laid out like /help: a description too long for its row wraps under itself, never back to column 0.
      const width = chat.snapshot().columns;
      const rows = listRoles().map((e) => [`${e.name === current ? '●' : ' '} ${e.name}`, e.problem ? `(cannot be used: ${e.problem})` : (e.role?.description ?? '')] as const);
      const use = 'Use one with /role <name>; /role off goes back to none. Edit them with: medchat roles edit <name>';
      return chat.notice([`Roles${current ? ` (in use: ${current})` : ''}:`, ...twoColumns(rows, width), ...wrapLine(use, width)].join('\n'));
    }
    if (/^(off|none)$/i.test(args)) {
      if (!chat.role) return chat.notice('no role in use');
      chat.setRole(undefined, chat.role.base);
      return chat.notice(`role ${current} off: the system prompt and settings are back to what they were`);
    }
    const r = loadRole(args); // an unknown name: one line naming the roles there are
    const base = chat.role?.base ?? currentRoleSettings(chat.settings, chat.conversation.system);
    const use = await roleSettings(r, base, chat.settings);
    chat.setRole({ name: r.name, base }, use);
    const parts = [`thinking ${use.thinking ? 'on' : 'off'}`, `max tokens ${use.maxTokens}`];
    if (use.temperature !== undefined) parts.push(`temperature ${use.temperature}`);
    const schema = r.schema ? '; it asks for JSON matching its schema (validated only in one-shot and batch)' : '';
    chat.notice(`role ${r.name}: ${r.description || 'in use'} · ${parts.join(' · ')}${schema}`);
  },
};
