import type { SlashCommand } from './types.js';
import { uiSlashText } from '../../core/i18n/messages/ui-slash.js';

export const compact: SlashCommand = {
  name: 'compact',
  get help() {
    return uiSlashText.compactHelp;
  },
  idleOnly: true,
  run(chat) {
    return chat.compact();
  },
};
