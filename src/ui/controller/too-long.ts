import { TooLongError, type MedchatError } from '../../core/errors.js';
import { formatTokens, formatWindow } from '../../core/text/format.js';
import { uiChatText } from '../../core/i18n/messages/ui-chat.js';

/**
 * A question that cannot be sent as it is (too long for the context window, by medchat's count
 * or the service's): why, in one line with the numbers, and what to change. /retry would be
 * refused the same way, so the chat screen puts the question back in the box instead.
 */
export interface TooLong {
  reason: string;
  advice: string;
}

export function tooLong(err: MedchatError): TooLong | undefined {
  if (err instanceof TooLongError) {
    const { what, tokens, window, maxTokens, budget } = err.fit;
    const w = formatWindow(window);
    if (what === 'message') {
      return {
        reason: uiChatText.tooLongMessage(formatTokens(tokens), w, formatTokens(budget), formatTokens(maxTokens)),
        advice: uiChatText.shortenOrLower,
      };
    }
    if (what === 'conversation') {
      return {
        reason: uiChatText.tooLongConversation(formatTokens(tokens), formatTokens(maxTokens), w),
        advice: uiChatText.shortenNewOrLower,
      };
    }
    return { reason: uiChatText.noRoom(maxTokens, w), advice: uiChatText.lowerFirst };
  }
  if (err.kind === 'context-length') return { reason: err.message, advice: uiChatText.shortenOrNew };
  return undefined;
}
