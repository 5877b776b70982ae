/**
 * Where the master key of encrypted history comes from, in this order: the operating system's own
 * store where there is one (macOS Keychain through `security`, the Linux Secret Service through
 * `secret-tool` when the binary exists and a session bus is there, Windows DPAPI through
 * PowerShell), else `history-key-command` (its stdout is key material, stretched with scrypt and
 * the keyring's salt), else a passphrase asked once on the terminal (scrypt, same salt). Every
 * subprocess has a timeout; key material only ever travels through pipes, never arguments, and is
 * never printed. No native modules.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes, scryptSync } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MedchatError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import { sessionsKeySource, sessionsText } from '../i18n/messages/sessions.js';

export type KeySourceName = 'macos-keychain' | 'secret-service' | 'dpapi' | 'command' | 'passphrase';

/** What the keyring records about its master key (the salt for derived keys, DPAPI's protected blob). */
export interface KeyringSourceInfo {
  source: KeySourceName;
  salt?: string;
  protected?: string;
}

export interface MasterKeyContext {
  env: NodeJS.ProcessEnv;
  /** `history-key-command` as configured (undefined when unset). */
  command: string | undefined;
  /** Whether a passphrase may be asked (stdin and stderr are terminals). */
  canAsk: boolean;
}

/** How a person reads each source's name in a message. */
export const SOURCE_LABEL: Readonly<Record<KeySourceName, string>> = sessionsKeySource;

const SERVICE = 'medchat-history';
/** secret-tool's own option (another program's flag, not medchat's wording: test/code/imports.test.ts lists this file for it). */
const SECRET_TOOL_LABEL = '--label=medchat history key'; // i18n-exempt: secret-tool's label, not a message
/** Bounds every call of an outside program: a keychain that asks to be unlocked gets a person's time, no more. */
const SUBPROCESS_TIMEOUT_MS = 30_000;
const SCRYPT = { N: 2 ** 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };

/** Encrypted history cannot be opened (no key, a wrong key, a destroyed one): one line, exit 2, nothing written. */
export class HistoryKeyError extends MedchatError {
  constructor(message: string) {
    super(message, ExitCode.usage, 'usage');
    this.name = 'HistoryKeyError';
  }
}

const keyError = (message: string) => new HistoryKeyError(message);

export const noKeyHint = (): string => sessionsText.noKeyHint;

function account(): string {
  try {
    return os.userInfo().username || 'medchat';
  } catch {
    return 'medchat';
  }
}

function onPath(name: string, env: NodeJS.ProcessEnv): boolean {
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    try {
      fs.accessSync(path.join(dir, name), fs.constants.X_OK);
      return true;
    } catch {
      // not here
    }
  }
  return false;
}

/** A session bus to talk to: the address is set, or the usual socket is there. */
function sessionBus(env: NodeJS.ProcessEnv): boolean {
  if (env.DBUS_SESSION_BUS_ADDRESS) return true;
  return Boolean(env.XDG_RUNTIME_DIR && fs.existsSync(path.join(env.XDG_RUNTIME_DIR, 'bus')));
}

function run(cmd: string, args: string[], env: NodeJS.ProcessEnv, input?: string): { ok: boolean; out: string; err: string } {
  const r = spawnSync(cmd, args, { env, input: input ?? '', encoding: 'utf8', timeout: SUBPROCESS_TIMEOUT_MS, stdio: ['pipe', 'pipe', 'pipe'], windowsHide: true });
  return { ok: r.status === 0 && !r.error, out: r.stdout ?? '', err: r.stderr ?? '' };
}

/** A stored 32-byte key as the OS store keeps it (base64), or undefined when it is not one. */
function parseStoredKey(text: string): Buffer | undefined {
  const t = text.trim();
  if (!/^[A-Za-z0-9+/]{43}=$/.test(t)) return undefined;
  const b = Buffer.from(t, 'base64');
  return b.length === 32 ? b : undefined;
}

interface OsStore {
  name: KeySourceName;
  available(env: NodeJS.ProcessEnv): boolean;
  /** The stored key, undefined when none is stored; throws when the store cannot be asked. */
  lookup(env: NodeJS.ProcessEnv, info: KeyringSourceInfo): Buffer | undefined;
  /** Store a new key; returns what the keyring must keep (DPAPI's blob), or throws. */
  store(env: NodeJS.ProcessEnv, key: Buffer): Partial<KeyringSourceInfo>;
}

const secretService: OsStore = {
  name: 'secret-service',
  available: (env) => process.platform !== 'win32' && process.platform !== 'darwin' && onPath('secret-tool', env) && sessionBus(env),
  lookup(env) {
    const r = run('secret-tool', ['lookup', 'service', SERVICE, 'account', account()], env);
    if (r.ok) return parseStoredKey(r.out) ?? badStored('secret-service');
    if (r.err.trim()) throw new Error('secret-tool failed'); // i18n-exempt: caught, said as the store not answering
    return undefined; // exit 1 and silent: nothing stored
  },
  store(env, key) {
    const r = run('secret-tool', ['store', SECRET_TOOL_LABEL, 'service', SERVICE, 'account', account()], env, key.toString('base64'));
    if (!r.ok) throw new Error('secret-tool store failed'); // i18n-exempt: caught by the caller, which says what failed
    return {};
  },
};

const macKeychain: OsStore = {
  name: 'macos-keychain',
  available: () => process.platform === 'darwin' && fs.existsSync('/usr/bin/security'),
  lookup(env) {
    const r = run('/usr/bin/security', ['find-generic-password', '-s', SERVICE, '-a', account(), '-w'], env);
    if (r.ok) return parseStoredKey(r.out) ?? badStored('macos-keychain');
    return undefined;
  },
  store(env, key) {
    // `security -i` reads its command from stdin: the key never appears in the process list.
    const r = run('/usr/bin/security', ['-i'], env, `add-generic-password -U -s ${SERVICE} -a ${JSON.stringify(account())} -w ${key.toString('base64')}\n`);
    if (!r.ok || /error/i.test(r.err)) throw new Error('security add-generic-password failed'); // i18n-exempt: caught by the caller, which says what failed
    return {};
  },
};

const PS = ['-NoProfile', '-NonInteractive', '-Command'];
const dpapi: OsStore = {
  name: 'dpapi',
  available: (env) => process.platform === 'win32' && onPath('powershell.exe', env),
  lookup(env, info) {
    if (!info.protected) return undefined;
    const script =
      'Add-Type -AssemblyName System.Security; $b=[Convert]::FromBase64String([Console]::In.ReadToEnd().Trim()); ' +
      "[Convert]::ToBase64String([Security.Cryptography.ProtectedData]::Unprotect($b,$null,'CurrentUser'))";
    const r = run('powershell.exe', [...PS, script], env, info.protected);
    if (!r.ok) throw keyError(sessionsText.dpapiFailed);
    return parseStoredKey(r.out) ?? badStored('dpapi');
  },
  store(env, key) {
    const script =
      'Add-Type -AssemblyName System.Security; $b=[Convert]::FromBase64String([Console]::In.ReadToEnd().Trim()); ' +
      "[Convert]::ToBase64String([Security.Cryptography.ProtectedData]::Protect($b,$null,'CurrentUser'))";
    const r = run('powershell.exe', [...PS, script], env, key.toString('base64'));
    if (!r.ok || !r.out.trim()) throw new Error('DPAPI protect failed'); // i18n-exempt: caught by the caller, which says what failed
    return { protected: r.out.trim() };
  },
};

const OS_STORES: OsStore[] = [macKeychain, secretService, dpapi];

function badStored(source: KeySourceName): never {
  throw keyError(sessionsText.notStoredByUs(SOURCE_LABEL[source]));
}

/** Derive a 32-byte key from key material and the keyring's salt. */
export function deriveKey(material: string, saltB64: string): Buffer {
  return scryptSync(material.normalize('NFC'), Buffer.from(saltB64, 'base64'), 32, SCRYPT);
}

function runKeyCommand(command: string, env: NodeJS.ProcessEnv): string {
  let out: string;
  try {
    out = execFileSync(env.SHELL || process.env.SHELL || '/bin/sh', ['-c', command], {
      encoding: 'utf8',
      env,
      stdio: ['ignore', 'pipe', 'inherit'],
      timeout: SUBPROCESS_TIMEOUT_MS,
      maxBuffer: 64 * 1024,
    });
  } catch {
    throw keyError(sessionsText.keyCommandFailed);
  }
  const material = out.replace(/\r?\n$/, '').trim();
  if (!material) throw keyError(sessionsText.keyCommandEmpty);
  return material;
}

/** A passphrase typed on the terminal without echo (a short `sh` reads it: synchronous, before any screen starts). */
function askPassphrase(prompt: string): string {
  process.stderr.write(prompt);
  // i18n-exempt: a shell script
  const r = spawnSync('/bin/sh', ['-c', 'stty -echo 2>/dev/null; IFS= read -r p; s=$?; stty echo 2>/dev/null; printf %s "$p"; exit $s'], {
    stdio: ['inherit', 'pipe', 'inherit'],
    encoding: 'utf8',
    timeout: 10 * 60_000,
  });
  process.stderr.write('\n');
  if (r.status !== 0 || r.error) throw keyError(sessionsText.noPassphrase);
  return r.stdout ?? '';
}

/** The master key of an existing keyring, from the source it records. */
export function masterKeyFor(info: KeyringSourceInfo, ctx: MasterKeyContext, keyringFile: string): Buffer {
  const os = OS_STORES.find((s) => s.name === info.source);
  if (os) {
    if (!os.available(ctx.env)) throw keyError(sessionsText.sourceUnreachable(SOURCE_LABEL[info.source], keyringFile));
    let key: Buffer | undefined;
    try {
      key = os.lookup(ctx.env, info);
    } catch (err) {
      if (err instanceof HistoryKeyError) throw err;
      throw keyError(sessionsText.sourceSilent(SOURCE_LABEL[info.source]));
    }
    if (!key) throw keyError(sessionsText.keyMissing(SOURCE_LABEL[info.source], keyringFile));
    return key;
  }
  if (!info.salt) throw keyError(sessionsText.noSalt(keyringFile));
  if (info.source === 'command') {
    if (!ctx.command) throw keyError(sessionsText.commandUnset);
    return deriveKey(runKeyCommand(ctx.command, ctx.env), info.salt);
  }
  if (!ctx.canAsk) throw keyError(sessionsText.noTerminal);
  return deriveKey(askPassphrase(sessionsText.askPassphrase), info.salt);
}

/** A new master key from the first source there is; returns it and what the keyring records. */
export function newMasterKey(ctx: MasterKeyContext): { key: Buffer; info: KeyringSourceInfo } {
  for (const store of OS_STORES) {
    if (!store.available(ctx.env)) continue;
    try {
      const existing = store.name === 'dpapi' ? undefined : store.lookup(ctx.env, { source: store.name });
      if (existing) return { key: existing, info: { source: store.name } };
      const key = randomBytes(32);
      const extra = store.store(ctx.env, key);
      if (store.name !== 'dpapi' && !store.lookup(ctx.env, { source: store.name })?.equals(key)) continue;
      return { key, info: { source: store.name, ...extra } };
    } catch (err) {
      if (err instanceof HistoryKeyError) throw err;
      // this store cannot be used here: the next source
    }
  }
  const salt = randomBytes(16).toString('base64');
  if (ctx.command) return { key: deriveKey(runKeyCommand(ctx.command, ctx.env), salt), info: { source: 'command', salt } };
  if (!ctx.canAsk) throw keyError(sessionsText.noTerminalNew(sessionsText.noKeyHint));
  const first = askPassphrase(sessionsText.askNewPassphrase);
  if (!first) throw keyError(sessionsText.emptyPassphrase);
  const again = askPassphrase(sessionsText.askAgain);
  if (again !== first) throw keyError(sessionsText.passphrasesDiffer);
  return { key: deriveKey(first, salt), info: { source: 'passphrase', salt } };
}
