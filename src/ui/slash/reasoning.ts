import type { SlashCommand } from './types.js';
import { uiSlashText } from '../../core/i18n/messages/ui-slash.js';

export const reasoning: SlashCommand = {
  name: 'reasoning',
  get help() {
    return uiSlashText.reasoningHelp;
  },
  run(chat) {
    chat.openTranscript();
  },
};
