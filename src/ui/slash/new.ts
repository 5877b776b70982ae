import type { SlashCommand } from './types.js';
import { uiSlashText } from '../../core/i18n/messages/ui-slash.js';

export const newConversation: SlashCommand = {
  name: 'new',
  aliases: ['clear'],
  get help() {
    return uiSlashText.newHelp;
  },
  whileStreaming: true,
  run(chat) {
    return chat.newConversation();
  },
};
