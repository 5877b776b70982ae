/**
 * Encrypted history: AES-256-GCM (node:crypto). Each session, and the prompt history, has its own
 * random 32-byte data key; the data keys are wrapped (AES-256-GCM again) by the master key
 * (master-key.ts) and kept in one keyring file in the data folder (0600), with a check value that
 * tells a wrong master key before anything is written. Deleting a session's wrapped key makes its
 * file unreadable for good (crypto-shredding). The keyring is rewritten atomically, under its lock.
 *
 * A sealed file is one line of JSON: `{"format":"medchat-sealed","version":1,"id":…,"head":…,"body":…}`,
 * each part base64 of iv (12 bytes) | tag (16) | ciphertext, bound to the id and the part's name.
 * `head` holds only what a list shows (title, times, turns), so listing never decrypts a body.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { toWriteError, writeFileAtomic } from '../io/atomic-file.js';
import { MedchatError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import { FileReadError, readFileStart, readTextFileBounded } from '../io/bounded-read.js';
import { LockTimeoutError, withFileLock } from '../io/file-lock.js';
import type { FileOps } from '../io/file-ops.js';
import { fileStamp } from '../io/file-stamp.js';
import { HistoryKeyError, masterKeyFor, newMasterKey, type KeyringSourceInfo, type KeySourceName, type MasterKeyContext } from './master-key.js';
import { sessionsText } from '../i18n/messages/sessions.js';

export const SEALED_FORMAT = 'medchat-sealed';
const KEYRING_FORMAT = 'medchat-keyring';
const CHECK_TEXT = 'medchat-keyring-check';
/** The keyring slot of the prompt history's data key (never a session id: those start with digits). */
export const PROMPT_HISTORY_SLOT = 'prompt-history';

const keyError = (message: string) => new HistoryKeyError(message);

/** One sealed file cannot be opened (its key destroyed, or the file changed); the others may. */
export class SealedFileError extends HistoryKeyError {}
/** A sealed file whose data key is not in the keyring (destroyed by `sessions rm`, or never stored). */
export class KeyDestroyedError extends SealedFileError {}

export interface SealedFile {
  format: typeof SEALED_FORMAT;
  version: number;
  id: string;
  head?: string;
  body: string;
}

interface KeyringData extends KeyringSourceInfo {
  format: typeof KEYRING_FORMAT;
  version: 1;
  check: string;
  keys: Record<string, string>;
}

/** AES-256-GCM: iv | tag | ciphertext, base64. */
export function seal(key: Buffer, plain: Buffer | string, aad: string): string {
  const iv = randomBytes(12);
  const c = createCipheriv('aes-256-gcm', key, iv);
  c.setAAD(Buffer.from(aad, 'utf8'));
  const ct = Buffer.concat([c.update(typeof plain === 'string' ? Buffer.from(plain, 'utf8') : plain), c.final()]);
  return Buffer.concat([iv, c.getAuthTag(), ct]).toString('base64');
}

/** The plain bytes, or undefined when the key is wrong or the text was changed. */
export function unseal(key: Buffer, sealed: string, aad: string): Buffer | undefined {
  const b = Buffer.from(sealed, 'base64');
  if (b.length < 28) return undefined;
  try {
    const d = createDecipheriv('aes-256-gcm', key, b.subarray(0, 12));
    d.setAAD(Buffer.from(aad, 'utf8'));
    d.setAuthTag(b.subarray(12, 28));
    const plain = d.update(b.subarray(28));
    const rest = d.final(); // empty for GCM: the plain bytes are not copied again (search opens hundreds of MB)
    return rest.length ? Buffer.concat([plain, rest]) : plain;
  } catch {
    return undefined;
  }
}

/** The parsed sealed file, or undefined when `raw` is not one. */
export function asSealed(raw: unknown): SealedFile | undefined {
  if (!raw || typeof raw !== 'object') return undefined;
  const r = raw as Partial<SealedFile>;
  return r.format === SEALED_FORMAT && typeof r.id === 'string' && typeof r.body === 'string' ? (r as SealedFile) : undefined;
}

/** Whether a file starts as a sealed one (reads its first bytes only). */
export function looksSealed(file: string): boolean {
  return readFileStart(file, 40)?.toString('utf8').startsWith(`{"format":"${SEALED_FORMAT}"`) ?? false;
}

const HEAD_RE = /^\{"format":"medchat-sealed","version":(\d+),"id":"([^"\\]{1,64})","head":"([A-Za-z0-9+/=]{1,8000})","body":"/;

/**
 * The head of a sealed file from its first 8 KB only (a list never reads a conversation's body);
 * undefined when the file is not a sealed one with a head (then it is read whole, as before).
 */
export function readSealedHead(file: string): SealedFile | undefined {
  const start = readFileStart(file, 8192);
  const m = start && HEAD_RE.exec(start.toString('latin1'));
  return m ? { format: SEALED_FORMAT, version: Number(m[1]), id: m[2]!, head: m[3]!, body: '' } : undefined;
}

/**
 * The id and body of a whole sealed file's bytes, without parsing it as JSON (search reads thousands):
 * the fixed opening, then `"body":"<base64>"}` at its end. Undefined when it is not that shape.
 */
export function splitSealed(bytes: Buffer): { id: string; body: string } | undefined {
  const m = HEAD_RE.exec(bytes.subarray(0, 8192).toString('latin1'));
  if (!m) return undefined;
  const start = m[0].length;
  let end = bytes.length;
  while (end > start && (bytes[end - 1] === 0x0a || bytes[end - 1] === 0x0d)) end--;
  if (bytes[end - 1] !== 0x7d || bytes[end - 2] !== 0x22) return undefined; // "}
  // Not checked character by character: anything changed fails the authentication tag.
  return { id: m[2]!, body: bytes.toString('latin1', start, end - 2) };
}

const SEALED_PREFIX = Buffer.from(`{"format":"${SEALED_FORMAT}"`);

/**
 * A session file's bytes as JSON: plain ones as they are, a sealed one's body opened by `open` (in
 * memory only); a damaged sealed file as it is (the caller's JSON check says so).
 */
export function sessionJson(bytes: Buffer, id: string, open: (body: string) => Buffer): Buffer {
  if (!bytes.subarray(0, SEALED_PREFIX.length).equals(SEALED_PREFIX)) return bytes;
  const sealed = splitSealed(bytes);
  if (!sealed || sealed.id !== id) return bytes;
  return open(sealed.body);
}

/** One part (its base64 text) opened with its data key as bytes; a one-line error when the key is gone or wrong. */
export function openSealedPart(key: Buffer | undefined, slot: string, text: string | undefined, part: 'head' | 'body', file: string): Buffer {
  if (!key) throw new KeyDestroyedError(sessionsText.keyDestroyed(file));
  const plain = text === undefined ? undefined : unseal(key, text, `medchat:${slot}:${part}`);
  if (!plain) throw new SealedFileError(sessionsText.wrongFileKey(file));
  return plain;
}

/** Master keys already opened in this process, per keyring file and its check value: a passphrase is asked once per start. */
const masters = new Map<string, { check: string; key: Buffer }>();

export interface VaultOptions {
  ops?: FileOps;
  /** How the master key is found (the config's history-key-command, the environment, whether a terminal can be asked). */
  context: () => MasterKeyContext;
  lockWaitMs?: number;
}

/** The keyring of one data folder and the master key that opens it. */
export class HistoryVault {
  readonly keyringFile: string;
  private cache: { stamp: string; data: KeyringData } | undefined;
  /** Data keys unwrapped in this process, with the wrapped form they came from (a key destroyed or replaced is not reused). */
  private unwrapped = new Map<string, { wrapped: string; key: Buffer }>();

  constructor(
    readonly dataDir: string,
    private readonly opts: VaultOptions,
  ) {
    this.keyringFile = path.join(dataDir, 'keyring.json');
  }

  exists(): boolean {
    return fs.existsSync(this.keyringFile);
  }

  private read(): KeyringData | undefined {
    const stamp = fileStamp(this.keyringFile);
    if (!stamp) return undefined;
    if (this.cache?.stamp === stamp) return this.cache.data;
    let text: string;
    try {
      text = readTextFileBounded(this.keyringFile, { maxBytes: 16 * 1024 * 1024, what: sessionsText.theKeyring(this.keyringFile) });
    } catch (err) {
      if (err instanceof FileReadError && err.problem === 'missing') return undefined;
      throw keyError(sessionsText.cannotReadKeyring(this.keyringFile, (err as Error).message));
    }
    let data: KeyringData;
    try {
      data = JSON.parse(text) as KeyringData;
    } catch {
      data = {} as KeyringData;
    }
    if (data?.format !== KEYRING_FORMAT || typeof data.check !== 'string' || !data.keys || typeof data.keys !== 'object') {
      throw keyError(sessionsText.keyringDamaged(this.keyringFile));
    }
    this.cache = { stamp, data };
    return data;
  }

  private write(data: KeyringData): void {
    writeFileAtomic(this.keyringFile, JSON.stringify(data) + '\n', { mode: 0o600, ops: this.opts.ops });
    this.cache = undefined;
  }

  /** `fn` under the keyring's lock; a failure to write is one line (the keyring is left as it was). */
  private locked(fn: () => void): void {
    try {
      fs.mkdirSync(this.dataDir, { recursive: true, mode: 0o700 });
      withFileLock(`${this.keyringFile}.lock`, fn, { ops: this.opts.ops, waitMs: this.opts.lockWaitMs });
    } catch (err) {
      if (err instanceof MedchatError) throw err;
      if (err instanceof LockTimeoutError) throw new MedchatError(sessionsText.keyringLocked(this.keyringFile, err.holder, err.lockFile), ExitCode.failure, 'session-io');
      const e = toWriteError(this.keyringFile, err);
      throw new MedchatError(sessionsText.cannotWriteKeyring(this.keyringFile, e.reason, e.code, e.nextStep), ExitCode.failure, 'session-io');
    }
  }

  /** Change the keyring under its lock, from what is on disk now. */
  private update(change: (data: KeyringData) => boolean): void {
    this.locked(() => {
      this.cache = undefined;
      const data = this.read();
      if (data && change(data)) this.write(data);
    });
  }

  /** The slots that have a key (no master key needed). */
  slots(): string[] {
    return Object.keys(this.read()?.keys ?? {});
  }

  /**
   * The master key, checked against the keyring (once per process). With `create`, a missing keyring
   * is made with a new master key; without, a missing keyring is an error (sealed files, no keys).
   */
  master(create: boolean): Buffer {
    let data = this.read();
    const known = masters.get(this.keyringFile);
    if (known && data && known.check === data.check) return known.key;
    if (!data) {
      if (create && this.sealedFilesWithoutKeyring()) create = false; // never a new keyring over files sealed with a lost one
      if (!create) throw keyError(sessionsText.keyringMissing(this.keyringFile));
      const { key, info } = newMasterKey(this.opts.context());
      this.locked(() => {
        this.cache = undefined;
        if (this.read()) return; // another medchat made it meanwhile: use that one
        this.write({ format: KEYRING_FORMAT, version: 1, ...info, check: seal(key, CHECK_TEXT, 'medchat-check'), keys: {} });
      });
      data = this.read()!;
      if (unseal(key, data.check, 'medchat-check')?.toString('utf8') === CHECK_TEXT) {
        masters.set(this.keyringFile, { check: data.check, key });
        return key;
      }
    }
    const key = masterKeyFor(data, this.opts.context(), this.keyringFile);
    if (unseal(key, data.check, 'medchat-check')?.toString('utf8') !== CHECK_TEXT) {
      const wrong = data.source === 'command' ? sessionsText.wrongFromCommand : data.source === 'passphrase' ? sessionsText.wrongPassphrase : sessionsText.wrongStored;
      throw keyError(wrong(this.keyringFile));
    }
    masters.set(this.keyringFile, { check: data.check, key });
    return key;
  }

  /** Whether sealed files are here (sessions or prompt history) though the keyring is not. */
  private sealedFilesWithoutKeyring(): boolean {
    if (looksSealed(path.join(this.dataDir, 'prompt-history.jsonl'))) return true;
    let names: string[] = [];
    try {
      names = fs.readdirSync(path.join(this.dataDir, 'sessions'));
    } catch {
      return false;
    }
    return names.some((n) => n.endsWith('.json') && looksSealed(path.join(this.dataDir, 'sessions', n)));
  }

  /** The data key of `slot` (a session id or the prompt history), made and stored when `create` and there is none. */
  dataKey(slot: string, create: boolean): Buffer | undefined {
    const master = this.master(create);
    let wrapped = this.read()?.keys[slot];
    if (!wrapped && create) {
      this.ensureKeys([slot]);
      wrapped = this.read()?.keys[slot];
    }
    if (!wrapped) return undefined;
    return this.unwrap(master, slot, wrapped);
  }

  private unwrap(master: Buffer, slot: string, wrapped: string): Buffer {
    const known = this.unwrapped.get(slot);
    if (known && known.wrapped === wrapped) return known.key;
    const key = unseal(master, wrapped, `medchat-key:${slot}`);
    if (!key || key.length !== 32) throw keyError(sessionsText.slotDamaged(slot, this.keyringFile));
    this.unwrapped.set(slot, { wrapped, key });
    return key;
  }

  /**
   * The data keys of those of `slots` that have one, the keyring read once (search opens thousands);
   * empty without a keyring, and when its master key cannot be had (each sealed file then says why when read).
   */
  dataKeys(slots: readonly string[]): Map<string, Buffer> {
    const out = new Map<string, Buffer>();
    const keys = this.exists() ? this.read()?.keys : undefined;
    if (!keys || !slots.some((s) => keys[s])) return out;
    let master: Buffer;
    try {
      master = this.master(false);
    } catch (err) {
      if (err instanceof HistoryKeyError) return out;
      throw err;
    }
    for (const s of slots) {
      const wrapped = keys[s];
      if (!wrapped) continue;
      try {
        out.set(s, this.unwrap(master, s, wrapped));
      } catch (err) {
        if (!(err instanceof HistoryKeyError)) throw err; // a damaged key: that file says so when read
      }
    }
    return out;
  }

  /** Make data keys for every slot that has none, in one write of the keyring. */
  ensureKeys(slots: readonly string[]): void {
    const master = this.master(true);
    const missing = slots.filter((s) => !this.read()?.keys[s]);
    if (missing.length === 0) return;
    this.update((data) => {
      let changed = false;
      for (const s of missing) {
        if (data.keys[s]) continue;
        data.keys[s] = seal(master, randomBytes(32), `medchat-key:${s}`);
        changed = true;
      }
      return changed;
    });
  }

  /** Where the master key comes from (undefined without a keyring). */
  source(): KeySourceName | undefined {
    return this.read()?.source;
  }

  /** Whether the keyring holds a key for `slot` (no master key needed). */
  hasKey(slot: string): boolean {
    return Boolean(this.read()?.keys[slot]);
  }

  /** Destroy the wrapped keys of these slots (no master key needed): what they sealed cannot be read again. */
  shred(slots: readonly string[]): void {
    if (!this.exists()) return;
    this.update((data) => {
      let changed = false;
      for (const s of slots) {
        if (Object.hasOwn(data.keys, s)) {
          delete data.keys[s];
          changed = true;
        }
      }
      return changed;
    });
  }

  /** Destroy every session's wrapped key (the prompt history's stays). */
  shredAllSessions(): void {
    if (!this.exists()) return;
    this.update((data) => {
      const before = Object.keys(data.keys).length;
      data.keys = Object.fromEntries(Object.entries(data.keys).filter(([s]) => s === PROMPT_HISTORY_SLOT));
      return Object.keys(data.keys).length !== before;
    });
  }

  /** The sealed file's text for `slot`: `head` (optional) and `body`. */
  sealText(slot: string, body: string, head?: string): string {
    const key = this.dataKey(slot, true)!;
    const out: SealedFile = {
      format: SEALED_FORMAT,
      version: 1,
      id: slot,
      ...(head !== undefined ? { head: seal(key, head, `medchat:${slot}:head`) } : {}),
      body: seal(key, body, `medchat:${slot}:body`),
    };
    return JSON.stringify(out) + '\n';
  }

  /** One part of a sealed file as text; a one-line error when its key is gone or wrong. */
  openPart(slot: string, sealed: SealedFile, part: 'head' | 'body', file: string): string {
    return this.openPartBytes(slot, sealed[part], part, file).toString('utf8');
  }

  /** One part (its base64 text) as bytes; a one-line error when its key is gone or wrong. */
  openPartBytes(slot: string, text: string | undefined, part: 'head' | 'body', file: string): Buffer {
    return openSealedPart(this.dataKey(slot, false), slot, text, part, file);
  }
}

/** Forget the master keys opened in this process (tests). */
export function forgetMasterKeys(): void {
  masters.clear();
}

export { HistoryKeyError } from './master-key.js';
