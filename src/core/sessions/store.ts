/**
 * Sessions on disk: one JSON file per conversation in `<data dir>/sessions/`, the folder 0700
 * and every file 0600. Every write goes through writeFileAtomic (every byte to a temporary file,
 * flushed, then renamed), so a session file is always either the previous or the next complete
 * version, whatever moment medchat (or the machine) dies at or the disk fills up. Saves that
 * merge (`save(…, { merge })`) take the session's lock and fold in the turns other medchat
 * processes wrote meanwhile (session-merge.ts).
 * Nothing is created until the first save: `--incognito` and `history: off` never touch the disk.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { ContextState } from '../context/context.js';
import type { Turn } from '../context/conversation.js';
import { MedchatError, usageError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import { FileWriteError, toWriteError, writeFileAtomic } from '../io/atomic-file.js';
import { holdFileLock, LockTimeoutError, LockUnusableError, withFileLock } from '../io/file-lock.js';
import type { FileOps } from '../io/file-ops.js';
import { fileStamp } from '../io/file-stamp.js';
import { FileReadError, formatBytes, readFileBounded, readTextFileBounded } from '../io/bounded-read.js';
import { historyTouched } from '../text/format.js';
import { dataDir } from '../config/paths.js';
import { SESSION_FORMAT, SESSION_VERSION, type SessionData, type StoredTurn } from './session-data.js';
import { mergeSessions, readForMerge, type MergeScope } from './session-merge.js';
import { asSealed, HistoryKeyError, KeyDestroyedError, SealedFileError, looksSealed, readSealedHead, sessionJson, PROMPT_HISTORY_SLOT, type HistoryVault } from './history-crypto.js';
import { encryptionOn, vaultFor } from './encryption.js';
import { readPromptHistory, writePromptHistory } from './prompt-history-file.js';
import { sessionsText } from '../i18n/messages/sessions.js';

export { SESSION_FORMAT, SESSION_VERSION, type SessionData, type StoredTurn } from './session-data.js';

export interface SessionInfo {
  id: string;
  title: string;
  createdAt: string;
  updatedAt: string;
  turns: number;
  file: string;
  bytes: number;
}

const ID_RE = /^[0-9]{8}-[0-9]{6}-[0-9a-f]{4}$/;
/** What a session id or a prefix of one may hold: digits, a-f and dashes, never a path character. */
const ID_PREFIX_RE = /^[0-9a-f-]{1,20}$/;

/**
 * The largest session file read (by -c, resume, show, export, list): 16 MB, as much as one answer
 * or the stdin of the largest context window may be, some 4 million tokens of text (32 times the
 * service's window). Listing, showing or exporting one that size peaks near 80-130 MB. A larger
 * file (or anything that is not a regular file: a link to /dev/zero, a FIFO) is listed as such
 * and refused with one line, never read whole.
 */
export const MAX_SESSION_BYTES = 16 * 1024 * 1024;

function readSessionText(file: string): string {
  return readTextFileBounded(file, {
    maxBytes: MAX_SESSION_BYTES,
    what: sessionsText.theSessionFile(file),
    tooBigHint: sessionsText.sessionTooBig,
    notRegularHint: sessionsText.sessionNotRegular,
  });
}

/** How the saved sessions are listed from a shell; the chat screen passes its own (`/sessions`). */
const LIST_COMMAND = 'medchat sessions list'; // i18n-exempt: a command

/** A one-line usage error for something that is not a session id; the text is shown quoted, at most 40 characters. */
function notAnId(ref: string, list = LIST_COMMAND): MedchatError {
  const shown = JSON.stringify(ref.length > 40 ? ref.slice(0, 39) + '…' : ref);
  return usageError(sessionsText.notAnId(shown, list));
}

export function sessionsDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(dataDir(env), 'sessions');
}

/** `20261122-143005-a1b2`: sorts by creation time, readable, unique enough for one user. */
export function newSessionId(now = new Date()): string {
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  const stamp = `${now.getFullYear()}${p(now.getMonth() + 1)}${p(now.getDate())}-${p(now.getHours())}${p(now.getMinutes())}${p(now.getSeconds())}`;
  return `${stamp}-${randomBytes(2).toString('hex')}`;
}

/** One line for lists: the first line of the first question, shortened. */
export function titleFor(text: string): string {
  const line = text.trim().split(/\r?\n/).find((l) => l.trim()) ?? '';
  const clean = line.replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ').replace(/\s+/g, ' ').trim();
  return clean.length > 72 ? clean.slice(0, 71) + '…' : clean;
}

interface SaveOptions {
  /** false: no fsync (the saves while an answer streams); see writeFileAtomic. */
  durable?: boolean;
  /** Merge with what other processes wrote to the file since (under the session's lock). */
  merge?: MergeScope;
}

export interface SessionStoreOptions {
  fileOps?: FileOps;
  lockWaitMs?: number;
  /** Write sessions encrypted (default: the `encrypt` setting, which the policy may require). */
  encrypt?: boolean;
  /** The keyring and master key (default: the data folder's, keys from the settings). */
  vault?: HistoryVault;
  /** A line for the user (the conversion at start); default: to stderr. */
  notice?: (line: string) => void;
}

export class SessionStore {
  readonly dir: string;
  private prepared = false;
  private readonly ops: FileOps | undefined;
  private readonly lockWaitMs: number | undefined;
  /** The turns this process last wrote, per session, and the file's identity after: unchanged since, no need to read it. */
  private written = new Map<string, { stamp: string; turns: StoredTurn[] }>();
  private readonly opts: SessionStoreOptions;
  private vaultMade: HistoryVault | undefined;
  private encryptSetting: boolean | undefined;
  /** Sessions read sealed: saved sealed again whatever the setting (never decrypted without asking). */
  private sealedIds = new Set<string>();
  private converted = false;

  constructor(dir: string = sessionsDir(), opts: SessionStoreOptions = {}) {
    this.dir = dir;
    this.ops = opts.fileOps;
    this.lockWaitMs = opts.lockWaitMs;
    this.opts = opts;
  }

  /** The keyring of the data folder this sessions folder is in. */
  get vault(): HistoryVault {
    this.vaultMade ??= this.opts.vault ?? vaultFor(path.dirname(this.dir), { ops: this.ops, lockWaitMs: this.lockWaitMs });
    return this.vaultMade;
  }

  /** Whether new writes are encrypted. */
  get encrypting(): boolean {
    this.encryptSetting ??= this.opts.encrypt ?? encryptionOn();
    return this.encryptSetting;
  }

  /** The prompt history file beside this sessions folder. */
  get promptHistoryFile(): string {
    return path.join(path.dirname(this.dir), 'prompt-history.jsonl');
  }

  /**
   * Before a run uses the store: with encryption on, open the keyring (a wrong or missing key stops
   * here, exit 2, before anything is written) and encrypt what is still plain (sessions left plain
   * by a policy that now requires encryption, or by an interrupted conversion), saying so in one line.
   */
  prepare(): void {
    if (!this.encrypting || this.converted) return;
    this.vault.master(true);
    const n = this.encryptAll();
    this.converted = true;
    const what = historyTouched(n);
    if (what) (this.opts.notice ?? ((l: string) => process.stderr.write(`medchat: ${l}\n`)))(sessionsText.encryptedNotice(what));
  }

  /** Sessions whose file is plain text now. */
  private plainIds(): string[] {
    return this.ids().filter((id) => !looksSealed(this.fileFor(id)));
  }

  private sealedList(): string[] {
    return this.ids().filter((id) => looksSealed(this.fileFor(id)));
  }

  /** How much is encrypted now (no key needed). */
  sealedCount(): { sessions: number; prompts: boolean } {
    return { sessions: this.sealedList().length, prompts: looksSealed(this.promptHistoryFile) };
  }

  /**
   * Encrypt every plain session and the prompt history: their data keys first (one keyring write),
   * then each file under its lock through the atomic writer. A fault leaves each file plain or
   * encrypted, never lost; running it again finishes the job. Returns what was converted.
   */
  encryptAll(): { sessions: number; prompts: boolean } {
    const ids = this.plainIds();
    const history = this.promptHistoryFile;
    const plainHistory = fs.existsSync(history) && !looksSealed(history);
    if (ids.length === 0 && !plainHistory) return { sessions: 0, prompts: false };
    this.ensureDir();
    this.vault.ensureKeys([...ids, ...(plainHistory ? [PROMPT_HISTORY_SLOT] : [])]);
    let n = 0;
    for (const id of ids) {
      const file = this.fileFor(id);
      const done = this.underLock(id, () => {
        if (looksSealed(file)) return false;
        let data: SessionData;
        try {
          data = this.load(id);
        } catch (err) {
          if (err instanceof MedchatError && err.kind === 'session-damaged') return false; // left as it is: list shows it damaged
          if (err instanceof MedchatError && /^no session/.test(err.message)) return false;
          throw err;
        }
        this.writeSession(file, data, true, true);
        return true;
      });
      if (done) n++;
    }
    let prompts = false;
    if (plainHistory) {
      const read = readPromptHistory(history, undefined);
      if (read && !read.sealed) {
        try {
          writePromptHistory(history, read.entries, { vault: this.vault, ops: this.ops, durable: true });
        } catch (err) {
          if (err instanceof MedchatError) throw err;
          const e = toWriteError(history, err);
          throw new MedchatError(sessionsText.cannotEncryptPrompts(history, e.reason, e.code, e.nextStep), ExitCode.failure, 'session-io');
        }
        prompts = true;
      }
    }
    return { sessions: n, prompts };
  }

  /** Decrypt every sealed session and the prompt history back to plain files, then destroy their keys. */
  decryptAll(): { sessions: number; prompts: boolean } {
    const ids = this.sealedList();
    const history = this.promptHistoryFile;
    const sealedHistory = fs.existsSync(history) && looksSealed(history);
    if (ids.length === 0 && !sealedHistory) {
      this.shredPlain(); // a rerun after a fault: the keys of what is plain now
      return { sessions: 0, prompts: false };
    }
    this.vault.master(false);
    const done: string[] = [];
    for (const id of ids) {
      const file = this.fileFor(id);
      this.underLock(id, () => {
        if (!looksSealed(file)) return;
        const data = this.load(id);
        this.writeSession(file, data, true, false);
        this.sealedIds.delete(id);
        done.push(id);
      });
    }
    let prompts = false;
    if (sealedHistory) {
      const read = readPromptHistory(history, this.vault);
      if (!read) throw new MedchatError(sessionsText.promptsWrongKey(history), ExitCode.usage, 'usage');
      try {
        writePromptHistory(history, read.entries, { ops: this.ops, durable: true });
      } catch (err) {
        const e = toWriteError(history, err);
        throw new MedchatError(sessionsText.cannotDecryptPrompts(history, e.reason, e.code, e.nextStep), ExitCode.failure, 'session-io');
      }
      done.push(PROMPT_HISTORY_SLOT);
      prompts = true;
    }
    this.shredPlain();
    return { sessions: done.length - (prompts ? 1 : 0), prompts };
  }

  /** Destroy the keys of every slot whose file is not sealed (decrypted, or gone). */
  private shredPlain(): void {
    if (!this.vault.exists()) return;
    const sealed = new Set(this.sealedList());
    if (looksSealed(this.promptHistoryFile)) sealed.add(PROMPT_HISTORY_SLOT);
    const gone = this.vault.slots().filter((s) => !sealed.has(s));
    if (gone.length) this.vault.shred(gone);
  }

  private underLock<T>(id: string, fn: () => T): T {
    try {
      return withFileLock(`${this.fileFor(id)}.lock`, fn, { ops: this.ops, waitMs: this.lockWaitMs });
    } catch (err) {
      if (err instanceof MedchatError) throw err;
      throw saveError(id, this.fileFor(id), err);
    }
  }

  /** Write a session file, sealed or plain, atomically. */
  private writeSession(file: string, data: SessionData, durable: boolean, sealed: boolean): void {
    const plain = JSON.stringify(data, null, 1) + '\n';
    const text = sealed ? this.vault.sealText(data.id, plain, JSON.stringify(headOf(data))) : plain;
    writeFileAtomic(file, text, { durable, ops: this.ops });
  }

  /** The parsed session file, opened when sealed. Errors as readSessionText/JSON.parse give them; key errors as one line. */
  private readParsed(file: string, id: string): unknown {
    const raw: unknown = JSON.parse(readSessionText(file));
    const sealed = asSealed(raw);
    if (!sealed) return raw;
    if (sealed.id !== id) throw new SyntaxError('sealed for another session'); // i18n-exempt: caught, reported as a damaged file
    const body = this.vault.openPart(id, sealed, 'body', file);
    this.sealedIds.add(id);
    return JSON.parse(body);
  }

  /** The file of session `id`; an id that is not one (`../x`, a slash, NUL…) never reaches a path. */
  fileFor(id: string, list = LIST_COMMAND): string {
    if (!ID_RE.test(id)) throw notAnId(id, list);
    return path.join(this.dir, `${id}.json`);
  }

  /**
   * Create the folders 0700 and tighten the sessions folder if it already exists, and clear
   * leftovers of killed writes. The data folder above it is created 0700 when medchat makes it,
   * but never chmodded when it was there already: MEDCHAT_DATA_DIR may name a shared folder.
   */
  private ensureDir(): void {
    if (this.prepared) return;
    try {
      fs.mkdirSync(path.dirname(this.dir), { recursive: true, mode: 0o700 });
      fs.mkdirSync(this.dir, { recursive: true, mode: 0o700 });
      fs.chmodSync(this.dir, 0o700);
    } catch (err) {
      throw storeError(sessionsText.cannotCreateFolder(this.dir), err);
    }
    this.removeStaleTemps();
    this.prepared = true;
  }

  private removeStaleTemps(): void {
    let names: string[] = [];
    try {
      names = fs.readdirSync(this.dir);
    } catch {
      return;
    }
    const cutoff = Date.now() - 60_000;
    for (const name of names) {
      if (!name.endsWith('.tmp')) continue;
      const full = path.join(this.dir, name);
      try {
        if (fs.statSync(full).mtimeMs < cutoff) fs.rmSync(full, { force: true });
      } catch {
        // another medchat may have just renamed it
      }
    }
  }

  /**
   * Write the session (atomically, and durably unless `durable: false`); returns what was
   * written, which with `merge` includes the turns other processes saved. On failure the file
   * on disk is left as it was and a one-line MedchatError says why.
   */
  save(data: SessionData, opts: SaveOptions = {}): SessionData {
    this.ensureDir();
    const file = this.fileFor(data.id);
    const write = (): SessionData => {
      const out = opts.merge ? this.mergeWithDisk(data, opts.merge) : data;
      this.writeSession(file, out, opts.durable !== false, this.encrypting || this.sealedIds.has(data.id));
      const stamp = fileStamp(file);
      if (stamp) this.written.set(data.id, { stamp, turns: out.turns });
      else this.written.delete(data.id);
      return out;
    };
    try {
      return opts.merge ? withFileLock(`${file}.lock`, write, { ops: this.ops, waitMs: this.lockWaitMs }) : write();
    } catch (err) {
      if (err instanceof HistoryKeyError) throw err; // a key error: one line, exit 2
      throw saveError(data.id, file, err);
    }
  }

  /** `mine` merged with the file as it is now (read again only if another process replaced it). */
  private mergeWithDisk(mine: SessionData, scope: MergeScope): SessionData {
    const file = this.fileFor(mine.id);
    const last = this.written.get(mine.id);
    let disk: StoredTurn[] | undefined;
    if (last && last.stamp === fileStamp(file)) disk = last.turns;
    else {
      try {
        const raw = this.readParsed(file, mine.id) as { format?: unknown } | null;
        disk = raw?.format === SESSION_FORMAT ? readForMerge(raw, mine.id) : undefined;
      } catch (err) {
        if (err instanceof HistoryKeyError) throw err; // a key that does not open it: never overwrite
        disk = undefined; // none yet, or removed (sessions rm), or damaged: this process's copy is what there is
      }
    }
    return disk ? mergeSessions(mine, disk, scope) : mine;
  }

  /**
   * The bytes of session `id` as JSON (bounded like every session read; a FileReadError says why
   * not). Search and retention read sessions only through here, so what they see is what `load`
   * sees, and nothing they read is written anywhere.
   */
  readRaw(id: string): Buffer {
    const file = this.fileFor(id);
    // Encrypted: opened in memory only (a wrong or missing master key is a HistoryKeyError, one line).
    return sessionJson(readSessionFile(file), id, (body) => this.vault.openPartBytes(id, body, 'body', file));
  }

  /** Every session with its file's last modification (its last save), newest first; a file gone meanwhile is left out. */
  byActivity(): { id: string; mtimeMs: number }[] {
    const out: { id: string; mtimeMs: number }[] = [];
    for (const id of this.ids()) {
      try {
        out.push({ id, mtimeMs: fs.statSync(this.fileFor(id)).mtimeMs });
      } catch {
        // removed meanwhile
      }
    }
    return out.sort((a, b) => b.mtimeMs - a.mtimeMs || b.id.localeCompare(a.id));
  }

  /**
   * Mark session `id` open in this process until the returned function is called (or the process
   * ends): `<data>/open/<id>`, a lock held for the whole run, so retention and purge in another
   * medchat never delete a conversation someone has on screen, however long it sits idle. A second
   * medchat on the same conversation finds it marked and goes on (the mark stays with the first).
   */
  markOpen(id: string): () => void {
    try {
      fs.mkdirSync(path.dirname(this.openMark(id)), { recursive: true, mode: 0o700 });
      // Not through the store's FileOps: a mark that cannot be made is no failure of the conversation
      // (it is never said), so a fault injected into the store's writes belongs to its saves.
      return holdFileLock(this.openMark(id), { waitMs: 0, staleMs: Infinity });
    } catch {
      return () => {}; // marked by another medchat, or a folder medchat cannot write: saving says so itself
    }
  }

  /** Where a medchat marks session `id` open: beside the sessions folder, so the folder holds only conversations. */
  private openMark(id: string): string {
    return path.join(path.dirname(this.dir), 'open', id);
  }

  /**
   * Remove session `id` under its lock, if `stillWanted()` says so there: never while another
   * medchat has it open (markOpen) or holds the lock (it is saving), never without asking again
   * once the lock is held.
   */
  removeUnlessLocked(id: string, stillWanted: () => boolean): 'removed' | 'locked' | 'kept' {
    const file = this.fileFor(id);
    try {
      fs.mkdirSync(path.dirname(this.openMark(id)), { recursive: true, mode: 0o700 });
      return withFileLock(
        this.openMark(id),
        () =>
          withFileLock(
            `${file}.lock`,
            () => {
              if (!stillWanted()) return 'kept';
              this.remove(id);
              return 'removed';
            },
            { ops: this.ops, waitMs: 0 },
          ),
        { ops: this.ops, waitMs: 0, staleMs: Infinity },
      );
    } catch (err) {
      if (err instanceof LockTimeoutError || err instanceof LockUnusableError) return 'locked';
      throw err;
    }
  }

  exists(id: string): boolean {
    return ID_RE.test(id) && fs.existsSync(this.fileFor(id));
  }

  private ids(): string[] {
    let names: string[];
    try {
      names = fs.readdirSync(this.dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw storeError(sessionsText.cannotReadFolder(this.dir), err);
    }
    return names.filter((n) => n.endsWith('.json') && ID_RE.test(n.slice(0, -5))).map((n) => n.slice(0, -5));
  }

  /** The most recently written session (what `-c` continues), if any. */
  latest(): string | undefined {
    let best: { id: string; mtime: number } | undefined;
    for (const id of this.ids()) {
      let mtime: number;
      try {
        mtime = fs.statSync(this.fileFor(id)).mtimeMs;
      } catch {
        continue;
      }
      if (!best || mtime > best.mtime || (mtime === best.mtime && id > best.id)) best = { id, mtime };
    }
    return best?.id;
  }

  /** An exact id, a unique prefix of one, or `latest` / `last`. `list`: how the user lists the sessions, named when none matches. */
  resolve(ref: string, list = LIST_COMMAND): string {
    const r = ref.trim();
    if (r !== 'latest' && r !== 'last' && !ID_PREFIX_RE.test(r)) throw notAnId(r, list);
    if (r === 'latest' || r === 'last') {
      const id = this.latest();
      if (!id) throw usageError(sessionsText.noSessionYet);
      return id;
    }
    const ids = this.ids();
    if (ids.includes(r)) return r;
    const matches = r ? ids.filter((id) => id.startsWith(r)) : [];
    if (matches.length === 1) return matches[0]!;
    if (matches.length > 1) throw usageError(sessionsText.ambiguous(r, matches.length, matches.slice(0, 3).join(', ')));
    throw usageError(sessionsText.noSessionSee(r, list));
  }

  load(id: string, list = LIST_COMMAND): SessionData {
    const file = this.fileFor(id, list);
    let data: unknown;
    try {
      data = this.readParsed(file, id);
    } catch (err) {
      if (err instanceof FileReadError && err.problem === 'missing') throw usageError(sessionsText.noSessionSee(id, list));
      if (err instanceof FileReadError) throw new MedchatError(sessionsText.orRemove(err.message, id), ExitCode.usage, 'session-damaged');
      if (err instanceof SyntaxError) throw new MedchatError(sessionsText.notJson(file, id), ExitCode.usage, 'session-damaged');
      if (err instanceof SealedFileError) throw new HistoryKeyError(sessionsText.removeIt(err.message, id));
      if (err instanceof MedchatError) throw err;
      throw storeError(sessionsText.cannotReadFile(file), err);
    }
    const session = normaliseSession(data, file, id);
    session.id = id; // the file's name, not what the file says: saves go back to this same file
    return session;
  }

  list(): SessionInfo[] {
    const out: SessionInfo[] = [];
    for (const id of this.ids()) {
      const file = this.fileFor(id);
      let stat: fs.Stats | undefined;
      try {
        stat = fs.statSync(file);
        const raw: unknown = readSealedHead(file) ?? JSON.parse(readSessionText(file));
        const sealed = asSealed(raw);
        if (sealed && sealed.id !== id) throw new SyntaxError('sealed for another session'); // i18n-exempt: caught, reported as a damaged file // i18n-exempt: caught, reported as a damaged file
        if (sealed) this.vault.master(false); // a wrong or missing master key stops the list (exit 2), not each line
        const data = (sealed ? JSON.parse(this.vault.openPart(id, sealed, 'head', file)) : raw) as Partial<SessionData>;
        out.push({
          id,
          title: String(data.title ?? ''),
          createdAt: String(data.createdAt ?? new Date(stat.birthtimeMs).toISOString()),
          updatedAt: String(data.updatedAt ?? new Date(stat.mtimeMs).toISOString()),
          turns: Array.isArray(data.turns) ? data.turns.length : Number((data as { turnCount?: unknown }).turnCount) || 0,
          file,
          bytes: stat.size,
        });
      } catch (err) {
        // A master key that does not open the keyring stops the list (one line, exit 2); one session whose key was destroyed is listed as such.
        if (err instanceof HistoryKeyError && !(err instanceof SealedFileError)) throw err;
        const problem = err instanceof FileReadError ? err.problem : err instanceof KeyDestroyedError ? 'no-key' : 'damaged';
        const title = problem === 'no-key' ? sessionsText.titleNoKey :
          problem === 'too-big' ? sessionsText.titleTooBig(stat?.isFile() && stat.size ? formatBytes(stat.size) : sessionsText.over(formatBytes(MAX_SESSION_BYTES))) : problem === 'not-regular' || problem === 'folder' ? sessionsText.titleNotFile : sessionsText.titleDamaged;
        const time = stat?.isFile() ? new Date(stat.mtimeMs).toISOString() : '';
        out.push({ id, title, createdAt: time, updatedAt: time, turns: 0, file, bytes: stat?.isFile() ? stat.size : 0 });
      }
    }
    return out.sort((a, b) => (b.updatedAt || '').localeCompare(a.updatedAt || '') || b.id.localeCompare(a.id));
  }

  /** Delete a session: its wrapped key first (crypto-shredding), then its file. */
  remove(id: string): void {
    const file = this.fileFor(id);
    if (!lexists(file)) throw usageError(sessionsText.noSession(id));
    try {
      this.vault.shred([id]);
    } catch (err) {
      if (err instanceof MedchatError) throw err;
      throw storeError(sessionsText.cannotDestroyKey(id, this.vault.keyringFile), err);
    }
    try {
      fs.rmSync(file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw usageError(sessionsText.noSession(id));
      throw storeError(sessionsText.cannotDelete(id), err);
    }
    try {
      fs.rmSync(this.openMark(id), { force: true }); // a mark left by a medchat that ended without closing
    } catch {
      // a mark with no conversation is never read
    }
  }

  /** Delete every session file (and leftovers of interrupted writes). Returns how many sessions went. */
  removeAll(): number {
    let names: string[];
    try {
      names = fs.readdirSync(this.dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 0;
      throw storeError(sessionsText.cannotReadFolder(this.dir), err);
    }
    try {
      this.vault.shredAllSessions();
    } catch (err) {
      if (err instanceof MedchatError) throw err;
      throw storeError(sessionsText.cannotDestroyKeys(this.vault.keyringFile), err);
    }
    let n = 0;
    for (const name of names) {
      if (!name.endsWith('.json') && !name.endsWith('.tmp') && !name.endsWith('.lock')) continue;
      try {
        fs.rmSync(path.join(this.dir, name), { force: true });
        if (name.endsWith('.json')) n++;
      } catch (err) {
        throw storeError(sessionsText.cannotDeleteFile(path.join(this.dir, name)), err);
      }
    }
    return n;
  }
}

/** A session file's bytes as they are on disk, bounded like every session read (a FileReadError says why not). */
export function readSessionFile(file: string): Buffer {
  return readFileBounded(file, { maxBytes: MAX_SESSION_BYTES, what: sessionsText.theSessionFile(file), tooBigHint: sessionsText.sessionTooBig, notRegularHint: sessionsText.sessionNotRegular });
}

function saveError(id: string, file: string, err: unknown): MedchatError {
  if (err instanceof LockTimeoutError) {
    return new MedchatError(sessionsText.saveLocked(id, err.holder, err.owner, err.lockFile), ExitCode.failure, 'session-io');
  }
  if (err instanceof LockUnusableError) return new MedchatError(sessionsText.saveLockUnusable(id, err.message), ExitCode.failure, 'session-io');
  const e = err instanceof FileWriteError ? err : toWriteError(file, err);
  return new MedchatError(sessionsText.saveFailed(id, path.dirname(file), e.reason, e.code, e.nextStep), ExitCode.failure, 'session-io');
}

function storeError(what: string, err: unknown): MedchatError {
  const code = (err as NodeJS.ErrnoException)?.code ?? 'error';
  return new MedchatError(sessionsText.storeFailed(what, code), ExitCode.failure, 'session-io');
}

const STATUSES = new Set(['pending', 'streaming', 'complete', 'interrupted', 'incomplete', 'failed']);

/** Check a parsed file and bring it to the current shape; a turn left mid-answer by a killed run becomes `interrupted`. */
function normaliseSession(raw: unknown, file: string, id: string): SessionData {
  const bad = (why: string) =>
    new MedchatError(sessionsText.damaged(file, why, id), ExitCode.usage, 'session-damaged');
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw bad(sessionsText.notObject);
  const d = raw as Record<string, unknown>;
  if (d.format !== SESSION_FORMAT) throw bad(sessionsText.notSession);
  if (typeof d.version !== 'number' || d.version > SESSION_VERSION) throw bad(sessionsText.tooNew(String(d.version)));
  if (!Array.isArray(d.turns)) throw bad(sessionsText.noTurns);
  const turns: StoredTurn[] = d.turns.map((t, i) => {
    if (!t || typeof t !== 'object' || typeof (t as Turn).user !== 'string') throw bad(sessionsText.badTurn(i + 1));
    const turn = t as StoredTurn;
    turn.answer = typeof turn.answer === 'string' ? turn.answer : '';
    turn.reasoning = typeof turn.reasoning === 'string' ? turn.reasoning : '';
    turn.id = typeof turn.id === 'string' ? turn.id : `t${i + 1}`;
    if (!STATUSES.has(turn.status)) turn.status = 'interrupted';
    if (turn.status === 'pending' || turn.status === 'streaming') turn.status = 'interrupted';
    turn.startedAt = typeof turn.startedAt === 'number' ? turn.startedAt : 0;
    if (turn.reasoningTokens !== undefined && !(Number.isInteger(turn.reasoningTokens) && turn.reasoningTokens >= 0)) delete turn.reasoningTokens;
    return turn;
  });
  const ctx = (d.context && typeof d.context === 'object' ? d.context : {}) as Partial<ContextState>;
  const context: ContextState = {
    startTurn: Math.min(Math.max(0, Number(ctx.startTurn) || 0), turns.length),
    ratio: Number(ctx.ratio) > 0 ? Number(ctx.ratio) : 1,
    samples: Number(ctx.samples) >= 0 ? Number(ctx.samples) : 0,
    compactions: Array.isArray(ctx.compactions) ? ctx.compactions : [],
    ...(ctx.summary && typeof ctx.summary.text === 'string' ? { summary: ctx.summary } : {}),
    ...(ctx.anchor && typeof ctx.anchor.hash === 'string' ? { anchor: ctx.anchor } : {}),
  };
  return {
    format: SESSION_FORMAT,
    version: SESSION_VERSION,
    id: typeof d.id === 'string' ? d.id : id,
    title: typeof d.title === 'string' ? d.title : titleFor(turns[0]?.user ?? ''),
    createdAt: typeof d.createdAt === 'string' ? d.createdAt : new Date(0).toISOString(),
    updatedAt: typeof d.updatedAt === 'string' ? d.updatedAt : new Date(0).toISOString(),
    model: typeof d.model === 'string' ? d.model : '',
    ...(typeof d.system === 'string' && d.system ? { system: d.system } : {}),
    ...(typeof d.role === 'string' && d.role ? { role: d.role } : {}),
    turns,
    context,
  };
}

/** What `sessions list` shows of a session: sealed apart from its body, so a list never decrypts a conversation. */
function headOf(d: SessionData): Pick<SessionData, 'title' | 'createdAt' | 'updatedAt'> & { turnCount: number } {
  return { title: d.title, createdAt: d.createdAt, updatedAt: d.updatedAt, turnCount: d.turns.length };
}

function lexists(file: string): boolean {
  try {
    fs.lstatSync(file);
    return true;
  } catch {
    return false;
  }
}
