import type { SlashCommand } from './types.js';

export const system: SlashCommand = {
  name: 'system',
  args: '[text|none]',
  help: 'show or set the system prompt (none removes it)',
  run(chat, args) {
    if (!args) {
      const s = chat.conversation.system;
      return chat.notice(s ? `system prompt:\n${s}` : 'no system prompt; set one with /system <text>');
    }
    if (args === 'none' || args === 'off') {
      chat.setSystem(undefined);
      return chat.notice('system prompt removed');
    }
    chat.setSystem(args);
    chat.notice('system prompt set; it is sent with every question from now on');
  },
};
