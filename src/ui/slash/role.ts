import { currentRoleSettings, roleSettings } from '../../core/request/roles/active.js';
import { listRoles, loadRole } from '../../core/request/roles/store.js';
import { wrapLine } from '../../core/text/width.js';
import { twoColumns } from './help.js';
import type { SlashCommand } from './types.js';
import { uiSlashText } from '../../core/i18n/messages/ui-slash.js';

export const role: SlashCommand = {
  name: 'role',
  args: '[name|off]',
  get help() {
    return uiSlashText.roleHelp;
  },
  idleOnly: true,
  async run(chat, args) {
    const current = chat.role?.name;
    if (!args) {
      // Laid out like /help: a description too long for its row wraps under itself, never back to column 0.
      const width = chat.snapshot().columns;
      const rows = listRoles().map((e) => [`${e.name === current ? '●' : ' '} ${e.name}`, e.problem ? uiSlashText.cannotBeUsed(e.problem) : (e.role?.description ?? '')] as const);
      const use = uiSlashText.roleUse;
      return chat.notice([uiSlashText.roles(current), ...twoColumns(rows, width), ...wrapLine(use, width)].join('\n'));
    }
    // Thinking chosen with /think in this screen is the user's word, as a --think flag is on the
    // command line: a role (or leaving one) does not turn it back, and the line says so.
    const chosen = chat.thinkingChoice;
    const keep = (thinking: boolean) => (chosen === undefined ? { thinking, kept: false } : { thinking: chosen, kept: chosen !== thinking });
    const onOff = (on: boolean) => uiSlashText.onOff(on);
    if (/^(off|none)$/i.test(args)) {
      if (!chat.role) return chat.notice(uiSlashText.noRole);
      const t = keep(chat.role.base.thinking);
      chat.setRole(undefined, { ...chat.role.base, thinking: t.thinking });
      const kept = t.kept ? uiSlashText.thinkingStays(onOff(t.thinking)) : '';
      return chat.notice(uiSlashText.roleOff(current ?? '', kept));
    }
    const r = loadRole(args); // an unknown name: one line naming the roles there are
    const base = chat.role?.base ?? currentRoleSettings(chat.settings, chat.conversation.system);
    const wanted = await roleSettings(r, base, chat.settings);
    const t = keep(wanted.thinking);
    const use = { ...wanted, thinking: t.thinking };
    chat.setRole({ name: r.name, base }, use);
    const thinking = t.kept ? uiSlashText.thinkingKept(onOff(t.thinking), onOff(wanted.thinking)) : uiSlashText.thinkingIs(onOff(use.thinking));
    const parts = [thinking, uiSlashText.maxTokensIs(use.maxTokens)];
    if (use.temperature !== undefined) parts.push(uiSlashText.temperatureIs(use.temperature));
    const schema = r.schema ? uiSlashText.roleSchema : '';
    chat.notice(uiSlashText.roleOn(r.name, r.description || uiSlashText.inUse, parts.join(' · '), schema));
  },
};
