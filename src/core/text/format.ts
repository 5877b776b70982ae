/**
 * How medchat writes a token count or a length of time, wherever it shows one: the chat screen's
 * footer, meter, fold line, answer figures and /tokens, the transcript viewer, one-shot's stderr,
 * batch progress and its summary, retexture progress and its deadlines, and the refusals of what
 * does not fit. One form each, so two places never show the same number two ways:
 *
 * - tokens: `950`, `2k`, `2.1k`, `61.2k`, `123k`, `1.5M` (a `.0` is dropped);
 * - a context window: `128k` for 131072 (a power of two in KiB), else as tokens;
 * - durations: `0.15s`, `0.3s` (hundredths below 1 s), `8.2s`, `8s` (tenths below 10 s; no
 *   trailing zeros), `12s`, `1m05s`, `15m`, `1h05m`, `2h` (whole seconds from 10 s, seconds padded
 *   to two digits, zero parts dropped);
 * - when a session was saved, in lists: `2026-11-22 14:30`, local time.
 */

import { textText } from '../i18n/messages/text.js';

/** `n` to one decimal (two: `hundredths`), rounding half up, without trailing zeros (numbers print that way). */
const tenths = (n: number): number => Math.round(n * 10) / 10;
const hundredths = (n: number): number => Math.round(n * 100) / 100;

/** A token count, short: `950`, `2k`, `2.1k`, `61.2k`, `123k`, `1.5M`. */
export function formatTokens(n: number): string {
  if (!Number.isFinite(n)) return '?';
  if (n < 0) return `-${formatTokens(-n)}`;
  const whole = Math.round(n);
  if (whole < 1000) return String(whole);
  if (whole < 99_950) return `${tenths(whole / 1000)}k`;
  const k = Math.round(whole / 1000);
  if (k < 1000) return `${k}k`;
  const m = whole / 1_000_000;
  return m < 99.95 ? `${tenths(m)}M` : `${Math.round(m)}M`;
}

/** A context window: 131072 reads as `128k` (powers of two in KiB), 100000 as `100k`. */
export function formatWindow(n: number): string {
  if (n >= 1024 && n % 1024 === 0) return `${n / 1024}k`;
  return formatTokens(n);
}

/** A length of time in milliseconds: `0.15s`, `0.3s`, `8.2s`, `8s`, `12s`, `1m05s`, `15m`, `1h05m`. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms)) return '?';
  ms = Math.max(0, ms);
  if (ms < 995) return `${hundredths(ms / 1000)}s`;
  if (ms < 9_950) return `${tenths(ms / 1000)}s`;
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  if (s < 3600) {
    const rest = s % 60;
    return `${Math.floor(s / 60)}m${rest ? `${String(rest).padStart(2, '0')}s` : ''}`;
  }
  const minutes = Math.round(s / 60);
  const rest = minutes % 60;
  return `${Math.floor(minutes / 60)}h${rest ? `${String(rest).padStart(2, '0')}m` : ''}`;
}

/** Whole seconds, as a clock that counts them shows them: `8s`, `59s`, `1m05s`. */
export function formatSeconds(seconds: number): string {
  return formatDuration(Math.floor(seconds) * 1000);
}

/** `1 token`, `612 tokens`, `2.1k tokens`. */
export function tokensWord(n: number): string {
  return textText.tokens(formatTokens(n), Math.round(n) === 1);
}

/** A count with its noun: `1 saved conversation`, `3 saved conversations`, `2 days`. */
export function counted(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** What a conversion of the history touched: `3 saved conversations and the prompt history`; '' when nothing. */
export function historyTouched(r: { sessions: number; prompts: boolean }): string {
  return [r.sessions ? textText.savedConversations(r.sessions) : '', r.prompts ? textText.promptHistory : ''].filter(Boolean).join(textText.and);
}

/** A time in lists (`medchat sessions list`, `/sessions`): `2026-11-22 14:30`, local time; `-` when unknown. */
export function formatListTime(iso: string | number | undefined): string {
  const d = new Date(iso ?? '');
  if (iso === undefined || iso === '' || Number.isNaN(d.getTime())) return '-';
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}`;
}
