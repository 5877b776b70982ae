import type { SlashCommand } from './types.js';

export const resume: SlashCommand = {
  name: 'resume',
  args: '<id|prefix>',
  help: 'switch to a saved conversation (see /sessions)',
  idleOnly: true,
  run(chat, args) {
    if (!args) return chat.notice('usage: /resume <id or prefix>; /sessions lists them', 'warn');
    chat.resumeSession(args);
  },
};
