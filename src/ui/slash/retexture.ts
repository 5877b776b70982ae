import { retextureRefusal } from '../../core/config/policy.js';
import type { SlashCommand } from './types.js';

export const retexture: SlashCommand = {
  name: 'retexture',
  args: '<image> <prompt>',
  help: 'send a picture (file or link) with a prompt; shows progress, the URL and a preview',
  idleOnly: true,
  run(chat, args) {
    const refusal = retextureRefusal();
    if (refusal) return chat.notice(refusal, 'error');
    return chat.retexture(args);
  },
};
