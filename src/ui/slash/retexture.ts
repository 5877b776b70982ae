import { retextureRefusal } from '../../core/config/policy.js';
import type { SlashCommand } from './types.js';
import { uiSlashText } from '../../core/i18n/messages/ui-slash.js';

export const retexture: SlashCommand = {
  name: 'retexture',
  args: '<image> <prompt>',
  get help() {
    return uiSlashText.retextureHelp;
  },
  idleOnly: true,
  run(chat, args) {
    const refusal = retextureRefusal();
    if (refusal) return chat.notice(refusal, 'error');
    return chat.retexture(args);
  },
};
