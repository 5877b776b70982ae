import fs from 'node:fs';
import path from 'node:path';
import { usageError } from '../errors.js';
import { FileWriteError, toWriteError, writeFileAtomicFrom } from '../io/atomic-file.js';
import { nodeFileOps, writeAll, type FileOps } from '../io/file-ops.js';
import { idKey } from './items.js';
import { readLines } from './lines.js';
import { OutputLock } from './output-lock.js';
import { batchText } from '../i18n/messages/batch.js';

/**
 * The answers file of a batch (`-o`): JSON lines, appended as each answer finishes, and read back
 * on the next run so that finished answers are skipped (resume).
 *
 * Whole lines only. Each line goes down in one write of the complete line (O_APPEND), looping only
 * if the system takes part of it; if a write fails (a full disk), the file is cut back to the end
 * of the last whole line before the error is reported. A process killed mid-run (SIGKILL, a crash)
 * leaves whole lines, since the kernel holds every finished write; a torn last line can only come
 * from a power cut or a machine crash, and is found and cut off when the file is opened again.
 *
 * fsync policy: every SYNC_INTERVAL_MS (1 s) while lines were written, and at the end. Syncing each
 * line would cost a disk flush per answer (hundreds a second at -j 16 on a fast service) to save,
 * on a power cut only, at most the last second of answers, which the next run asks for again. A
 * killed process loses nothing either way.
 */
export const SYNC_INTERVAL_MS = 1000;
const MAX_ANSWER_LINE_BYTES = 256 * 1024 * 1024;

export interface ResumeState {
  /** Ids (idKey) answered without an error. */
  answered: Set<string>;
  /** Lines with an error for ids that run again now: removed from the file. */
  retried: number;
  /** Bytes of a torn last line that were cut off (0 when the file ended cleanly). */
  tornBytes: number;
  /** A stale lock this run took over: "took over a.jsonl.lock, left by pid 123, which no longer runs". */
  lockNote?: string;
}

export interface AnswersFileOptions {
  ops?: FileOps;
  /** The ids in this run's input: error lines for them are removed, since they are asked again. */
  inputIds?: ReadonlyMap<string, unknown>;
  syncIntervalMs?: number;
  /** A flush that failed in the background (the next append throws too). */
  onFailure?: (err: FileWriteError) => void;
  /** Where the lock goes when the answers file's folder cannot be written (default `<data>/locks`). */
  lockDir?: string;
}

interface Reading {
  answered: Set<string>;
  errorIds: Set<string>;
  errorLines: number;
  /** Byte offset just past the last line kept: everything but a torn last line. */
  goodEnd: number;
  /** The last answer line has no line break after it. */
  unterminated: boolean;
}

export class AnswersFile {
  /** Lines appended by this run. */
  written = 0;
  private failure: FileWriteError | undefined;
  private dirty = false;
  private timer: NodeJS.Timeout | undefined;

  private constructor(
    readonly file: string,
    private readonly ops: FileOps,
    private fd: number | undefined,
    private size: number,
    private readonly opts: AnswersFileOptions,
    private readonly lock: OutputLock,
  ) {}

  /**
   * Open for appending, reading back what an earlier run wrote (and repairing a torn tail). The
   * file is this run's alone until `close` (output-lock.ts): a second run is refused.
   *
   * A symbolic link is written through: the answers go to the file it points to, and the link
   * stays a link (a rerun that removes failed lines replaces the target, never the link). Answers
   * are only ever added to, so `-o` through a link asks nothing a plain path does not.
   */
  static async open(file: string, opts: AnswersFileOptions = {}): Promise<{ out: AnswersFile; resume: ResumeState }> {
    const ops = opts.ops ?? nodeFileOps;
    const real = throughLinks(file);
    const lock = OutputLock.take(real, ops, { shown: file, fallbackDir: opts.lockDir });
    try {
      const opened = await AnswersFile.openLocked(file, real, ops, opts, lock);
      if (lock.tookOver) opened.resume.lockNote = batchText.tookOver(lock.lockPath, lock.tookOver);
      return opened;
    } catch (err) {
      lock.release();
      throw err;
    }
  }

  /** `file` names what the user gave (in messages); `real` is where it is read and written. */
  private static async openLocked(file: string, real: string, ops: FileOps, opts: AnswersFileOptions, lock: OutputLock): Promise<{ out: AnswersFile; resume: ResumeState }> {
    const resume: ResumeState = { answered: new Set(), retried: 0, tornBytes: 0 };
    let stat: fs.Stats | undefined;
    try {
      stat = fs.statSync(real);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw toWriteError(file, err);
    }
    let unterminated = false;
    if (stat) {
      if (stat.isDirectory()) throw new FileWriteError(file, 'EISDIR', batchText.isFolder);
      if (!stat.isFile()) throw usageError(batchText.outputNotRegular(file));
      const r = await readAnswers(real, file);
      resume.answered = r.answered;
      resume.tornBytes = stat.size - r.goodEnd;
      unterminated = r.unterminated;
      const drop = (key: string) => r.answered.has(key) || Boolean(opts.inputIds?.has(key));
      const dropped = [...r.errorIds].filter(drop);
      if (dropped.length) {
        resume.retried = await rewriteWithout(real, file, ops, r.goodEnd, (key, failed) => failed && drop(key));
        unterminated = false;
      } else if (resume.tornBytes > 0) {
        try {
          fs.truncateSync(real, r.goodEnd);
        } catch (err) {
          throw toWriteError(file, err);
        }
      }
    }
    let fd: number;
    try {
      fd = ops.open(real, 'a', 0o600);
    } catch (err) {
      throw toWriteError(file, err);
    }
    const out = new AnswersFile(file, ops, fd, fs.fstatSync(fd).size, opts, lock);
    if (unterminated) out.appendBytes(Buffer.from('\n'));
    return { out, resume };
  }

  /** Append one record as one JSON line. Throws a FileWriteError (the file still ends in a whole line). */
  append(record: object): void {
    this.appendBytes(Buffer.from(JSON.stringify(record) + '\n', 'utf8'));
    this.written++;
  }

  private appendBytes(bytes: Buffer): void {
    if (this.failure) throw this.failure;
    if (this.fd === undefined) throw new FileWriteError(this.file, 'EBADF', batchText.isClosed);
    try {
      writeAll(this.ops, this.fd, bytes);
    } catch (err) {
      // Cut back to the last whole line: the file stays valid JSON lines.
      try {
        fs.ftruncateSync(this.fd, this.size);
      } catch {
        // the next run cuts the torn line off when it reads the file
      }
      throw this.fail(err);
    }
    this.size += bytes.length;
    this.dirty = true;
    this.timer ??= setInterval(() => this.syncInBackground(), this.opts.syncIntervalMs ?? SYNC_INTERVAL_MS).unref();
  }

  private fail(err: unknown): FileWriteError {
    this.failure ??= toWriteError(this.file, err);
    return this.failure;
  }

  private syncInBackground(): void {
    try {
      this.sync();
    } catch (err) {
      this.opts.onFailure?.(err as FileWriteError);
    }
  }

  /** Flush what was written to the disk. */
  sync(): void {
    if (!this.dirty || this.fd === undefined || this.failure) return;
    this.dirty = false;
    try {
      this.ops.fsync(this.fd);
    } catch (err) {
      throw this.fail(err);
    }
  }

  /** Flush and close. Throws a FileWriteError if the last flush failed. */
  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    if (this.fd === undefined) return;
    const fd = this.fd;
    try {
      this.sync();
    } finally {
      this.fd = undefined;
      try {
        this.ops.close(fd);
      } catch (err) {
        this.fail(err);
      }
      this.lock.release();
    }
    if (this.failure) throw this.failure;
  }
}

/**
 * Where the answers are read and written: `file`, or the file a symbolic link there points to
 * (a link to a file not made yet: where it points, as an editor would).
 */
function throughLinks(file: string): string {
  try {
    if (!fs.lstatSync(file).isSymbolicLink()) return file;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return file;
    throw toWriteError(file, err);
  }
  try {
    return fs.realpathSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw toWriteError(file, err);
    try {
      return path.resolve(path.dirname(file), fs.readlinkSync(file));
    } catch (e) {
      throw toWriteError(file, e);
    }
  }
}

/** A line an answers file holds: a JSON object with an id. */
function answerLine(text: string): { key: string; failed: boolean } | undefined {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!v || typeof v !== 'object' || Array.isArray(v)) return undefined;
  const { id, error } = v as { id?: unknown; error?: unknown };
  if (typeof id !== 'string' && typeof id !== 'number') return undefined;
  return { key: idKey(id), failed: error !== undefined && error !== null && error !== false };
}

/**
 * The start of a line medchat was writing when the machine stopped: the records it writes begin
 * `{"id":`, so a torn one is a prefix of that (or longer), possibly with zeros where the file system
 * lost the data (or nothing but zeros).
 */
function tornAnswerLine(text: string): boolean {
  const t = text.replace(/^\u0000+/, '');
  return t === '' || /^\{\s*(?:"(?:i(?:d(?:"\s*(?::[^]*)?)?)?)?)?$/.test(t);
}

/**
 * Read an answers file back. It is one medchat can add to when every complete line is an answer
 * line (blank lines aside) and the last line, if it has no line break, is an answer line or an
 * answer line cut short (tornAnswerLine): the one thing a power cut leaves. Anything else (prose,
 * a note added by hand after the answers) is refused before anything is changed or sent.
 */
async function readAnswers(real: string, file: string): Promise<Reading> {
  const r: Reading = { answered: new Set(), errorIds: new Set(), errorLines: 0, goodEnd: 0, unterminated: false };
  const stream = fs.createReadStream(real, { highWaterMark: 256 * 1024 });
  try {
    for await (const line of readLines(stream, MAX_ANSWER_LINE_BYTES)) {
      const blank = !line.text.trim() && !line.text.includes('\u0000');
      const a = blank ? undefined : answerLine(line.text);
      if (!a && !blank) {
        if (!line.terminated && tornAnswerLine(line.text)) break; // the last line: cut off by the caller
        throw usageError(
          batchText.notAnswersFile(file, line.lineNo),
        );
      }
      r.goodEnd = line.end;
      r.unterminated = !line.terminated;
      if (!a) continue;
      if (a.failed) {
        r.errorIds.add(a.key);
        r.errorLines++;
      } else {
        r.answered.add(a.key);
      }
    }
  } catch (err) {
    if ((err as { kind?: string }).kind === 'usage') throw err;
    throw usageError(batchText.cannotReadBack(file, (err as NodeJS.ErrnoException).code ?? (err as Error).message));
  } finally {
    stream.destroy();
  }
  return r;
}

/**
 * Replace the file with a copy that leaves out some lines (and anything past `goodEnd`), through
 * writeFileAtomicFrom: the file is the old one or the new one, never a part. Returns how many were left out.
 */
async function rewriteWithout(real: string, file: string, ops: FileOps, goodEnd: number, leaveOut: (key: string, failed: boolean) => boolean): Promise<number> {
  let removed = 0;
  const stream = fs.createReadStream(real, { end: goodEnd - 1, highWaterMark: 256 * 1024 });
  try {
    await writeFileAtomicFrom(
      real,
      async (write) => {
        let batch: string[] = [];
        const flush = () => {
          if (batch.length) write(Buffer.from(batch.join(''), 'utf8'));
          batch = [];
        };
        for await (const line of readLines(stream, MAX_ANSWER_LINE_BYTES)) {
          const a = answerLine(line.text);
          if (a && leaveOut(a.key, a.failed)) {
            removed++;
            continue;
          }
          batch.push(line.text + '\n');
          if (batch.length >= 256) flush();
        }
        flush();
      },
      { ops },
    );
  } catch (err) {
    if ((err as { kind?: string }).kind === 'usage') throw err;
    throw toWriteError(file, err);
  } finally {
    stream.destroy();
  }
  return removed;
}
