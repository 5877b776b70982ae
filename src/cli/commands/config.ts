import { CONFIG_KEYS, assertConfigKey, checkStoredValue, describeRule, formatConfigValue, parseConfigValue, type ConfigKey, type ConfigValue } from '../../core/config/config-keys.js';
import { ConfigStore } from '../../core/config/config-store.js';
import { usageError } from '../../core/errors.js';
import { byPolicy, PolicyError } from '../../core/config/policy.js';
import { policyForbids, policyRule, policyValue } from '../../core/config/settings.js';
import { readHiddenLine, readStdinText } from '../../core/io/stdin.js';
import { cliConfigText } from '../../core/i18n/messages/cli-config.js';

/** `medchat config set|get|unset|list|path`. Secrets are always shown masked. */
export async function configCommand(action: string, key: string | undefined, value: string | undefined, o: { yes?: boolean } = {}): Promise<number> {
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
        const shown = v !== undefined ? shownStored(k, v, store.path) : spec.default !== undefined ? cliConfigText.isDefault(formatConfigValue(k, spec.default as never)) : cliConfigText.unset;
        print(`${k.padEnd(width)}  ${lockedLine(k, v, store.path) ?? shown}`);
      }
      return 0;
    }
    case 'get': {
      if (!key) throw usageError(cliConfigText.getNeedsKey);
      const k = assertConfigKey(key);
      const stored = store.get(k);
      const v = stored ?? (CONFIG_KEYS[k] as { default?: never }).default;
      const lock = lockedView(k, stored);
      if (!lock) {
        print(formatConfigValue(k, v));
        return 0;
      }
      // Locked: the value in force (or the refused one) on stdout; what the policy says on stderr.
      print(formatConfigValue(k, lock.value));
      process.stderr.write(
        (lock.refused ? cliConfigText.refused(k, formatConfigValue(k, stored), byPolicy(), lock.rule) : cliConfigText.locked(k, byPolicy(), lock.rule)) + '\n',
      );
      return 0;
    }
    case 'unset': {
      if (!key) throw usageError(cliConfigText.unsetNeedsKey);
      const k = assertConfigKey(key);
      if (k === 'encrypt' && store.get(k) === true) {
        const { switchEncryption } = await import('./sessions-encrypt.js');
        await switchEncryption(false, o, () => store.unset(k));
        return 0;
      }
      store.unset(k);
      return 0;
    }
    case 'set': {
      if (!key) throw usageError(cliConfigText.setNeedsKey);
      const k = assertConfigKey(key);
      let raw = value;
      if (raw === undefined) {
        if (CONFIG_KEYS[k].type !== 'secret') throw usageError(cliConfigText.giveValue(k));
        if (process.stdin.isTTY) {
          process.stderr.write(cliConfigText.pasteSecret(k));
          raw = await readHiddenLine();
          process.stderr.write('\n');
        } else {
          raw = (await readStdinText()).trim();
        }
        if (!raw) throw usageError(cliConfigText.noSecretOnStdin(k));
      }
      const parsed = parseConfigValue(k, raw);
      const forbidden = policyForbids(k, parsed);
      if (forbidden) throw new PolicyError(cliConfigText.forbidden(forbidden));
      if (k === 'encrypt') {
        const { switchEncryption } = await import('./sessions-encrypt.js');
        await switchEncryption(parsed === true, o, () => store.set(k, parsed));
      } else store.set(k, parsed);
      process.stderr.write(`${cliConfigText.setTo(k, formatConfigValue(k, parsed), store.path)}\n`);
      return 0;
    }
    default:
      throw usageError(cliConfigText.unknownAction(action));
  }
}

/** A value from the file as `config list` shows it; one that is not valid says so (and is not used). */
function shownStored(key: ConfigKey, value: unknown, file: string): string {
  try {
    return formatConfigValue(key, checkStoredValue(key, value, file));
  } catch {
    const raw = CONFIG_KEYS[key].type === 'secret' ? formatConfigValue(key, String(value)) : JSON.stringify(value) ?? String(value);
    return cliConfigText.notValid(raw.length > 60 ? raw.slice(0, 59) + '…' : raw, describeRule(key));
  }
}

/**
 * A key the policy locks, as `config get` and `list` show it: the value in force (a stored one the
 * policy allows, else its floor, lock, ceiling or first allowed) and the rule; a stored service or
 * model outside its lists is shown as it is, refused. Undefined when the policy does not lock it.
 */
function lockedView(key: ConfigKey, stored: ConfigValue | undefined): { value: ConfigValue | undefined; rule: string; refused: boolean; overridden: boolean } | undefined {
  const rule = policyRule(key);
  if (rule === undefined) return undefined;
  const forbidden = stored !== undefined && policyForbids(key, stored) !== undefined;
  const isList = key === 'base-url' || key === 'model';
  if (forbidden && isList) return { value: stored, rule, refused: true, overridden: false };
  if (stored !== undefined && !forbidden) return { value: stored, rule, refused: false, overridden: false };
  const fallback = (CONFIG_KEYS[key] as { default?: ConfigValue }).default;
  const value = !isList && fallback !== undefined && !policyForbids(key, fallback) ? fallback : policyValue(key);
  return { value, rule, refused: false, overridden: forbidden };
}

/** `config list`'s text for a locked key: `redact (locked by policy: redact)`. */
function lockedLine(key: ConfigKey, stored: unknown, file: string): string | undefined {
  let value: ConfigValue | undefined;
  try {
    value = stored === undefined ? undefined : checkStoredValue(key, stored, file);
  } catch {
    value = undefined;
  }
  const lock = lockedView(key, value);
  if (!lock) return undefined;
  if (lock.refused) return cliConfigText.listRefused(formatConfigValue(key, lock.value), lock.rule, key);
  return cliConfigText.listLocked(formatConfigValue(key, lock.value), lock.rule, lock.overridden ? formatConfigValue(key, value) : undefined);
}
