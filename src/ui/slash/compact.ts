import type { SlashCommand } from './types.js';

export const compact: SlashCommand = {
  name: 'compact',
  help: 'summarise earlier turns now, only if the summary keeps every allergy, dose and age (the last two exchanges stay word for word)',
  idleOnly: true,
  run(chat) {
    return chat.compact();
  },
};
