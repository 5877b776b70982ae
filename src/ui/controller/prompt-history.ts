/**
 * Earlier prompts for Up/Down, kept across runs in one 0600 file (JSON string per line) in the
 * data folder. Off when the `history` setting is false: then nothing is read or written.
 */
import fs from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from '../../core/io/atomic-file.js';
import type { FileOps } from '../../core/io/file-ops.js';
import { FileReadError, readTextFileBounded } from '../../core/io/bounded-read.js';
import { dataDir } from '../../core/config/paths.js';

const HISTORY_LIMIT = 1000;
/** 1,000 prompts of 16 KB each on average: a larger file is not read (nor replaced), and history is kept for the run only. */
const MAX_HISTORY_BYTES = 16 * 1024 * 1024;

export function historyFile(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(dataDir(env), 'prompt-history.jsonl');
}

export class PromptHistory {
  private entries: string[] = [];
  /** Position while browsing: entries.length means "the draft". */
  private index = 0;
  private draft = '';

  private readonly file: string | undefined;

  constructor(
    file: string | undefined,
    private readonly ops?: FileOps,
  ) {
    const read = file ? readEntries(file) : [];
    this.entries = read ?? [];
    this.file = read ? file : undefined; // a file that could not be read as history is never replaced
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
      if (this.file) persist(this.file, this.entries, this.ops);
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

/**
 * The entries in the file ([] when there is none), or undefined when it cannot be read as
 * history: not a regular file (a link to /dev/zero, a FIFO), over MAX_HISTORY_BYTES, or not
 * text. Such a file is left as it is: history is then kept for this run only.
 */
function readEntries(file: string): string[] | undefined {
  let text: string;
  try {
    text = readTextFileBounded(file, { maxBytes: MAX_HISTORY_BYTES, what: file });
  } catch (err) {
    return err instanceof FileReadError && err.problem === 'missing' ? [] : undefined;
  }
  const out: string[] = [];
  for (const line of text.split('\n')) {
    if (!line) continue;
    try {
      const v: unknown = JSON.parse(line);
      if (typeof v === 'string') out.push(v);
    } catch {
      // a torn last line: skip it
    }
  }
  return out.slice(-HISTORY_LIMIT);
}

/** The whole file again, atomically (no fsync: losing the last prompt to a power cut is fine, a torn file is not). */
function persist(file: string, entries: string[], ops: FileOps | undefined): void {
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    writeFileAtomic(file, entries.map((e) => JSON.stringify(e)).join('\n') + '\n', { mode: 0o600, durable: false, ops });
  } catch {
    // History is a convenience: a full disk or a read-only folder leaves the previous file and
    // never breaks the chat (the session's own save warns about the folder).
  }
}
