/**
 * `-f/--file`: text files sent with the question. Each is read whole, as UTF-8 text, and refused
 * before anything is sent when it is missing, not a regular file (a FIFO is refused without
 * waiting for a writer), binary (a NUL byte, or not UTF-8), or larger than `maxBytes` (the same
 * bound as piped stdin: see stdin.ts); read by io/bounded-read.ts. `-` is stdin.
 */
import { usageError } from '../../errors.js';
import { readStdinText } from '../../io/stdin.js';
import { decodeText, readFileBounded } from '../../io/bounded-read.js';
import { requestText } from '../../i18n/messages/request.js';

export interface InputFile {
  /** The name as the user gave it (`stdin` for `-`): the block's label. */
  name: string;
  text: string;
  bytes: number;
}

export async function readInputFiles(
  paths: readonly string[],
  opts: { maxBytes: number; stdin?: NodeJS.ReadableStream; stdinIsTerminal?: boolean },
): Promise<InputFile[]> {
  if (paths.filter((p) => p === '-').length > 1) throw usageError(requestText.stdinTwice);
  const files: InputFile[] = [];
  for (const p of paths) {
    if (p === '-') {
      if (opts.stdinIsTerminal) throw usageError(requestText.stdinIsTerminal);
      const text = await readStdinText(opts.stdin ?? process.stdin, opts.maxBytes);
      files.push({ name: 'stdin', text, bytes: Buffer.byteLength(text, 'utf8') });
      continue;
    }
    files.push(readOne(p, opts.maxBytes));
  }
  return files;
}

function readOne(name: string, maxBytes: number): InputFile {
  if (!name.trim()) throw usageError(requestText.fileNeedsName);
  const bytes = readFileBounded(name, {
    maxBytes,
    what: `-f ${name}`,
    tooBigHint: requestText.fileTooBigHint,
    notRegularHint: requestText.fileNotRegularHint,
  });
  return { name, text: decodeText(bytes, `-f ${name}`), bytes: bytes.length };
}
