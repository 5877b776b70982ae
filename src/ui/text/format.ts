import { indexAtWidth, textWidth } from './width.js';

/** Small number and time formats for the footer and the transcript. */
export function formatTokens(n: number): string {
  if (n < 1000) return String(Math.round(n));
  if (n < 100_000) return `${(n / 1000).toFixed(1).replace(/\.0$/, '')}k`;
  return `${Math.round(n / 1000)}k`;
}

/** A context window: 131072 reads as 128k (powers of two in KiB), 100000 as 100k. */
export function formatWindow(n: number): string {
  if (n >= 1024 && n % 1024 === 0) return `${n / 1024}k`;
  return formatTokens(n);
}

export function formatSeconds(ms: number): string {
  if (ms < 10_000) return `${(ms / 1000).toFixed(1)}s`;
  if (ms < 60_000) return `${Math.round(ms / 1000)}s`;
  const m = Math.floor(ms / 60_000);
  return `${m}m${String(Math.round((ms % 60_000) / 1000)).padStart(2, '0')}s`;
}

export interface Meter {
  used: number;
  window: number;
  /** Fraction of the window at which earlier turns get summarised; the meter warns a little before it. */
  warnAt?: number;
}

export function meterText(m: Meter): { text: string; level: 'ok' | 'warn' | 'full' } {
  const pct = m.window > 0 ? (m.used / m.window) * 100 : 0;
  const warnFrom = m.warnAt !== undefined ? Math.min(75, m.warnAt * 100 - 5) : 75;
  const level = pct >= 90 ? 'full' : pct >= warnFrom ? 'warn' : 'ok';
  return { text: `${formatTokens(m.used)} / ${formatWindow(m.window)} · ${Math.round(pct)}%`, level };
}

/** `text` cut to at most `cells` cells, with `…` where it was cut. */
export function shorten(text: string, cells: number): string {
  if (textWidth(text) <= cells) return text;
  return `${text.slice(0, indexAtWidth(text, Math.max(0, cells - 1)))}…`;
}
