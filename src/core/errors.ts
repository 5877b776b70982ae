import { ExitCode, type ExitCodeValue } from './exit-codes.js';
import { redact } from './config/secret-redactor.js';
import { errorsText } from './i18n/messages/errors.js';

/**
 * A failure the user can act on: one line saying what happened and what to do next,
 * plus the exit code it maps to. Everything that reaches the user as an error is one of these.
 */
export class MedchatError extends Error {
  constructor(
    message: string,
    readonly exitCode: ExitCodeValue = ExitCode.failure,
    readonly kind: string = 'error',
  ) {
    super(redactSecrets(message));
    this.name = 'MedchatError';
  }
}

/**
 * Keys in use in this process (secret-redactor.ts). A service or gateway may echo the key back in
 * an error body ("Incorrect API key provided: sk-…"); every MedchatError message (what the user
 * sees, what `--json` prints, what a session records as the turn's error) shows such a key masked.
 */
export { registerSecret } from './config/secret-redactor.js';

export function redactSecrets(text: string): string {
  return redact(text);
}

export const usageError = (message: string) => new MedchatError(message, ExitCode.usage, 'usage');

/**
 * A question refused before it is sent because it cannot fit the context window (exit 2), with
 * the numbers, so a screen can say it in its own words. `what`: the question alone is too long,
 * the conversation with it is, or max-tokens leaves no room at all.
 */
export interface Fit {
  what: 'message' | 'conversation' | 'no-room';
  /** Estimated prompt tokens (0 for no-room). */
  tokens: number;
  window: number;
  maxTokens: number;
  /** Prompt tokens the window leaves after max-tokens. */
  budget: number;
}

export class TooLongError extends MedchatError {
  constructor(
    message: string,
    readonly fit: Fit,
  ) {
    super(message, ExitCode.usage, 'too-long');
  }
}

/**
 * Keep only the first line of a service-provided text, without markup, cut to a sane length.
 * Keys are masked first and the text is cut after, so a cut never leaves a piece of a key.
 */
export function shortReason(text: string | undefined | null, max = 200): string {
  if (!text) return '';
  let t = String(text);
  if (/<\s*(html|!doctype|head|body)\b/i.test(t)) {
    const title = /<title[^>]*>([^<]*)<\/title>/i.exec(t)?.[1]?.trim();
    return title ? cut(redact(title), max) : '';
  }
  // Cleaned first (a control character inside an echoed key must not hide it), then masked, then cut.
  t = t.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, '').replace(/\s+/g, ' ').trim();
  return cut(redact(t), max);
}

function cut(t: string, max: number): string {
  return t.length > max ? t.slice(0, max - 1) + '…' : t;
}

/** Turn anything thrown into a MedchatError (never a stack trace for the user). */
export function toMedchatError(err: unknown): MedchatError {
  if (err instanceof MedchatError) return err;
  const e = err as { code?: string; message?: string; name?: string } | undefined;
  if (e?.code === 'ERR_INVALID_URL' || e?.name === 'TypeError' && /Invalid URL/.test(e?.message ?? '')) {
    return usageError(errorsText.invalidBaseUrl);
  }
  const msg = shortReason(e?.message ?? String(err)) || errorsText.unexpectedFailure;
  return new MedchatError(errorsText.unexpected(msg), ExitCode.failure);
}
