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
export const SOURCE_LABEL: Record<KeySourceName, string> = {
  'macos-keychain': 'the macOS Keychain',
  'secret-service': 'the Secret Service (secret-tool)',
  dpapi: 'Windows DPAPI',
  command: 'history-key-command',
  passphrase: 'the passphrase',
};

const SERVICE = 'medchat-history';
/** secret-tool's own option (another program's flag, not medchat's wording: test/code/imports.test.ts lists this file for it). */
const SECRET_TOOL_LABEL = '--label=medchat history key';
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

export const NO_KEY_HINT = 'set the config key history-key-command to a command that prints the key (e.g. pass show medchat-history)';

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
    if (r.err.trim()) throw new Error('secret-tool failed');
    return undefined; // exit 1 and silent: nothing stored
  },
  store(env, key) {
    const r = run('secret-tool', ['store', SECRET_TOOL_LABEL, 'service', SERVICE, 'account', account()], env, key.toString('base64'));
    if (!r.ok) throw new Error('secret-tool store failed');
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
    if (!r.ok || /error/i.test(r.err)) throw new Error('security add-generic-password failed');
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
    if (!r.ok) throw keyError('Windows DPAPI could not open the history key (another Windows user, or a reset password?); the encrypted history cannot be read');
    return parseStoredKey(r.out) ?? badStored('dpapi');
  },
  store(env, key) {
    const script =
      'Add-Type -AssemblyName System.Security; $b=[Convert]::FromBase64String([Console]::In.ReadToEnd().Trim()); ' +
      "[Convert]::ToBase64String([Security.Cryptography.ProtectedData]::Protect($b,$null,'CurrentUser'))";
    const r = run('powershell.exe', [...PS, script], env, key.toString('base64'));
    if (!r.ok || !r.out.trim()) throw new Error('DPAPI protect failed');
    return { protected: r.out.trim() };
  },
};

const OS_STORES: OsStore[] = [macKeychain, secretService, dpapi];

function badStored(source: KeySourceName): never {
  throw keyError(`the history key in ${SOURCE_LABEL[source]} is not one medchat stored (changed by hand?); the encrypted history cannot be read with it`);
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
    throw keyError('history-key-command failed, so encrypted history cannot be opened; check the config key history-key-command');
  }
  const material = out.replace(/\r?\n$/, '').trim();
  if (!material) throw keyError('history-key-command printed nothing; check the config key history-key-command');
  return material;
}

/** A passphrase typed on the terminal without echo (a short `sh` reads it: synchronous, before any screen starts). */
function askPassphrase(prompt: string): string {
  process.stderr.write(prompt);
  const r = spawnSync('/bin/sh', ['-c', 'stty -echo 2>/dev/null; IFS= read -r p; s=$?; stty echo 2>/dev/null; printf %s "$p"; exit $s'], {
    stdio: ['inherit', 'pipe', 'inherit'],
    encoding: 'utf8',
    timeout: 10 * 60_000,
  });
  process.stderr.write('\n');
  if (r.status !== 0 || r.error) throw keyError('no passphrase given; encrypted history stays locked');
  return r.stdout ?? '';
}

/** The master key of an existing keyring, from the source it records. */
export function masterKeyFor(info: KeyringSourceInfo, ctx: MasterKeyContext, keyringFile: string): Buffer {
  const os = OS_STORES.find((s) => s.name === info.source);
  if (os) {
    if (!os.available(ctx.env)) throw keyError(`encrypted history is locked with ${SOURCE_LABEL[info.source]}, which is not reachable here; the keyring ${keyringFile} cannot be opened without it`);
    let key: Buffer | undefined;
    try {
      key = os.lookup(ctx.env, info);
    } catch (err) {
      if (err instanceof HistoryKeyError) throw err;
      throw keyError(`${SOURCE_LABEL[info.source]} did not answer, so encrypted history cannot be opened; unlock it and try again`);
    }
    if (!key) throw keyError(`the history key is missing from ${SOURCE_LABEL[info.source]}, so the encrypted history (${keyringFile}) cannot be opened; without it, it cannot be recovered`);
    return key;
  }
  if (!info.salt) throw keyError(`the keyring ${keyringFile} is damaged (no salt); the encrypted history cannot be opened`);
  if (info.source === 'command') {
    if (!ctx.command) throw keyError(`encrypted history is locked with history-key-command, which is not set now: set that config key again to the command that prints the key`);
    return deriveKey(runKeyCommand(ctx.command, ctx.env), info.salt);
  }
  if (!ctx.canAsk) throw keyError('encrypted history is locked with a passphrase and there is no terminal to ask for it; run medchat in a terminal to type it');
  return deriveKey(askPassphrase('Passphrase for encrypted history: '), info.salt);
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
  if (!ctx.canAsk) throw keyError(`encrypted history needs a key and there is no terminal to ask for a passphrase; ${NO_KEY_HINT}`);
  const first = askPassphrase('New passphrase for encrypted history (a lost passphrase cannot be recovered): ');
  if (!first) throw keyError('an empty passphrase cannot protect history; encryption was not turned on');
  const again = askPassphrase('Type it again: ');
  if (again !== first) throw keyError('the passphrases differ; nothing was changed');
  return { key: deriveKey(first, salt), info: { source: 'passphrase', salt } };
}
