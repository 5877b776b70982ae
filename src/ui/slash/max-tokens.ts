import { policyForbids } from '../../core/config/settings.js';
import type { SlashCommand } from './types.js';
import { uiSlashText } from '../../core/i18n/messages/ui-slash.js';

export const maxTokens: SlashCommand = {
  name: 'max-tokens',
  args: '<n>',
  get help() {
    return uiSlashText.maxTokensHelp;
  },
  run(chat, args) {
    if (!args) return chat.notice(uiSlashText.maxTokens(chat.settings.maxTokens));
    const n = Number(args.replace(/[_,]/g, '').replace(/k$/i, '000'));
    if (!Number.isInteger(n) || n < 1 || n >= chat.settings.contextWindow) {
      return chat.notice(uiSlashText.maxTokensUsage(chat.settings.contextWindow - 1), 'warn');
    }
    const forbidden = policyForbids('max-tokens', n);
    if (forbidden) return chat.notice(forbidden, 'warn');
    chat.setMaxTokens(n);
    chat.notice(uiSlashText.maxTokens(n));
  },
};
