/**
 * Earlier prompts for Up/Down, kept across runs in one 0600 file in the data folder
 * (core/sessions/prompt-history-file.ts: plain JSON lines, or sealed when history is encrypted).
 * Off when the `history` setting is false: then nothing is read or written.
 */
import type { FileOps } from '../../core/io/file-ops.js';
import type { HistoryVault } from '../../core/sessions/history-crypto.js';
import { encryptionOn, vaultFor } from '../../core/sessions/encryption.js';
import { HISTORY_LIMIT, promptHistoryFile, readPromptHistory, writePromptHistory } from '../../core/sessions/prompt-history-file.js';
import path from 'node:path';

export function historyFile(env: NodeJS.ProcessEnv = process.env): string {
  return promptHistoryFile(env);
}

export class PromptHistory {
  private entries: string[] = [];
  /** Position while browsing: entries.length means "the draft". */
  private index = 0;
  private draft = '';

  private readonly file: string | undefined;
  /** Set when the file is written sealed (encryption on, or the file was sealed already). */
  private readonly vault: HistoryVault | undefined;

  constructor(
    file: string | undefined,
    private readonly ops?: FileOps,
    opts: { vault?: HistoryVault; encrypt?: boolean } = {},
  ) {
    const vault = file ? (opts.vault ?? vaultFor(path.dirname(file), { ops })) : undefined;
    const read = file ? readPromptHistory(file, vault) : undefined;
    this.entries = read?.entries ?? [];
    this.file = read ? file : undefined; // a file that could not be read as history is never replaced
    this.vault = read && (read.sealed || (opts.encrypt ?? encryptionOn())) ? vault : undefined;
    this.index = this.entries.length;
  }

  get all(): readonly string[] {
    return this.entries;
  }

  add(text: string): void {
    if (!text.trim()) return;
    if (this.entries[this.entries.length - 1] !== text) {
      this.entries.push(text);
      if (this.entries.length > HISTORY_LIMIT) this.entries.splice(0, this.entries.length - HISTORY_LIMIT);
      if (this.file) persist(this.file, this.entries, this.ops, this.vault);
    }
    this.index = this.entries.length;
    this.draft = '';
  }

  /** Up: the previous prompt (remembering the unsent draft), or undefined at the oldest. */
  previous(current: string): string | undefined {
    if (this.index === 0) return undefined;
    if (this.index === this.entries.length) this.draft = current;
    this.index--;
    return this.entries[this.index];
  }

  /** Down: the next prompt, then the draft back; undefined when already at the draft. */
  next(): string | undefined {
    if (this.index >= this.entries.length) return undefined;
    this.index++;
    return this.index === this.entries.length ? this.draft : this.entries[this.index];
  }

  resetBrowsing(): void {
    this.index = this.entries.length;
  }
}

/** The whole file again, atomically (no fsync: losing the last prompt to a power cut is fine, a torn file is not). */
function persist(file: string, entries: string[], ops: FileOps | undefined, vault: HistoryVault | undefined): void {
  try {
    writePromptHistory(file, entries, { vault, ops, durable: false });
  } catch {
    // History is a convenience: a full disk or a read-only folder leaves the previous file and
    // never breaks the chat (the session's own save warns about the folder).
  }
}
