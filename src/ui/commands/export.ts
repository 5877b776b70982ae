import { exportConversation } from '../export.js';
import type { SlashCommand } from './types.js';

export const exportCommand: SlashCommand = {
  name: 'export',
  args: '[file.md|file.json]',
  help: 'save the conversation, with reasoning (default: medchat-<date>.md here)',
  run(chat, args) {
    if (chat.conversation.turns.length === 0) return chat.notice('nothing to export yet', 'warn');
    const file = exportConversation(chat.conversation, chat.settings.model, args || undefined);
    chat.notice(`saved ${file}`);
  },
};
