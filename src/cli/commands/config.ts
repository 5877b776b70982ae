import { CONFIG_KEYS, assertConfigKey, checkStoredValue, describeRule, formatConfigValue, parseConfigValue, type ConfigKey, type ConfigValue } from '../../core/config/config-keys.js';
import { ConfigStore } from '../../core/config/config-store.js';
import { usageError } from '../../core/errors.js';
import { byPolicy, PolicyError } from '../../core/config/policy.js';
import { policyForbids, policyRule, policyValue } from '../../core/config/settings.js';
import { readHiddenLine, readStdinText } from '../../core/io/stdin.js';

/** `medchat config set|get|unset|list|path`. Secrets are always shown masked. */
export async function configCommand(action: string, key: string | undefined, value: string | undefined): Promise<number> {
  const store = new ConfigStore();
  const print = (line: string) => process.stdout.write(line + '\n');
  switch (action) {
    case 'path':
      print(store.path);
      return 0;
    case 'list': {
      const values = store.all();
      const width = Math.max(...Object.keys(CONFIG_KEYS).map((k) => k.length));
      for (const k of Object.keys(CONFIG_KEYS) as ConfigKey[]) {
        const spec = CONFIG_KEYS[k] as { default?: unknown };
        const v = values[k];
        const shown = v !== undefined ? shownStored(k, v, store.path) : spec.default !== undefined ? `${formatConfigValue(k, spec.default as never)} (default)` : '(unset)';
        print(`${k.padEnd(width)}  ${lockedView(k, v, store.path) ?? shown}`);
      }
      return 0;
    }
    case 'get': {
      if (!key) throw usageError('name a key: medchat config get <key> (see medchat config list)');
      const k = assertConfigKey(key);
      const stored = store.get(k);
      const v = stored ?? (CONFIG_KEYS[k] as { default?: never }).default;
      const rule = policyRule(k);
      if (rule === undefined) {
        print(formatConfigValue(k, v));
        return 0;
      }
      // Locked: the value in force on stdout; what the policy says on stderr.
      const effective = stored === undefined || policyForbids(k, stored) ? effectiveLocked(k, v) : stored;
      print(formatConfigValue(k, effective));
      process.stderr.write(`medchat: ${k} is locked ${byPolicy()}: ${rule}\n`);
      return 0;
    }
    case 'unset': {
      if (!key) throw usageError('name a key: medchat config unset <key>');
      store.unset(assertConfigKey(key));
      return 0;
    }
    case 'set': {
      if (!key) throw usageError('name a key and a value: medchat config set <key> <value>');
      const k = assertConfigKey(key);
      let raw = value;
      if (raw === undefined) {
        if (CONFIG_KEYS[k].type !== 'secret') throw usageError(`give a value: medchat config set ${k} <value>`);
        if (process.stdin.isTTY) {
          process.stderr.write(`Paste the ${k} and press Enter (it is not shown): `);
          raw = await readHiddenLine();
          process.stderr.write('\n');
        } else {
          raw = (await readStdinText()).trim();
        }
        if (!raw) throw usageError(`no ${k} arrived on stdin; pipe it in, e.g. pass show medchat | medchat config set ${k}`);
      }
      const parsed = parseConfigValue(k, raw);
      const forbidden = policyForbids(k, parsed);
      if (forbidden) throw new PolicyError(`${forbidden}; nothing was changed (see medchat policy)`);
      store.set(k, parsed);
      process.stderr.write(`${k} set to ${formatConfigValue(k, parsed)} in ${store.path}\n`);
      return 0;
    }
    default:
      throw usageError(`unknown config action "${action}"; use set, get, unset, list or path`);
  }
}

/** A value from the file as `config list` shows it; one that is not valid says so (and is not used). */
function shownStored(key: ConfigKey, value: unknown, file: string): string {
  try {
    return formatConfigValue(key, checkStoredValue(key, value, file));
  } catch {
    const raw = CONFIG_KEYS[key].type === 'secret' ? formatConfigValue(key, String(value)) : JSON.stringify(value) ?? String(value);
    return `${raw.length > 60 ? raw.slice(0, 59) + '…' : raw} (not valid: must be ${describeRule(key)})`;
  }
}

/** The value the policy puts in place of a stored or default value it does not allow (a list's first, the floor, the lock, the ceiling). */
function effectiveLocked(key: ConfigKey, value: ConfigValue | undefined): ConfigValue | undefined {
  if (key !== 'base-url' && key !== 'model' && value !== undefined && !policyForbids(key, value)) return value;
  return policyValue(key);
}

/** `config list`'s line for a key the policy locks: the value in force, marked; undefined when it does not lock it. */
function lockedView(key: ConfigKey, stored: unknown, file: string): string | undefined {
  const rule = policyRule(key);
  if (rule === undefined) return undefined;
  let value: ConfigValue | undefined;
  try {
    value = stored === undefined ? undefined : checkStoredValue(key, stored, file);
  } catch {
    value = undefined;
  }
  const usable = value !== undefined && !policyForbids(key, value);
  const effective = usable ? value : effectiveLocked(key, (CONFIG_KEYS[key] as { default?: ConfigValue }).default);
  const note = value !== undefined && !usable ? `; your ${formatConfigValue(key, value)} is ${key === 'base-url' || key === 'model' ? 'refused' : 'not used'}` : '';
  return `${formatConfigValue(key, effective)} (locked by policy: ${rule}${note})`;
}
