import type { SlashCommand } from './types.js';

export const newConversation: SlashCommand = {
  name: 'new',
  aliases: ['clear'],
  help: 'start over (the system prompt and settings stay)',
  whileStreaming: true,
  run(chat) {
    return chat.newConversation();
  },
};
