import { formatTokens, formatWindow } from '../../core/text/format.js';
import { clusterStart, indexAtWidth, textWidth } from '../../core/text/width.js';

/** The footer meter's text, and shortening a line to its cells. Numbers are written by core/text/format.ts. */

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
  // indexAtWidth may end after a wide character that straddles the cut (Chinese): step back before it.
  let end = indexAtWidth(text, Math.max(0, cells - 1));
  while (end > 0 && textWidth(text.slice(0, end)) > cells - 1) end = clusterStart(text, end);
  return `${text.slice(0, end)}…`;
}
