import type { SlashCommand } from './types.js';

export const retexture: SlashCommand = {
  name: 'retexture',
  args: '<image> <prompt>',
  help: 'send a picture (file or link) with a prompt; shows progress, the URL and a preview',
  idleOnly: true,
  run(chat, args) {
    return chat.retexture(args);
  },
};
