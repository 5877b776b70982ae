import { MedchatError, usageError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import { maskKey, registerSecret } from './secret-redactor.js';
import { configText } from '../i18n/messages/config.js';

/** Where a key came from: says where to fix it when it cannot be used. */
export type KeySource =
  | { kind: 'flag' }
  | { kind: 'env'; name: string }
  | { kind: 'file'; path: string }
  | { kind: 'command' }
  | { kind: 'input' };

/**
 * The key from a text that may hold more: the first line, trimmed, the way `pass -c` takes a
 * password (`pass show` prints `login: …` and other lines after it). A key that still cannot be
 * sent as an HTTP header (a space, a control character, a character outside visible ASCII) is
 * refused here with a usage error that shows it masked, so it never reaches a request.
 * Returns '' when there is no text.
 */
export function keyFromText(raw: string, source: KeySource): string {
  const key = (raw.trim().split(/\r\n|\r|\n/)[0] ?? '').trim();
  if (!key) return '';
  const bad = /[^\x21-\x7e]/.exec(key);
  if (bad) {
    registerSecret(key);
    throw usageError(configText.keyUnusable(where(source), maskKey(key), problem(bad[0]), fix(source)));
  }
  return key;
}

function problem(ch: string): string {
  if (ch === ' ' || ch === '\t' || /\s/.test(ch)) return configText.keyHasSpace;
  const code = ch.codePointAt(0) ?? 0;
  if (code < 0x20 || (code >= 0x7f && code <= 0x9f)) return configText.keyHasControl;
  return configText.keyHasNonAscii;
}

function where(source: KeySource): string {
  switch (source.kind) {
    case 'flag':
      return configText.keyFromFlag;
    case 'env':
      return configText.keyIn(source.name);
    case 'file':
      return configText.keyIn(source.path);
    case 'command':
      return configText.keyFromCommand;
    case 'input':
      return configText.keyFromInput;
  }
}

function fix(source: KeySource): string {
  switch (source.kind) {
    case 'flag':
      return configText.keyFixFlag;
    case 'env':
      return configText.keyFixEnv(source.name);
    case 'file':
    case 'input':
      return configText.keyFixFile;
    case 'command':
      return configText.keyFixCommand;
  }
}

/**
 * The service refused the key (401/403): one line that names where this key came from and how
 * to fix it there. A key from MEDCHAT_API_KEY is not fixed by `config set api-key` (the variable
 * wins over the file), so each source gets its own fix.
 */
export function refusedKeyError(status: number, reason: string, source: KeySource | undefined): MedchatError {
  return new MedchatError(configText.keyRefused(status, reason, refusedKeyFix(source)), ExitCode.auth, 'auth');
}

function refusedKeyFix(source: KeySource | undefined): string {
  switch (source?.kind) {
    case 'env':
      return configText.refusedFromEnv(source.name);
    case 'flag':
      return configText.refusedFromFlag;
    case 'command':
      return configText.refusedFromCommand;
    case 'file':
      return configText.refusedFromFile(source.path);
    default:
      return configText.refusedFix;
  }
}
