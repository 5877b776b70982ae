/**
 * The prompt history file (earlier prompts for Up/Down): one JSON string per line, or, when history
 * is encrypted, those lines sealed under the prompt history's own data key (history-crypto.ts).
 * The chat screen (ui/controller/prompt-history.ts) and the conversion both read and write it here.
 */
import fs from 'node:fs';
import path from 'node:path';
import { dataDir } from '../config/paths.js';
import { writeFileAtomic } from '../io/atomic-file.js';
import { FileReadError, readTextFileBounded } from '../io/bounded-read.js';
import type { FileOps } from '../io/file-ops.js';
import { asSealed, PROMPT_HISTORY_SLOT, type HistoryVault } from './history-crypto.js';

export const HISTORY_LIMIT = 1000;
/** 1,000 prompts of 16 KB each on average: a larger file is not read (nor replaced), and history is kept for the run only. */
export const MAX_HISTORY_BYTES = 16 * 1024 * 1024;

export function promptHistoryFile(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(dataDir(env), 'prompt-history.jsonl');
}

export interface PromptHistoryRead {
  entries: string[];
  sealed: boolean;
}

/**
 * The entries in the file ([] when there is none), or undefined when it cannot be read as history:
 * not a regular file (a link to /dev/zero, a FIFO), over MAX_HISTORY_BYTES, not text, or sealed
 * and its key cannot open it. Such a file is left as it is.
 */
export function readPromptHistory(file: string, vault: HistoryVault | undefined): PromptHistoryRead | undefined {
  let text: string;
  try {
    text = readTextFileBounded(file, { maxBytes: MAX_HISTORY_BYTES, what: file });
  } catch (err) {
    return err instanceof FileReadError && err.problem === 'missing' ? { entries: [], sealed: false } : undefined;
  }
  let sealed = false;
  if (text.startsWith('{"format"')) {
    let s;
    try {
      s = asSealed(JSON.parse(text));
    } catch {
      s = undefined;
    }
    if (s) {
      if (!vault) return undefined;
      try {
        text = vault.openPart(PROMPT_HISTORY_SLOT, s, 'body', file);
      } catch {
        return undefined;
      }
      sealed = true;
    }
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
  return { entries: out.slice(-HISTORY_LIMIT), sealed };
}

/** The whole file again, atomically, sealed when `vault` is given (throws FileWriteError or a key error). */
export function writePromptHistory(file: string, entries: readonly string[], opts: { vault?: HistoryVault; ops?: FileOps; durable?: boolean }): void {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const plain = entries.map((e) => JSON.stringify(e)).join('\n') + '\n';
  const text = opts.vault ? opts.vault.sealText(PROMPT_HISTORY_SLOT, plain) : plain;
  writeFileAtomic(file, text, { mode: 0o600, durable: opts.durable ?? false, ops: opts.ops });
}
