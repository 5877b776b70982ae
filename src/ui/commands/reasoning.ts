import type { SlashCommand } from './types.js';

export const reasoning: SlashCommand = {
  name: 'reasoning',
  help: 'show or hide the reasoning of every answer (Ctrl+O)',
  run(chat) {
    chat.toggleReasoning();
  },
};
