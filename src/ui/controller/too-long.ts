import { TooLongError, type MedchatError } from '../../core/errors.js';
import { formatTokens, formatWindow } from '../../core/text/format.js';

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
        reason: `too long to send: about ${formatTokens(tokens)} tokens; the ${w} window has room for ${formatTokens(budget)} after ${formatTokens(maxTokens)} for the answer`,
        advice: 'shorten it, or lower /max-tokens',
      };
    }
    if (what === 'conversation') {
      return {
        reason: `too long to send: about ${formatTokens(tokens)} tokens with the conversation so far + ${formatTokens(maxTokens)} for the answer > the ${w} window`,
        advice: 'shorten it, start over with /new, or lower /max-tokens',
      };
    }
    return { reason: `not sent: /max-tokens ${maxTokens} leaves no room for a question in the ${w} window`, advice: 'lower /max-tokens first' };
  }
  if (err.kind === 'context-length') return { reason: err.message, advice: 'shorten it, or start over with /new' };
  return undefined;
}
