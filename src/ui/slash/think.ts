import type { SlashCommand } from './types.js';
import { uiSlashText } from '../../core/i18n/messages/ui-slash.js';

export const think: SlashCommand = {
  name: 'think',
  args: 'on|off',
  get help() {
    return uiSlashText.thinkHelp;
  },
  run(chat, args) {
    const a = args.toLowerCase();
    const on = a === '' ? !chat.settings.thinking : a === 'on' || a === 'true' || a === 'yes' ? true : a === 'off' || a === 'false' || a === 'no' ? false : undefined;
    if (on === undefined) return chat.notice(uiSlashText.thinkUsage, 'warn');
    chat.setThinking(on);
    chat.notice(on ? uiSlashText.thinkOn : uiSlashText.thinkOff);
  },
};
