import { formatTokens, meterText } from '../text/format.js';
import type { SlashCommand } from './types.js';

export const tokens: SlashCommand = {
  name: 'tokens',
  help: 'token use: the last answer, this conversation, the context window',
  run(chat) {
    const turns = chat.conversation.turns;
    const last = [...turns].reverse().find((t) => t.usage);
    const sent = turns.reduce((n, t) => n + (t.usage?.prompt_tokens ?? 0), 0);
    const got = turns.reduce((n, t) => n + (t.usage?.completion_tokens ?? 0), 0);
    const meter = chat.snapshot().meter;
    chat.notice(
      [
        last?.usage ? `last answer: ${last.usage.prompt_tokens} in · ${last.usage.completion_tokens} out` : 'no usage reported yet',
        `this conversation: ${formatTokens(sent)} sent · ${formatTokens(got)} received over ${turns.length} question${turns.length === 1 ? '' : 's'}`,
        `context: ${meterText(meter).text} · answers may use up to ${chat.settings.maxTokens} tokens`,
      ].join('\n'),
    );
  },
};
