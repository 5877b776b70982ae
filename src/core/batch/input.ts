import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MedchatError, usageError } from '../errors.js';
import { kindOf, readPipe } from '../io/bounded-read.js';
import { nodeFileOps, writeAll } from '../io/file-ops.js';
import { idKey, parseLine, type BatchItem, type InputMode } from './items.js';
import { LineTooLongError, readLines } from './lines.js';
import { batchText } from '../i18n/messages/batch.js';

/**
 * The batch input: read twice, streaming both times (memory stays flat for any number of lines).
 * The first pass checks every line and counts them before anything is sent: a bad line or a
 * duplicate id is refused up front with its line number, and the total is known for the progress
 * bar. The second pass hands the items over one at a time, as the scheduler has room for them.
 * Input that cannot be read twice (stdin, a pipe) is first copied to a private temporary file
 * (0600, in a 0700 folder), removed when the run ends.
 */
export interface InputScan {
  /** Items (not blank lines). */
  total: number;
  /** Every id (its key, see idKey) and the line it is on. */
  ids: Map<string, number>;
  /** `line N: why`, in line order; at most MAX_LISTED, then `problemCount` says how many in all. */
  problems: string[];
  problemCount: number;
}

const MAX_LISTED = 10;

/**
 * The most copied from stdin or a pipe: 256 MB, some 100,000 questions of 2.5 KB each (a run of
 * days at any rate the service allows). A file is read where it is, at any size, so more
 * questions than that go in a file; the bound only keeps an endless pipe (yes, /dev/zero through
 * cat) from filling the temporary folder.
 */
const MAX_SPOOL_BYTES = 256 * 1024 * 1024;

export class BatchInput {
  private spoolDir: string | undefined;
  private readonly removeOnExit = () => this.dispose();

  private constructor(
    /** What the user named it (for messages). */
    readonly name: string,
    /** The regular file read (the spool copy for stdin or a pipe). */
    readonly file: string,
    readonly mode: InputMode,
    private readonly maxLineBytes: number,
  ) {}

  /** `source` is a path or `-` for stdin. */
  static async open(source: string, opts: { mode: InputMode; maxLineBytes: number; stdin?: NodeJS.ReadableStream & { isTTY?: boolean } }): Promise<BatchInput> {
    if (source === '-') {
      const stdin = opts.stdin ?? process.stdin;
      if (stdin.isTTY) throw usageError(batchText.stdinIsTerminal);
      return BatchInput.spooled('stdin', stdin, opts);
    }
    // Opened without blocking (a FIFO with no writer must not hang), and the opened fd checked.
    let fd: number;
    try {
      fd = fs.openSync(source, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0));
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      throw usageError(code === 'ENOENT' ? batchText.noSuchFile(source) : code === 'EISDIR' ? batchText.readFolder(source) : batchText.cannotRead(source, String(code)));
    }
    let stat: fs.Stats;
    try {
      stat = fs.fstatSync(fd);
    } catch (err) {
      fs.closeSync(fd);
      throw usageError(batchText.cannotRead(source, String((err as NodeJS.ErrnoException).code)));
    }
    if (stat.isFIFO()) {
      // <(…) or a named FIFO, read through the fd already open
      const noWriter = () => usageError(batchText.fifoNoWriter(source));
      return BatchInput.spooled(source, readPipe(fd, noWriter), opts);
    }
    fs.closeSync(fd);
    if (stat.isDirectory()) throw usageError(batchText.readFolder(source));
    if (!stat.isFile()) throw usageError(batchText.notRegular(source, kindOf(stat)));
    return new BatchInput(source, source, opts.mode, opts.maxLineBytes);
  }

  /**
   * Copy stdin or a pipe to a private temporary file, at most MAX_SPOOL_BYTES, refusing binary
   * input (a NUL byte) the moment it arrives; on any refusal the copy is removed.
   */
  private static async spooled(name: string, stream: AsyncIterable<Buffer | string>, opts: { mode: InputMode; maxLineBytes: number }): Promise<BatchInput> {
    let dir: string;
    try {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'medchat-batch-'));
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? 'error';
      throw usageError(batchText.cannotSpool(name, os.tmpdir(), code));
    }
    const file = path.join(dir, 'input.jsonl');
    const input = new BatchInput(name, file, opts.mode, opts.maxLineBytes);
    input.spoolDir = dir;
    process.once('exit', input.removeOnExit);
    let out: number | undefined;
    try {
      out = fs.openSync(file, 'wx', 0o600);
      let size = 0;
      for await (const chunk of stream) {
        const buf = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
        const nul = buf.indexOf(0);
        if (nul >= 0) throw binaryInput(name, size + nul);
        size += buf.length;
        if (size > MAX_SPOOL_BYTES) {
          throw usageError(
            batchText.spoolTooLarge(name, MAX_SPOOL_BYTES / 1024 / 1024),
          );
        }
        writeAll(nodeFileOps, out, buf);
      }
    } catch (err) {
      (stream as { destroy?: () => void }).destroy?.();
      if (out !== undefined) fs.closeSync(out);
      out = undefined;
      input.dispose();
      if (err instanceof MedchatError) throw err;
      throw usageError(batchText.cannotReadQuestions(name, (err as NodeJS.ErrnoException).code ?? (err as Error).message));
    } finally {
      if (out !== undefined) fs.closeSync(out);
    }
    return input;
  }

  /** Remove the temporary copy, if one was made. */
  dispose(): void {
    process.off('exit', this.removeOnExit);
    if (this.spoolDir) fs.rmSync(this.spoolDir, { recursive: true, force: true });
    this.spoolDir = undefined;
  }

  /** Read stat of the file read (to refuse an output file that is the input). */
  stat(): fs.Stats {
    return fs.statSync(this.file);
  }

  async scan(): Promise<InputScan> {
    const scan: InputScan = { total: 0, ids: new Map(), problems: [], problemCount: 0 };
    const problem = (line: number, why: string) => {
      scan.problemCount++;
      if (scan.problems.length < MAX_LISTED) scan.problems.push(batchText.problemLine(line, why));
    };
    for await (const raw of this.lines()) {
      const parsed = parseLine(raw.text, raw.lineNo, this.mode);
      if ('blank' in parsed) continue;
      if ('problem' in parsed) {
        problem(raw.lineNo, parsed.problem);
        continue;
      }
      scan.total++;
      const key = idKey(parsed.item.id);
      const first = scan.ids.get(key);
      if (first !== undefined) problem(raw.lineNo, batchText.idUsed(JSON.stringify(parsed.item.id), first));
      else scan.ids.set(key, raw.lineNo);
    }
    return scan;
  }

  /** The items, in input order (call after a scan without problems). */
  async *items(): AsyncGenerator<BatchItem> {
    for await (const raw of this.lines()) {
      const parsed = parseLine(raw.text, raw.lineNo, this.mode);
      if ('item' in parsed) yield parsed.item;
    }
  }

  private async *lines() {
    const stream = fs.createReadStream(this.file, { highWaterMark: 256 * 1024 });
    try {
      yield* readLines(refuseNul(stream, this.name), this.maxLineBytes);
    } catch (err) {
      if (err instanceof MedchatError) throw err;
      if (err instanceof LineTooLongError) {
        throw usageError(batchText.lineTooLong(this.name, err.message));
      }
      throw usageError(batchText.cannotRead(this.name, (err as NodeJS.ErrnoException).code ?? (err as Error).message));
    } finally {
      stream.destroy();
    }
  }
}

/** The chunks of `stream`, refusing the input as binary at its first NUL byte. */
async function* refuseNul(stream: AsyncIterable<Buffer | string>, name: string): AsyncGenerator<Buffer | string> {
  let offset = 0;
  for await (const chunk of stream) {
    const nul = typeof chunk === 'string' ? chunk.indexOf('\0') : chunk.indexOf(0);
    if (nul >= 0) throw binaryInput(name, offset + nul);
    offset += chunk.length;
    yield chunk;
  }
}

function binaryInput(name: string, at: number): MedchatError {
  return usageError(batchText.binary(name, at));
}
