/**
 * `-f/--file`: text files sent with the question. Each is read whole, as UTF-8 text, and refused
 * before anything is sent when it is missing, not a regular file, binary (a NUL byte, or not
 * UTF-8), or larger than `maxBytes` (the same bound as piped stdin: see stdin.ts). `-` is stdin.
 */
import fs from 'node:fs';
import { usageError } from '../../errors.js';
import { readStdinText } from '../../io/stdin.js';

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
  if (paths.filter((p) => p === '-').length > 1) throw usageError('-f - (stdin) is given more than once; stdin can be read only once');
  const files: InputFile[] = [];
  for (const p of paths) {
    if (p === '-') {
      if (opts.stdinIsTerminal) throw usageError('-f - reads stdin, but stdin is a terminal; pipe the text in (cat notes.txt | medchat -f - "…")');
      const text = await readStdinText(opts.stdin ?? process.stdin, opts.maxBytes);
      files.push({ name: 'stdin', text, bytes: Buffer.byteLength(text, 'utf8') });
      continue;
    }
    files.push(readOne(p, opts.maxBytes));
  }
  return files;
}

function readOne(name: string, maxBytes: number): InputFile {
  if (!name.trim()) throw usageError('-f needs a file name');
  let fd: number;
  try {
    fd = fs.openSync(name, 'r');
  } catch (err) {
    throw usageError(openProblem(name, (err as NodeJS.ErrnoException).code));
  }
  try {
    const stat = fs.fstatSync(fd);
    if (stat.isDirectory()) throw usageError(`-f ${name}: it is a folder; give a file`);
    if (!stat.isFile()) throw usageError(`-f ${name}: not a regular file; for a pipe or device use -f - and pipe it in`);
    if (stat.size > maxBytes) throw tooBig(name, stat.size, maxBytes);
    const bytes = Buffer.alloc(stat.size);
    let got = 0;
    while (got < bytes.length) {
      const n = fs.readSync(fd, bytes, got, bytes.length - got, got);
      if (n === 0) break;
      got += n;
    }
    return { name, text: decodeText(name, bytes.subarray(0, got)), bytes: got };
  } finally {
    fs.closeSync(fd);
  }
}

/** UTF-8 text, or a usage error saying why the bytes are not text (and where). */
function decodeText(name: string, bytes: Uint8Array): string {
  const nul = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).indexOf(0);
  if (nul >= 0) throw usageError(`-f ${name}: looks binary (a NUL byte at byte ${nul} of ${bytes.length}); medchat sends text only (convert it to text first)`);
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes).replace(/^\uFEFF/, '');
  } catch {
    throw usageError(`-f ${name}: is not UTF-8 text; medchat sends text only (convert it first, e.g. iconv -t utf-8)`);
  }
}

function tooBig(name: string, size: number, max: number) {
  return usageError(`-f ${name}: ${formatBytes(size)} is more than the context window can take (at most ${formatBytes(max)} a file); send a part of it`);
}

function openProblem(name: string, code: string | undefined): string {
  if (code === 'ENOENT') return `-f ${name}: no such file`;
  if (code === 'EACCES' || code === 'EPERM') return `-f ${name}: permission denied`;
  if (code === 'EISDIR') return `-f ${name}: it is a folder; give a file`;
  return `-f ${name}: cannot open it (${code ?? 'error'})`;
}

export function formatBytes(n: number): string {
  if (n >= 1024 * 1024) return `${(n / 1024 / 1024).toFixed(1)} MB`;
  if (n >= 1024) return `${Math.round(n / 1024)} KB`;
  return `${n} bytes`;
}
