import { MedchatError, usageError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import { maskKey, registerSecret } from './secret-redactor.js';

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
    throw usageError(`the API key ${where(source)} (${maskKey(key)}) ${problem(bad[0])}, so it cannot be sent; ${fix(source)}`);
  }
  return key;
}

function problem(ch: string): string {
  if (ch === ' ' || ch === '\t' || /\s/.test(ch)) return 'has a space in it';
  const code = ch.codePointAt(0) ?? 0;
  if (code < 0x20 || (code >= 0x7f && code <= 0x9f)) return 'has a control character in it';
  return 'has a character that is not plain ASCII in it';
}

function where(source: KeySource): string {
  switch (source.kind) {
    case 'flag':
      return 'given with --api-key';
    case 'env':
      return `in ${source.name}`;
    case 'file':
      return `in ${source.path}`;
    case 'command':
      return 'printed by api-key-command';
    case 'input':
      return 'given to config set';
  }
}

function fix(source: KeySource): string {
  switch (source.kind) {
    case 'flag':
      return 'pass the key alone (better: medchat config set api-key, which reads it from stdin)';
    case 'env':
      return `set ${source.name} to the key alone`;
    case 'file':
    case 'input':
      return 'set the key alone with: pass show medchat | medchat config set api-key';
    case 'command':
      return 'make it print the key on its first line; check it with: medchat config get api-key-command';
  }
}

/**
 * The service refused the key (401/403): one line that names where this key came from and how
 * to fix it there. A key from MEDCHAT_API_KEY is not fixed by `config set api-key` (the variable
 * wins over the file), so each source gets its own fix.
 */
export function refusedKeyError(status: number, reason: string, source: KeySource | undefined): MedchatError {
  const what = `the service refused the API key (${status})${reason ? `: ${reason}` : ''}`;
  return new MedchatError(`${what}; ${refusedKeyFix(source)}`, ExitCode.auth, 'auth');
}

function refusedKeyFix(source: KeySource | undefined): string {
  switch (source?.kind) {
    case 'env':
      return `this key came from ${source.name}: set it to a valid one`;
    case 'flag':
      return 'this key came from --api-key: pass a valid one';
    case 'command':
      return 'this key came from api-key-command: check it with: medchat config get api-key-command';
    case 'file':
      return `this key came from the config file (${source.path}): set a valid one with: medchat config set api-key`;
    default:
      return 'set a valid one with: medchat config set api-key';
  }
}
