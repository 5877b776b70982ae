import type { WireMessage } from '../../chat/chat-request.js';
import { usageError } from '../../errors.js';
import { formatTokens, formatWindow } from '../../text/format.js';
import { countMessages, countText, loadTokenizer, upperBound } from '../../context/tokens.js';
import type { InputFile } from './files.js';
import { requestText } from '../../i18n/messages/request.js';

/**
 * Files too big for the context window are refused before anything is sent (or saved), with the
 * numbers: each file's tokens, the whole request's, and the room the window leaves after
 * `max_tokens`. The UTF-8 size bounds the token count from above, so a request that fits by that
 * bound needs no tokenizer; otherwise o200k counts it (the service's own count may differ a
 * little: this is an estimate, and the service still has the last word).
 */
export async function refuseFilesThatCannotFit(
  messages: readonly WireMessage[],
  files: readonly InputFile[],
  limits: { contextWindow: number; maxTokens: number },
): Promise<void> {
  if (files.length === 0) return;
  const budget = limits.contextWindow - limits.maxTokens;
  if (upperBound(messages) <= budget) return;
  await loadTokenizer();
  const total = countMessages(messages);
  if (total <= budget) return;
  const each = files.map((f) => `${f.name} ${formatTokens(countText(f.text))}`).join(', ');
  throw usageError(
    requestText.filesTooBig(each, formatTokens(total), formatWindow(limits.contextWindow), formatTokens(Math.max(0, budget)), formatTokens(limits.maxTokens)),
  );
}
