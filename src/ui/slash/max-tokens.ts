import { policyForbids } from '../../core/config/settings.js';
import type { SlashCommand } from './types.js';

export const maxTokens: SlashCommand = {
  name: 'max-tokens',
  args: '<n>',
  help: 'most tokens an answer may use (reasoning included)',
  run(chat, args) {
    if (!args) return chat.notice(`max tokens: ${chat.settings.maxTokens}`);
    const n = Number(args.replace(/[_,]/g, '').replace(/k$/i, '000'));
    if (!Number.isInteger(n) || n < 1 || n >= chat.settings.contextWindow) {
      return chat.notice(`usage: /max-tokens <n>, a whole number from 1 to ${chat.settings.contextWindow - 1}`, 'warn');
    }
    const forbidden = policyForbids('max-tokens', n);
    if (forbidden) return chat.notice(forbidden, 'warn');
    chat.setMaxTokens(n);
    chat.notice(`max tokens: ${n}`);
  },
};
