import type { SlashCommand } from './types.js';
import { uiSlashText } from '../../core/i18n/messages/ui-slash.js';

export const retry: SlashCommand = {
  name: 'retry',
  get help() {
    return uiSlashText.retryHelp;
  },
  idleOnly: true,
  run(chat) {
    if (!chat.retry()) chat.notice(uiSlashText.nothingToRetry, 'warn');
  },
};
