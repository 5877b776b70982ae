import fs from 'node:fs';
import path from 'node:path';
import { MedchatError, usageError } from './errors.js';
import { ExitCode } from './exit-codes.js';
import { toWriteError, writeFileAtomic } from './io/atomic-file.js';
import type { FileOps } from './io/file-ops.js';
import { configDir } from './paths.js';
import { isConfigKey, type ConfigKey, type ConfigValue } from './config-keys.js';

/**
 * The config file: JSON (tab-indented, as conf wrote it), 0600 in a 0700 folder. Unknown keys in
 * the file are ignored, and kept when a key is set. Every write goes through writeFileAtomic: a
 * full disk leaves the previous file as it was. A config.json that is a link (dotfile managers)
 * stays one: the file it points to is replaced.
 */
export class ConfigStore {
  readonly path: string;
  private readonly cwd: string;
  private readonly ops: FileOps | undefined;

  constructor(env: NodeJS.ProcessEnv = process.env, opts: { fileOps?: FileOps } = {}) {
    this.cwd = configDir(env);
    this.ops = opts.fileOps;
    this.path = path.resolve(this.cwd, 'config.json');
    try {
      fs.mkdirSync(this.cwd, { recursive: true, mode: 0o700 });
    } catch {
      // Reading still works without the folder; writing reports its own error.
    }
    // Read the file once so a corrupt file is reported here, not later.
    this.read();
  }

  get(key: ConfigKey): ConfigValue | undefined {
    const value = this.read()[key];
    return value === null ? undefined : value;
  }

  all(): Partial<Record<ConfigKey, ConfigValue>> {
    const out: Partial<Record<ConfigKey, ConfigValue>> = {};
    for (const [k, v] of Object.entries(this.read())) if (isConfigKey(k) && v !== null) out[k] = v;
    return out;
  }

  set(key: ConfigKey, value: ConfigValue): void {
    this.write((store) => {
      store[key] = value;
    });
  }

  unset(key: ConfigKey): void {
    this.write((store) => {
      delete store[key];
    });
  }

  /** The parsed file as a prototype-less object ({} when there is no file). */
  private read(): Record<string, ConfigValue> {
    let store: Record<string, ConfigValue>;
    try {
      store = Object.assign(Object.create(null) as Record<string, ConfigValue>, JSON.parse(fs.readFileSync(this.path, 'utf8')));
    } catch (err) {
      if ((err as NodeJS.ErrnoException)?.code !== 'ENOENT') throw corruptConfig(this.path, err);
      try {
        fs.mkdirSync(path.dirname(this.path), { recursive: true });
      } catch (mkdirErr) {
        throw corruptConfig(this.path, mkdirErr);
      }
      return Object.create(null) as Record<string, ConfigValue>;
    }
    return store;
  }

  /** Read the file as it is now, change it, and write it back whole (0600, atomically). */
  private write(change: (store: Record<string, ConfigValue>) => void): void {
    const store = this.read();
    change(store);
    try {
      fs.mkdirSync(this.cwd, { recursive: true, mode: 0o700 });
      writeFileAtomic(this.path, JSON.stringify(store, undefined, '\t'), { mode: 0o600, symlinks: 'follow', ops: this.ops });
    } catch (err) {
      const e = toWriteError(this.path, err);
      throw new MedchatError(`cannot write the config file ${this.path}: ${e.reason} (${e.code}); nothing was changed; ${e.nextStep}`, ExitCode.usage);
    }
  }
}

function corruptConfig(file: string, err: unknown): MedchatError {
  const code = (err as NodeJS.ErrnoException)?.code;
  if (code === 'EACCES' || code === 'EPERM') {
    return usageError(`cannot read the config file ${file} (${code}); check its permissions`);
  }
  return usageError(`the config file ${file} is not valid JSON; fix it by hand or delete it and run: medchat config set base-url <url>`);
}
