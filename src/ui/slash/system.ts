import type { SlashCommand } from './types.js';
import { uiSlashText } from '../../core/i18n/messages/ui-slash.js';

export const system: SlashCommand = {
  name: 'system',
  args: '[text|none]',
  get help() {
    return uiSlashText.systemHelp;
  },
  run(chat, args) {
    if (!args) {
      const s = chat.conversation.system;
      return chat.notice(s ? uiSlashText.systemIs(s) : uiSlashText.noSystem);
    }
    if (args === 'none' || args === 'off') {
      chat.setSystem(undefined);
      return chat.notice(uiSlashText.systemRemoved);
    }
    chat.setSystem(args);
    chat.notice(uiSlashText.systemSet);
  },
};
