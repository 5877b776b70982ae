/**
 * Which language medchat writes its own messages in: English or Simplified Chinese. Commands, flags,
 * config keys, exit codes and JSON keys are English in both; only the words a person reads change.
 *
 * Chosen, first that says: `MEDCHAT_LANG`, then the `language` config key (`medchat config set
 * language zh|en`), then the POSIX locale (`LC_ALL`, then `LC_MESSAGES`, then `LANG`), then the
 * operating system's locale; English when none names a language medchat has. A locale such as
 * `zh_CN.UTF-8`, `zh_TW`, `zh-Hans` or `zh` gives Chinese; `C`, `POSIX` and every other gives English.
 * `MEDCHAT_LANG` and the config key take `zh`/`en` or a locale name.
 */
export const LANGUAGES = ['en', 'zh'] as const;
export type Language = (typeof LANGUAGES)[number];

/** The language a locale or language name asks for: undefined when it is empty or names none (`C`, `POSIX`). */
export function languageOf(tag: string | undefined | null): Language | undefined {
  const t = (tag ?? '').trim().toLowerCase();
  if (t === '' || t === 'c' || t === 'posix' || t.startsWith('c.')) return undefined;
  if (/^zh(?:$|[-_.@])/.test(t) || t === 'chinese' || t === '中文') return 'zh';
  return 'en';
}

export interface LanguageSources {
  env?: NodeJS.ProcessEnv;
  /** The `language` config key, when set. */
  configured?: string;
  /** The operating system's locale (asked only when nothing before it says). */
  osLocale?: () => string | undefined;
}

/** Where the language came from, for `medchat config list` and tests. */
export type LanguageSource = 'MEDCHAT_LANG' | 'config' | 'LC_ALL' | 'LC_MESSAGES' | 'LANG' | 'os' | 'default';

export function chooseLanguage(sources: LanguageSources = {}): { language: Language; source: LanguageSource } {
  const env = sources.env ?? process.env;
  const fromMedchat = languageOf(env.MEDCHAT_LANG);
  if (fromMedchat) return { language: fromMedchat, source: 'MEDCHAT_LANG' };
  const fromConfig = languageOf(sources.configured);
  if (fromConfig) return { language: fromConfig, source: 'config' };
  // POSIX: the first of these that is set and not empty decides, even when it is C (then English).
  for (const name of ['LC_ALL', 'LC_MESSAGES', 'LANG'] as const) {
    const value = env[name];
    if (value !== undefined && value !== '') return { language: languageOf(value) ?? 'en', source: name };
  }
  const os = languageOf((sources.osLocale ?? systemLocale)());
  if (os) return { language: os, source: 'os' };
  return { language: 'en', source: 'default' };
}

/**
 * The operating system's locale, asked only on Windows, which keeps the user's language in its settings, not in
 * the environment. On Linux and macOS, ICU's default locale comes from the same variables read above, so with
 * none of them set it has nothing more to say (en-US); and asking loads ICU's locale data, about 8 MB of memory
 * and a few milliseconds, into every start (bench/oneshot.ts saw it).
 */
function systemLocale(): string | undefined {
  if (process.platform !== 'win32') return undefined;
  try {
    return Intl.DateTimeFormat().resolvedOptions().locale;
  } catch {
    return undefined;
  }
}

let configured: string | undefined;
let current: Language | undefined;

/**
 * The language of this process's messages, chosen at the first message written (a one-shot answer that needs no
 * message of medchat's never asks the operating system).
 */
export function language(): Language {
  return (current ??= chooseLanguage({ configured }).language);
}

/** The config file's `language` key, read before anything else (cli/program.ts); the choice waits for the first message. */
export function useConfiguredLanguage(value: string | undefined): void {
  configured = value;
  current = undefined;
}

/** Set once the config is read (cli/program.ts), or by a test. */
export function setLanguage(next: Language): void {
  current = next;
}
