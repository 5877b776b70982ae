/**
 * What a process sets once for its audit lines: medchat's version, where a warning goes (stderr,
 * or the chat screen's notices), and, in tests, faults in the writes and another data folder.
 * Kept apart from the log (log.ts) and with no imports, so the program sets it at start without
 * loading anything else.
 */
import type { FileOps } from '../io/file-ops.js';

export interface AuditSetup {
  version: string;
  warn: (line: string) => void;
  ops?: FileOps;
  env?: NodeJS.ProcessEnv;
  /** Bytes free for this user in a folder (tests: a full disk); default statfs. */
  freeBytes?: (dir: string) => number;
  /** Bumped when `ops` or `env` change: the logs held open are dropped. */
  generation: number;
}

export const auditSetup: AuditSetup = { version: '0.0.0-dev', warn: () => {}, generation: 0 };

export function configureAudit(s: Partial<Omit<AuditSetup, 'generation'>>): void {
  Object.assign(auditSetup, s);
  if ('ops' in s || 'env' in s) auditSetup.generation++;
}
