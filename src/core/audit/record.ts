/**
 * One audit record: what a question or an image job was, never what it said. Every field is a
 * value medchat itself chose (a mode, a count, a status, a host name) or the user's own settings
 * (the model, the service host); nothing typed, read from a file, or sent back by the service is
 * ever copied in, so patient text cannot reach the log by any path.
 */
import crypto from 'node:crypto';
import os from 'node:os';
import { KINDS, type Kind } from '../privacy/kinds.js';

export type AuditMode = 'chat' | 'one-shot' | 'batch-item' | 'retexture';

/** What the caller knows about the question or job once it is over. */
export interface AuditEvent {
  mode: AuditMode;
  /** A saved conversation's id (none for incognito, batch items and jobs). */
  session?: string;
  /** A job's task id, as the service gave it (kept only when it is a plain id). */
  task?: string;
  /** The service root (only its host is kept). */
  baseUrl: string;
  model?: string;
  tokensIn?: number;
  tokensOut?: number;
  /** The privacy mode the question went with: off, warn, or redact. */
  privacy?: string;
  /** What the guard found, by kind. */
  identifiers?: Partial<Record<Kind, number>>;
  /** The question went with placeholders instead of the values. */
  redacted?: boolean;
  outcome: string;
  exitCode: number;
  /** The error's kind (a fixed internal name such as `auth`, `deadline`); never its message. */
  error?: string;
}

/** A record as stored, in this field order (the hash covers the bytes). */
export interface AuditRecord {
  seq: number;
  time: string;
  user: string;
  host: string;
  version: string;
  mode: AuditMode;
  session?: string;
  task?: string;
  service: string;
  model?: string;
  tokens_in?: number;
  tokens_out?: number;
  privacy?: string;
  identifiers?: Partial<Record<Kind, number>>;
  redacted?: boolean;
  outcome: string;
  exit_code: number;
  error?: string;
  /** Lines that could not be written before this one and were dropped (held in memory, over the bound). */
  lost?: number;
  prev: string;
  hash: string;
}

/** The fields every line of this process shares. */
export interface AuditIdentity {
  user: string;
  host: string;
  version: string;
}

/** The previous hash of a file's first line. */
export const GENESIS = '0'.repeat(64);

const PLAIN_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;
const PLAIN_NAME = /^[a-z][a-z-]{0,31}$/;
/** A model name as configured (`org/model@rev` included). */
const MODEL_NAME = /^[A-Za-z0-9][A-Za-z0-9._:/@+-]{0,127}$/;

/** The OS user running medchat (its uid when the system has no name for it). */
export function osUser(): string {
  try {
    const name = os.userInfo().username;
    if (name) return name;
  } catch {
    // a uid with no entry in the user database (containers)
  }
  return typeof process.getuid === 'function' ? `uid-${process.getuid()}` : 'unknown';
}

export function identity(version: string): AuditIdentity {
  return { user: osUser(), host: os.hostname(), version };
}

/** The host (and port) of a service root: no scheme, path, query or credentials. */
export function serviceHost(baseUrl: string): string {
  try {
    return new URL(baseUrl).host || 'unknown';
  } catch {
    return 'unknown';
  }
}

/** The record's fields before it is chained (seq, prev and hash are set when it is written). */
export type AuditBody = Omit<AuditRecord, 'seq' | 'prev' | 'hash'>;

export function auditBody(e: AuditEvent, who: AuditIdentity, now: Date = new Date()): AuditBody {
  const out: Record<string, unknown> = { time: now.toISOString(), user: who.user, host: who.host, version: who.version, mode: e.mode };
  if (e.session && PLAIN_ID.test(e.session)) out.session = e.session;
  if (e.task && PLAIN_ID.test(e.task)) out.task = e.task;
  out.service = serviceHost(e.baseUrl);
  if (e.model && MODEL_NAME.test(e.model)) out.model = e.model;
  if (Number.isSafeInteger(e.tokensIn)) out.tokens_in = e.tokensIn;
  if (Number.isSafeInteger(e.tokensOut)) out.tokens_out = e.tokensOut;
  if (e.privacy) out.privacy = e.privacy;
  if (e.identifiers) {
    // Only known kinds, in one order, with whole counts: a fixed shape.
    const ids: Partial<Record<Kind, number>> = {};
    for (const k of KINDS) if ((e.identifiers[k] ?? 0) > 0 && Number.isSafeInteger(e.identifiers[k])) ids[k] = e.identifiers[k];
    out.identifiers = ids;
  }
  if (e.redacted !== undefined) out.redacted = e.redacted;
  out.outcome = PLAIN_NAME.test(e.outcome) ? e.outcome : 'failed';
  out.exit_code = e.exitCode;
  if (e.error && PLAIN_NAME.test(e.error)) out.error = e.error;
  return out as unknown as AuditBody;
}

const sha256 = (text: string) => crypto.createHash('sha256').update(text).digest('hex');

/**
 * The stored line (no line break) for `body` as line `seq` after a line whose hash is `prev`:
 * `{"seq":…,…,"prev":"…","hash":"…"}`, where hash is the SHA-256 of the line up to `,"hash"`
 * closed with `}` (so it covers the previous hash too: the lines form a chain).
 */
export function chainLine(body: AuditBody & { lost?: number }, seq: number, prev: string): { line: string; hash: string } {
  const unhashed = JSON.stringify({ seq, ...body, prev });
  const hash = sha256(unhashed);
  return { line: `${unhashed.slice(0, -1)},"hash":"${hash}"}`, hash };
}

const HASH_TAIL = /,"hash":"([0-9a-f]{64})"\}$/;

/** A stored line taken apart: its record, and whether its hash is its own. Undefined: not a line medchat wrote. */
export function readLine(line: string): { record: AuditRecord; hashOk: boolean } | undefined {
  const m = HASH_TAIL.exec(line);
  if (!m) return undefined;
  let record: AuditRecord;
  try {
    record = JSON.parse(line) as AuditRecord;
  } catch {
    return undefined;
  }
  if (!record || typeof record !== 'object' || typeof record.seq !== 'number' || typeof record.prev !== 'string' || typeof record.time !== 'string') return undefined;
  const unhashed = line.slice(0, m.index) + '}';
  return { record, hashOk: sha256(unhashed) === m[1] };
}
