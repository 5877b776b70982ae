/**
 * Reading an audit log back, a line at a time (a log of any length is never held whole; a line
 * longer than any medchat writes is refused): the chain check behind verify, and the lines since
 * a time behind show and export.
 */
import fs from 'node:fs';
import { MedchatError, usageError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import { kindOf } from '../io/bounded-read.js';
import { LineTooLongError, readLines, type RawLine } from '../batch/lines.js';
import { GENESIS, readLine, type AuditRecord } from './record.js';
import { auditText } from '../i18n/messages/audit.js';

/** Far more than any line medchat writes (a few hundred bytes). */
const MAX_LINE_BYTES = 64 * 1024;

/** The lines of the log at `file`, numbered from 1; a missing log is no lines (`missing`). */
async function* logLines(file: string): AsyncGenerator<RawLine> {
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return;
    throw new MedchatError(auditText.cannotRead(file, code ?? 'error'), ExitCode.usage, 'usage');
  }
  const st = fs.fstatSync(fd);
  if (!st.isFile()) {
    fs.closeSync(fd);
    throw usageError(auditText.notAFile(file, kindOf(st)));
  }
  const stream = fs.createReadStream('', { fd, highWaterMark: 64 * 1024 });
  try {
    yield* readLines(stream, MAX_LINE_BYTES);
  } catch (err) {
    if (err instanceof LineTooLongError) throw new MedchatError(auditText.lineTooLong(file, err.lineNo), ExitCode.auditBroken, 'audit-broken');
    throw err;
  } finally {
    stream.destroy();
  }
}

export function logExists(file: string): boolean {
  return fs.existsSync(file);
}

/** What verify found wrong, one line each: `line 7: …`. */
export interface VerifyReport {
  lines: number;
  problems: string[];
  problemCount: number;
  /** The last line's hash: keep it to tell later that no line was removed from the end. */
  head?: string;
}

const MAX_LISTED = 20;

/**
 * Check the chain: every line is one medchat wrote (its hash is its own), follows the one before
 * it (its `prev` is that line's hash, its `seq` one more), and the first starts the chain. A line
 * changed is named where it stands; a line removed, added or moved is named at the first line
 * that no longer follows.
 */
export async function verifyLog(file: string): Promise<VerifyReport> {
  const report: VerifyReport = { lines: 0, problems: [], problemCount: 0 };
  const problem = (text: string) => {
    report.problemCount++;
    if (report.problems.length < MAX_LISTED) report.problems.push(text);
  };
  let prevHash = GENESIS;
  let prevSeq = 0;
  let prevLine = 0;
  for await (const raw of logLines(file)) {
    report.lines = raw.lineNo;
    const n = raw.lineNo;
    const parsed = readLine(raw.text);
    if (!parsed) {
      problem(raw.terminated ? auditText.notOurs(n) : auditText.cutShort(n));
      continue;
    }
    const { record, hashOk } = parsed;
    if (!hashOk) problem(auditText.changed(n));
    if (record.prev !== prevHash || record.seq !== prevSeq + 1) {
      const before = prevLine ? auditText.lineN(prevLine) : auditText.startOfLog;
      const what = record.seq > prevSeq + 1 ? auditText.removedBefore(record.seq - prevSeq - 1) : record.seq <= prevSeq ? auditText.movedOrAdded : auditText.changedBefore;
      problem(auditText.doesNotFollow(n, before, record.seq, what));
    }
    prevHash = raw.text.slice(-66, -2);
    prevSeq = record.seq;
    prevLine = n;
  }
  if (prevLine) report.head = prevHash;
  return report;
}

/** When `--since` starts: `7d`, `12h`, `30m`, or a date (2026-01-01) or time (ISO 8601). */
export function parseSince(text: string, now: Date = new Date()): Date {
  const t = text.trim();
  const rel = /^(\d{1,6})\s*([mhdw])$/i.exec(t);
  if (rel) {
    const unit = { m: 60e3, h: 3600e3, d: 86400e3, w: 7 * 86400e3 }[rel[2]!.toLowerCase() as 'm' | 'h' | 'd' | 'w'];
    return new Date(now.getTime() - Number(rel[1]) * unit);
  }
  if (/^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(t)) {
    const d = new Date(t.length === 10 ? `${t}T00:00:00` : t);
    if (!Number.isNaN(d.getTime())) return d;
  }
  throw usageError(auditText.notATime(t.slice(0, 40)));
}

/** The lines written at `since` or later, as stored (text) and read (record); lines that do not read are skipped. */
export async function* linesSince(file: string, since?: Date): AsyncGenerator<{ text: string; record: AuditRecord }> {
  const from = since?.getTime() ?? -Infinity;
  for await (const raw of logLines(file)) {
    const parsed = readLine(raw.text);
    if (!parsed) continue;
    const t = Date.parse(parsed.record.time);
    if (!(t >= from)) continue;
    yield { text: raw.text, record: parsed.record };
  }
}
