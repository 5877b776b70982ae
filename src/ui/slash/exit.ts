import type { SlashCommand } from './types.js';
import { uiSlashText } from '../../core/i18n/messages/ui-slash.js';

export const exit: SlashCommand = {
  name: 'exit',
  aliases: ['quit', 'q'],
  get help() {
    return uiSlashText.exitHelp;
  },
  whileStreaming: true,
  run(chat) {
    chat.requestExit();
  },
};
