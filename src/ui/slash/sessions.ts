import type { SlashCommand } from './types.js';

export const sessions: SlashCommand = {
  name: 'sessions',
  help: 'list recent saved conversations: id, date, turns, first question',
  run(chat) {
    chat.notice(chat.sessionsText());
  },
};
