import { MedchatError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import { toWriteError, writeFileAtomic } from './atomic-file.js';
import type { FileOps } from './file-ops.js';
import { ioText } from '../i18n/messages/io.js';

/**
 * A file at a path the user named (`sessions export -o`, `/export`): written 0600 (it holds a
 * conversation), atomically, and never through a symbolic link: a link there is refused, so a
 * link planted in a shared folder cannot send the conversation somewhere else or overwrite the
 * file it points to. (If a link appears after the check, the rename replaces the link itself.)
 */
export function writeUserFile(file: string, text: string, ops?: FileOps): void {
  try {
    writeFileAtomic(file, text, { mode: 0o600, symlinks: 'refuse', ops });
  } catch (err) {
    const e = toWriteError(file, err);
    throw new MedchatError(ioText.cannotWriteNothingWritten(file, e.reason, e.code, e.nextStep), ExitCode.usage, 'usage');
  }
}
