import type { DateShifter } from './date-shift.js';
import { KINDS } from './kinds.js';
import { placeholderLike, type PlaceholderMap } from './placeholders.js';

/**
 * Put the real values back into an answer: each placeholder this conversation made ([NAME-1],
 * also written [name-1], [NAME 1] or NAME-1 by the model) becomes its value, passed through
 * `mark` so the user can tell what was put back. With date shifting, every date in the answer
 * is moved back by the same offset (the model's own dates too: they were worked out from the
 * shifted ones), and marked the same way. Placeholders this conversation never made stay as
 * they are.
 */
export type Mark = (value: string, placeholder: string) => string;
export interface PutBack {
  placeholder: string;
  value: string;
}


export function restoreText(
  text: string,
  map: PlaceholderMap,
  mark: Mark = (v) => v,
  shift?: { shifter: DateShifter; order: 'dm' | 'md' },
): { text: string; putBack: PutBack[] } {
  const putBack: PutBack[] = [];
  let out = '';
  let last = 0;
  for (const p of placeholderLike(text)) {
    const value = map.valueOf(p.placeholder);
    if (value === undefined) continue;
    putBack.push({ placeholder: p.placeholder, value });
    out += text.slice(last, p.start) + mark(value, p.placeholder);
    last = p.end;
  }
  out += text.slice(last);
  if (shift) {
    const shifted = shift.shifter.shiftText(out, { back: true, order: shift.order });
    if (shifted.changed.length) {
      // Mark each date moved back (marking may add characters, so rebuild from the change list).
      let rebuilt = '';
      let last = 0;
      for (const c of shifted.changed) {
        rebuilt += shifted.text.slice(last, c.start) + mark(c.to, c.from);
        last = c.start + c.to.length;
        putBack.push({ placeholder: c.from, value: c.to });
      }
      out = rebuilt + shifted.text.slice(last);
    }
  }
  return { text: out, putBack };
}

/**
 * The same for an answer arriving in pieces: a placeholder split across pieces ("[NAM" + "E-1]")
 * is held back until it is whole; with date shifting, whole lines are let through (a date never
 * spans lines). `end()` lets the rest through.
 */
export class StreamRestorer {
  private held = '';
  readonly putBack: PutBack[] = [];

  constructor(
    private readonly map: PlaceholderMap,
    private readonly mark: Mark = (v) => v,
    private readonly shift?: { shifter: DateShifter; order: 'dm' | 'md' },
  ) {}

  push(chunk: string): string {
    if (this.shift) {
      // Only the new piece is searched for a line's end: what is held has none (a line without
      // end is held whole, but each character is looked at once).
      const nl = chunk.lastIndexOf('\n');
      if (nl < 0) {
        this.held += chunk;
        return '';
      }
      const line = this.held + chunk.slice(0, nl + 1);
      this.held = chunk.slice(nl + 1);
      return this.run(line);
    }
    const text = this.held + chunk;
    const cut = safeCut(text);
    this.held = text.slice(cut);
    return this.run(text.slice(0, cut));
  }

  end(): string {
    const rest = this.held;
    this.held = '';
    return this.run(rest);
  }

  private run(text: string): string {
    if (!text) return '';
    const r = restoreText(text, this.map, this.mark, this.shift);
    this.putBack.push(...r.putBack);
    return r.text;
  }
}

const PREFIXES = new Set(KINDS.flatMap((k) => Array.from({ length: k.length }, (_, i) => k.slice(0, i + 1))));

/** Where the text can be cut without splitting a placeholder: before an unclosed "[…" or a trailing "NAM", "NAME-1". */
function safeCut(text: string): number {
  const open = text.lastIndexOf('[');
  if (open >= 0 && text.indexOf(']', open) < 0 && text.length - open <= 24 && !text.includes('\n', open)) return open;
  const bare = /(?<![A-Za-z])([A-Za-z]{1,7})(-\d{0,6})?$/.exec(text);
  if (bare && PREFIXES.has(bare[1]!.toUpperCase()) && (bare[2] !== undefined || bare[1]!.length < 8)) return bare.index;
  return text.length;
}
