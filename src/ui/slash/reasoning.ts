import type { SlashCommand } from './types.js';

export const reasoning: SlashCommand = {
  name: 'reasoning',
  help: 'read the conversation with every answer\'s reasoning, full screen (Ctrl+O; q leaves)',
  run(chat) {
    chat.openTranscript();
  },
};
