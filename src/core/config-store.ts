import fs from 'node:fs';
import path from 'node:path';
import Conf from 'conf';
import { MedchatError, usageError } from './errors.js';
import { ExitCode } from './exit-codes.js';
import { configDir } from './paths.js';
import { isConfigKey, type ConfigKey, type ConfigValue } from './config-keys.js';

/** The config file (`conf`), written 0600 in a 0700 folder. Unknown keys in the file are ignored. */
export class ConfigStore {
  private readonly conf: Conf<Record<string, ConfigValue>>;

  constructor(env: NodeJS.ProcessEnv = process.env) {
    const cwd = configDir(env);
    const file = path.join(cwd, 'config.json');
    try {
      fs.mkdirSync(cwd, { recursive: true, mode: 0o700 });
    } catch {
      // Reading still works without the folder; writing reports its own error.
    }
    try {
      this.conf = new Conf<Record<string, ConfigValue>>({
        projectName: 'medchat',
        projectSuffix: '',
        cwd,
        configName: 'config',
        configFileMode: 0o600,
        accessPropertiesByDotNotation: false,
      });
      // Touch the store once so a corrupt file is reported here, not later.
      void this.conf.store;
    } catch (err) {
      throw corruptConfig(file, err);
    }
  }

  get path(): string {
    return this.conf.path;
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
    this.write(() => this.conf.set(key, value));
  }

  unset(key: ConfigKey): void {
    this.write(() => this.conf.delete(key));
  }

  private read(): Record<string, ConfigValue> {
    try {
      const store = this.conf.store;
      if (typeof store !== 'object' || store === null || Array.isArray(store)) throw new Error('not an object');
      return store;
    } catch (err) {
      throw corruptConfig(this.conf.path, err);
    }
  }

  private write(action: () => void): void {
    try {
      action();
      fs.chmodSync(this.conf.path, 0o600);
    } catch (err) {
      if (err instanceof MedchatError) throw err;
      const code = (err as NodeJS.ErrnoException).code ?? 'error';
      throw new MedchatError(`cannot write the config file ${this.conf.path} (${code}); check its folder's permissions`, ExitCode.usage);
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
