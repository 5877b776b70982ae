import type { SlashCommand } from './types.js';
import { uiSlashText } from '../../core/i18n/messages/ui-slash.js';

export const resume: SlashCommand = {
  name: 'resume',
  args: '<id|prefix>',
  get help() {
    return uiSlashText.resumeHelp;
  },
  idleOnly: true,
  run(chat, args) {
    if (!args) return chat.notice(uiSlashText.resumeUsage, 'warn');
    chat.resumeSession(args);
  },
};
