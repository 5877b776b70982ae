import { formatTokens } from '../../core/text/format.js';
import type { SlashCommand } from './types.js';

export const tokens: SlashCommand = {
  name: 'tokens',
  help: 'where the context window goes: system prompt, summary, kept turns, next question, max_tokens, room left',
  run(chat) {
    const last = [...chat.conversation.turns].reverse().find((t) => t.usage)?.usage;
    const lastLine = last ? `last answer: ${formatTokens(last.prompt_tokens)} in · ${formatTokens(last.completion_tokens)} out` : 'no usage reported yet';
    chat.notice(`${chat.tokensText()}\n${lastLine}`);
  },
};
