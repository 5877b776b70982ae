import fs from 'node:fs';
import path from 'node:path';
import { MedchatError, usageError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import { toWriteError, writeFileAtomic } from '../io/atomic-file.js';
import type { FileOps } from '../io/file-ops.js';
import { FileReadError, readTextFileBounded } from '../io/bounded-read.js';
import { configDir } from './paths.js';
import { checkStoredValue, isConfigKey, type ConfigKey, type ConfigValue } from './config-keys.js';
import { registerSecret } from './secret-redactor.js';
import { configText } from '../i18n/messages/config.js';

/**
 * The config file: JSON (tab-indented, as conf wrote it), 0600 in a 0700 folder. Unknown keys in
 * the file are ignored, and kept when a key is set. Every write goes through writeFileAtomic: a
 * full disk leaves the previous file as it was. A config.json that is a link (dotfile managers)
 * stays one: the file it points to is replaced.
 * A value is checked when it is read (`get`), by the same rules as `config set`; a file that holds
 * the API key and that other users can read gets one warning per process.
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

  /** The value in the file, checked (a usage error naming key, value and fix when it is not valid). */
  get(key: ConfigKey): ConfigValue | undefined {
    const stored = this.read();
    if (stored['api-key'] !== undefined && stored['api-key'] !== null) this.warnIfShared();
    const value = stored[key];
    if (value === null || value === undefined) return undefined;
    const checked = checkStoredValue(key, value, this.path);
    if (key === 'api-key') registerSecret(String(checked));
    return checked;
  }

  /** The values in the file as they are (unchecked: `config list` shows even a wrong one). */
  all(): Partial<Record<ConfigKey, ConfigValue>> {
    const out: Partial<Record<ConfigKey, ConfigValue>> = {};
    for (const [k, v] of Object.entries(this.read())) if (isConfigKey(k) && v !== null) out[k] = v;
    if (out['api-key'] !== undefined) this.warnIfShared();
    return out;
  }

  /** Warn once if the file holds the key and its group or other users can read it. */
  private warnIfShared(): void {
    if (sharedWarningGiven) return;
    let mode: number;
    try {
      mode = fs.statSync(this.path).mode;
    } catch {
      return;
    }
    if ((mode & 0o044) === 0) return;
    sharedWarningGiven = true;
    const who = mode & 0o004 ? configText.sharedEveryone : configText.sharedGroup;
    process.stderr.write(configText.sharedWarning(this.path, who));
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
    let text: string;
    try {
      text = readTextFileBounded(this.path, {
        maxBytes: MAX_CONFIG_BYTES,
        what: configText.theConfigFile(this.path),
        tooBigHint: configText.configTooBig,
        notRegularHint: configText.configNotRegular,
      });
    } catch (err) {
      if (!(err instanceof FileReadError) || err.problem !== 'missing') throw err;
      try {
        fs.mkdirSync(path.dirname(this.path), { recursive: true });
      } catch (mkdirErr) {
        throw corruptConfig(this.path, mkdirErr);
      }
      return Object.create(null) as Record<string, ConfigValue>;
    }
    try {
      return Object.assign(Object.create(null) as Record<string, ConfigValue>, JSON.parse(text));
    } catch (err) {
      throw corruptConfig(this.path, err);
    }
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
      throw new MedchatError(configText.cannotWrite(this.path, e.reason, e.code, e.nextStep), ExitCode.usage);
    }
  }
}

let sharedWarningGiven = false;

/** A config file is a few hundred bytes; one over 1 MB is not one (and is never read whole). */
const MAX_CONFIG_BYTES = 1024 * 1024;

function corruptConfig(file: string, err: unknown): MedchatError {
  const code = (err as NodeJS.ErrnoException)?.code;
  if (code === 'EACCES' || code === 'EPERM') {
    return usageError(configText.cannotRead(file, code));
  }
  return usageError(configText.notJson(file));
}

/**
 * The `language` key as the config file holds it, read before anything else so that even `--help` and
 * a broken config file's own error are in the user's language; never throws (a file that cannot be
 * read gives undefined here and is reported by the first real read).
 */
export function configuredLanguage(env: NodeJS.ProcessEnv = process.env): string | undefined {
  try {
    const text = readTextFileBounded(path.resolve(configDir(env), 'config.json'), { maxBytes: MAX_CONFIG_BYTES, what: 'the config file' }); // i18n-exempt: never shown (any error here gives undefined)
    const value = (JSON.parse(text) as Record<string, unknown>)?.language;
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}
