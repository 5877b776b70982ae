import type { SlashCommand } from './types.js';

export const compact: SlashCommand = {
  name: 'compact',
  help: 'summarise earlier turns now (the last two exchanges stay word for word)',
  idleOnly: true,
  run(chat) {
    return chat.compact();
  },
};
