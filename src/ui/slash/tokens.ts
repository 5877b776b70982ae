import { formatTokens } from '../../core/text/format.js';
import type { SlashCommand } from './types.js';
import { uiSlashText } from '../../core/i18n/messages/ui-slash.js';

export const tokens: SlashCommand = {
  name: 'tokens',
  get help() {
    return uiSlashText.tokensHelp;
  },
  run(chat) {
    const last = [...chat.conversation.turns].reverse().find((t) => t.usage)?.usage;
    const lastLine = last ? uiSlashText.lastAnswer(formatTokens(last.prompt_tokens), formatTokens(last.completion_tokens)) : uiSlashText.noUsage;
    chat.notice(`${chat.tokensText()}\n${lastLine}`);
  },
};
