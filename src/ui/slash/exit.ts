import type { SlashCommand } from './types.js';

export const exit: SlashCommand = {
  name: 'exit',
  aliases: ['quit', 'q'],
  help: 'leave medchat',
  whileStreaming: true,
  run(chat) {
    chat.requestExit();
  },
};
