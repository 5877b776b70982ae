import { language } from './language.js';

/**
 * The message catalogue: every message medchat writes, in English and Simplified Chinese, side by side
 * in the files under `messages/` (one file per area; together they are the one catalogue).
 *
 *   export const configText = messages('config', {
 *     unknownKey: (key: string) => `unknown config key "${key}"; see the keys with: medchat config list`,
 *   }, {
 *     unknownKey: (key) => `未知的配置项 "${key}"；查看所有配置项：medchat config list`,
 *   });
 *   throw usageError(configText.unknownKey(key));
 *
 * The Chinese half must have every key of the English half with the same parameters, or the type
 * check fails: a message cannot ship without its translation. Each read picks the language of the
 * moment (language.ts), so a module may hold the catalogue from before the config was read.
 */
export type Text = string | ((...args: never[]) => string);

/** Every catalogue made, by name, for the test that checks each has both languages in full. */
export const CATALOGUES = new Map<string, { en: Record<string, Text>; zh: Record<string, Text> }>();

export function messages<T extends Record<string, Text>>(name: string, en: T, zh: NoInfer<{ [K in keyof T]: T[K] }>): Readonly<T> {
  if (CATALOGUES.has(name)) throw new Error(`message catalogue "${name}" is defined twice`);
  CATALOGUES.set(name, { en, zh });
  const picked = {} as T;
  for (const key of Object.keys(en) as Array<keyof T>) {
    Object.defineProperty(picked, key, { enumerable: true, get: () => (language() === 'zh' ? zh[key] : en[key]) });
  }
  return Object.freeze(picked);
}
