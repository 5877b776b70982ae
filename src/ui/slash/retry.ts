import type { SlashCommand } from './types.js';

export const retry: SlashCommand = {
  name: 'retry',
  help: 'ask the last question again',
  idleOnly: true,
  run(chat) {
    if (!chat.retry()) chat.notice('nothing to retry yet', 'warn');
  },
};
