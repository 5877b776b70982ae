/**
 * The audit log on disk: one file per user, each line chained to the one before (record.ts), each
 * appended (O_APPEND) and flushed (fsync) under a short lock, so two medchats of one user never
 * fork the chain.
 *
 * Where: `<data folder>/audit/audit.jsonl` (file 0600 in a folder 0700), or, when the
 * organisation's policy names a folder, `<that folder>/<user>.jsonl`. The policy's folder is the
 * administrator's to create (e.g. root-owned, mode 1733: anyone may create a file in it, nobody
 * may list it or remove another's); medchat never creates it, creates its own file 0600, never
 * follows a link there, and refuses a file another user owns.
 *
 * A write that fails (a full disk, no permission, an I/O error) never touches the answer: it is
 * written after the answer is on screen and saved. The line is kept in memory and written before
 * the next one (so a passing fault loses nothing), and the failure is said once, through
 * `warn`. When the policy requires the log, the next question or job is refused until the log can
 * be written (`gate`), and a first question is refused before anything is sent if the log cannot
 * even be opened.
 */
import fs from 'node:fs';
import path from 'node:path';
import { activePolicy } from '../config/policy.js';
import { dataDir } from '../config/paths.js';
import { MedchatError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import { nodeFileOps, writeAll, type FileOps } from '../io/file-ops.js';
import { withFileLock } from '../io/file-lock.js';
import { auditSetup } from './setup.js';
import { auditBody, chainLine, GENESIS, identity, osUser, readLine, type AuditBody, type AuditEvent } from './record.js';
import { auditText } from '../i18n/messages/audit.js';

export { configureAudit } from './setup.js';
const setup = auditSetup;

/** The most lines held in memory while the log cannot be written; older ones are dropped and counted. */
const MAX_HELD = 1000;
/** Less room than this and a required log counts as full (a line is a few hundred bytes). */
const MIN_FREE_BYTES = 64 * 1024;
/** The tail read to find the last line (a line is a few hundred bytes). */
const TAIL_BYTES = 64 * 1024;
const O_NOFOLLOW = fs.constants.O_NOFOLLOW ?? 0;

/** Where this user's audit log is: the policy's folder (`shared`), or the data folder. */
export function auditFile(env: NodeJS.ProcessEnv = setup.env ?? process.env): { file: string; shared: boolean } {
  const dir = activePolicy().auditDir;
  if (dir) {
    const user = osUser().replace(/[^A-Za-z0-9._-]/g, '_').replace(/^\.+/, '_');
    return { file: path.join(dir, `${user}.jsonl`), shared: true };
  }
  return { file: path.join(dataDir(env), 'audit', 'audit.jsonl'), shared: false };
}

/** Whether the policy requires the log (then it is never skipped: a question waits for it). */
export function auditRequired(): boolean {
  return activePolicy().audit === true;
}

/** A write that could not be done, in one line: what, where, and why. */
export class AuditWriteError extends Error {
  constructor(
    readonly file: string,
    readonly code: string,
  ) {
    super(auditText.cannotWrite(file, code));
  }
}

class AuditLog {
  private held: AuditBody[] = [];
  private lost = 0;
  /** The last write failed (said once; said again only after a write succeeded). */
  private failing = false;
  private checked = false;

  constructor(
    readonly file: string,
    private readonly shared: boolean,
  ) {}

  /**
   * Before a question or job is sent. Lines held from a failed write are written first. When the
   * policy requires the log, a log that cannot be written (held lines that still fail, or, the
   * first time, a file that cannot be opened) refuses the question: a MedchatError, exit 2.
   */
  gate(): void {
    const required = auditRequired();
    if (!this.held.length && (this.checked || !required)) return;
    try {
      if (this.held.length) this.flush();
      else this.withFile(() => undefined);
      // A full disk opens the file as well as ever: when the log must be kept, a disk with no room for a line is refused now.
      if (required && freeBytes(path.dirname(this.file)) < MIN_FREE_BYTES) throw new AuditWriteError(this.file, 'ENOSPC');
      this.checked = true;
      this.recovered();
    } catch (err) {
      if (!required) return;
      const e = err instanceof AuditWriteError ? err : new AuditWriteError(this.file, codeOf(err));
      throw new MedchatError(auditText.requiredRefused(e.message), ExitCode.usage, 'usage');
    }
  }

  /** Append the line for `e` (and any held before it); a failure is held, said once, never thrown. */
  record(e: AuditEvent): void {
    this.held.push(auditBody(e, identity(setup.version)));
    if (this.held.length > MAX_HELD) {
      this.held.shift();
      this.lost++;
    }
    try {
      this.flush();
      this.recovered();
    } catch (err) {
      if (this.failing) return;
      this.failing = true;
      const e = err instanceof AuditWriteError ? err : new AuditWriteError(this.file, codeOf(err));
      setup.warn(auditText.lineLost(e.message, auditRequired()));
    }
  }

  private recovered(): void {
    this.failing = false;
  }

  /** Write every held line, in order, each chained to the file's last line. */
  private flush(): void {
    if (!this.held.length) return;
    this.withFile((fd, ops) => {
      let { seq, hash, torn } = lastLine(fd);
      let text = torn ? '\n' : '';
      for (let i = 0; i < this.held.length; i++) {
        const body = this.held[i]!;
        const c = chainLine(i === 0 && this.lost ? { ...body, lost: this.lost } : body, ++seq, hash);
        text += c.line + '\n';
        hash = c.hash;
      }
      const size = fs.fstatSync(fd).size;
      try {
        writeAll(ops, fd, Buffer.from(text));
        ops.fsync(fd);
      } catch (err) {
        // A part of a line left behind would read as a changed line: take it back (best effort).
        try {
          fs.ftruncateSync(fd, size);
        } catch {
          // the next write starts on a new line; verify names the torn one
        }
        throw err;
      }
      this.held = [];
      this.lost = 0;
    });
  }

  /** Open the log (creating it, and the default folder) under its lock; `fn` gets the fd. */
  private withFile(fn: (fd: number, ops: FileOps) => void): void {
    const ops = setup.ops ?? nodeFileOps;
    const dir = path.dirname(this.file);
    try {
      if (!this.shared) fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
      else if (!fs.statSync(dir).isDirectory()) throw Object.assign(new Error('not a folder'), { code: 'ENOTDIR' });
    } catch (err) {
      // mkdir's EEXIST: something that is not a folder stands where the folder goes.
      throw new AuditWriteError(this.file, (err as NodeJS.ErrnoException).code === 'EEXIST' ? 'ENOTDIR' : codeOf(err));
    }
    try {
      withFileLock(
        `${this.file}.lock`,
        () => {
          const fd = ops.open(this.file, (fs.constants.O_RDWR | fs.constants.O_APPEND | fs.constants.O_CREAT | O_NOFOLLOW), 0o600);
          try {
            const st = fs.fstatSync(fd);
            if (!st.isFile()) throw Object.assign(new Error('not a file'), { code: 'EISDIR' });
            if (typeof process.getuid === 'function' && st.uid !== process.getuid()) throw Object.assign(new Error('owned by another user'), { code: 'EOWNER' }); // i18n-exempt: only its code is shown
            fn(fd, ops);
          } finally {
            try {
              ops.close(fd);
            } catch {
              // fsync already said whether the bytes are down
            }
          }
        },
        { ops, waitMs: 3000 },
      );
    } catch (err) {
      throw err instanceof AuditWriteError ? err : new AuditWriteError(this.file, codeOf(err));
    }
  }
}

function freeBytes(dir: string): number {
  if (setup.freeBytes) return setup.freeBytes(dir);
  try {
    const st = fs.statfsSync(dir);
    return st.bavail * st.bsize;
  } catch {
    return Infinity; // no answer: the write itself will tell
  }
}

function codeOf(err: unknown): string {
  const e = err as { code?: string; name?: string };
  if (e?.code === 'ELOCKED') return auditText.locked;
  if (e?.code === 'ELOOP') return auditText.isLink;
  if (typeof e?.code !== 'string') return 'error';
  return PLAIN.has(e.code) ? `${e.code}: ${auditText[e.code as PlainCode]}` : e.code;
}

/** What a file error means, for the one line a user (or an administrator) reads. */
const PLAIN_CODES = ['ENOENT', 'ENOTDIR', 'EACCES', 'EPERM', 'ENOSPC', 'EDQUOT', 'EROFS', 'EIO', 'EISDIR', 'EOWNER'] as const;
type PlainCode = (typeof PLAIN_CODES)[number];
const PLAIN = new Set<string>(PLAIN_CODES);

/** The last complete line's number and hash (0 and the genesis value for an empty file); `torn`: the file ends inside a line. */
function lastLine(fd: number): { seq: number; hash: string; torn: boolean } {
  const size = fs.fstatSync(fd).size;
  if (size === 0) return { seq: 0, hash: GENESIS, torn: false };
  const len = Math.min(size, TAIL_BYTES);
  const buf = Buffer.alloc(len);
  let got = 0;
  while (got < len) {
    const n = fs.readSync(fd, buf, got, len - got, size - len + got);
    if (n <= 0) break;
    got += n;
  }
  const text = buf.subarray(0, got).toString('utf8');
  const torn = !text.endsWith('\n');
  const lines = text.split('\n');
  lines.pop(); // what follows the last line break: nothing, or a torn piece
  for (let i = lines.length - 1; i >= 0; i--) {
    if (i === 0 && size > len) break; // may be the middle of a line
    const r = readLine(lines[i]!);
    if (r) return { seq: r.record.seq, hash: chainHash(lines[i]!), torn };
  }
  return { seq: 0, hash: GENESIS, torn };
}

/** The hash a line carries (its own, taken from its text). */
function chainHash(line: string): string {
  return line.slice(-66, -2);
}

const logs = new Map<string, AuditLog>();
let generation = 0;

/** This process's log for this user (one per file, so held lines and the warning are kept together). */
export function auditLog(): AuditLog {
  if (generation !== setup.generation) {
    logs.clear();
    generation = setup.generation;
  }
  const { file, shared } = auditFile();
  let log = logs.get(file);
  if (!log) logs.set(file, (log = new AuditLog(file, shared)));
  return log;
}

export type { AuditLog };
