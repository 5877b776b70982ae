/**
 * What `medchat [prompt]` and `medchat demo [prompt]` decide before anything is read or sent,
 * decided here once for both: the output (text, --json or --jsonl), the question (-p or the
 * words, never both), whether piped stdin is part of it, and whether the chat screen opens (no
 * question, nothing piped or named, and a terminal on both ends); then reading the question's
 * parts and refusing an empty question in the same words.
 */
import { usageError } from '../core/errors.js';
import { readInputFiles, type InputFile } from '../core/request/inputs/files.js';
import { readStdinText } from '../core/io/stdin.js';
import { isTty } from '../core/io/terminal.js';
import { nothingToAskError } from './oneshot.js';
import { cliText } from '../core/i18n/messages/cli.js';

export interface EntryFlags {
  prompt?: string;
  json?: boolean;
  jsonl?: boolean;
  /** commander's `--no-stdin`: false when given. */
  stdin?: boolean;
  file?: string[];
  schema?: string;
}

/** Which ends are terminals. */
export interface Terminals {
  stdin: boolean;
  stdout: boolean;
}

interface EntryDecision {
  prompt?: string;
  output: 'text' | 'json' | 'jsonl';
  /** `-f` files in the order given (`-` is stdin, read as a file). */
  files: string[];
  /** Piped stdin is read as part of the question (not with `-f -`, which reads it as a file, nor with --no-stdin). */
  stdinPiped: boolean;
  /** Open the chat screen instead of answering once. */
  interactive: boolean;
  terminals: Terminals;
}

const currentTerminals = (): Terminals => ({ stdin: isTty(process.stdin), stdout: isTty(process.stdout) });

export function decideEntry(words: string[], o: EntryFlags, tty: Terminals = currentTerminals()): EntryDecision {
  if (o.json && o.jsonl) throw usageError(cliText.jsonOrJsonl);
  const files = o.file ?? [];
  if (o.schema !== undefined && o.jsonl) throw usageError(cliText.schemaNotJsonl);
  const positional = words.length ? words.join(' ') : undefined;
  if (positional !== undefined && o.prompt !== undefined) throw usageError(cliText.promptTwice);
  const prompt = o.prompt ?? positional;
  const stdinAsFile = files.includes('-');
  if (stdinAsFile && o.stdin === false) throw usageError(cliText.stdinFileAndNoStdin);
  const stdinPiped = o.stdin !== false && !tty.stdin && !stdinAsFile;
  const interactive = prompt === undefined && !stdinPiped && files.length === 0 && tty.stdin && tty.stdout;
  if (interactive && o.schema !== undefined) throw usageError(cliText.schemaNeedsQuestion);
  return { prompt, output: o.json ? 'json' : o.jsonl ? 'jsonl' : 'text', files, stdinPiped, interactive, terminals: tty };
}

/** A one-shot question's parts, read: the -p or the words, piped stdin, the -f files. */
interface QuestionParts {
  prompt?: string;
  stdin?: string;
  files: InputFile[];
}

/**
 * Read the parts of a one-shot question, each bounded to `maxBytes` (files first, then stdin);
 * with nothing to ask, say what to do instead (the same words for `medchat` and `medchat demo`).
 */
export async function readQuestion(d: EntryDecision, opts: { maxBytes: number; role?: string }): Promise<QuestionParts> {
  const files = await readInputFiles(d.files, { maxBytes: opts.maxBytes, stdinIsTerminal: d.terminals.stdin });
  const stdin = d.stdinPiped ? await readStdinText(process.stdin, opts.maxBytes) : undefined;
  if (d.prompt === undefined && !stdin?.trim() && files.length === 0) {
    if (opts.role) throw usageError(cliText.roleNeedsText(opts.role));
    throw nothingToAskError(d.terminals.stdout || d.terminals.stdin);
  }
  return { prompt: d.prompt, stdin, files };
}
