import { currentRoleSettings, roleSettings } from '../../core/request/roles/active.js';
import { listRoles, loadRole } from '../../core/request/roles/store.js';
import { wrapLine } from '../../core/text/width.js';
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
    // Thinking chosen with /think in this screen is the user's word, as a --think flag is on the
    // command line: a role (or leaving one) does not turn it back, and the line says so.
    const chosen = chat.thinkingChoice;
    const keep = (thinking: boolean) => (chosen === undefined ? { thinking, kept: false } : { thinking: chosen, kept: chosen !== thinking });
    const onOff = (on: boolean) => (on ? 'on' : 'off');
    if (/^(off|none)$/i.test(args)) {
      if (!chat.role) return chat.notice('no role in use');
      const t = keep(chat.role.base.thinking);
      chat.setRole(undefined, { ...chat.role.base, thinking: t.thinking });
      const kept = t.kept ? `; thinking stays ${onOff(t.thinking)}, as you set it with /think` : '';
      return chat.notice(`role ${current} off: the system prompt and settings are back to what they were${kept}`);
    }
    const r = loadRole(args); // an unknown name: one line naming the roles there are
    const base = chat.role?.base ?? currentRoleSettings(chat.settings, chat.conversation.system);
    const wanted = await roleSettings(r, base, chat.settings);
    const t = keep(wanted.thinking);
    const use = { ...wanted, thinking: t.thinking };
    chat.setRole({ name: r.name, base }, use);
    const thinking = t.kept ? `thinking ${onOff(t.thinking)} (as you set it with /think; the role would turn it ${onOff(wanted.thinking)})` : `thinking ${onOff(use.thinking)}`;
    const parts = [thinking, `max tokens ${use.maxTokens}`];
    if (use.temperature !== undefined) parts.push(`temperature ${use.temperature}`);
    const schema = r.schema ? '; it asks for JSON matching its schema (validated only in one-shot and batch)' : '';
    chat.notice(`role ${r.name}: ${r.description || 'in use'} · ${parts.join(' · ')}${schema}`);
  },
};
