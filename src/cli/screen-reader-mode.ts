import { ConfigStore } from '../core/config/config-store.js';
import { resolveValue } from '../core/config/settings.js';

/**
 * Screen-reader mode for the chat screen (`medchat`, `medchat demo`): the flag (`--screen-reader`,
 * `--no-screen-reader`), then INK_SCREEN_READER=true (the variable Ink and gemini-cli read), then the
 * config key `screen-reader`.
 */
export function screenReaderMode(flag: boolean | undefined, store: ConfigStore = new ConfigStore(), env: NodeJS.ProcessEnv = process.env): boolean {
  if (flag !== undefined) return flag;
  if (env.INK_SCREEN_READER?.trim().toLowerCase() === 'true') return true;
  return resolveValue('screen-reader', { store, env }) === true;
}
