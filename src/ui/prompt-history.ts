import fs from 'node:fs';
import path from 'node:path';
import { dataDir } from '../core/paths.js';

/**
 * Earlier prompts for Up/Down, kept across runs in one 0600 file (JSON string per line) in the
 * data folder. Off when the `history` setting is false: then nothing is read or written.
 */
export const HISTORY_LIMIT = 1000;

export function historyFile(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(dataDir(env), 'prompt-history.jsonl');
}

export class PromptHistory {
  private entries: string[] = [];
  /** Position while browsing: entries.length means "the draft". */
  private index = 0;
  private draft = '';

  constructor(
    private readonly file: string | undefined,
  ) {
    if (file) this.entries = readEntries(file);
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
      if (this.file) persist(this.file, this.entries);
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

function readEntries(file: string): string[] {
  try {
    const out: string[] = [];
    for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
      if (!line) continue;
      try {
        const v: unknown = JSON.parse(line);
        if (typeof v === 'string') out.push(v);
      } catch {
        // a torn last line: skip it
      }
    }
    return out.slice(-HISTORY_LIMIT);
  } catch {
    return [];
  }
}

function persist(file: string, entries: string[]): void {
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    const tmp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, entries.map((e) => JSON.stringify(e)).join('\n') + '\n', { mode: 0o600 });
    fs.renameSync(tmp, file);
    fs.chmodSync(file, 0o600);
  } catch {
    // History is a convenience: never let a full disk or a read-only folder break the chat.
  }
}
