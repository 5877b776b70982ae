import { findDates, type DateMatch, type DateParts } from './date-parse.js';

/**
 * Date shifting (`--shift-dates`): every date moves by the same number of days for the whole
 * conversation, so intervals ("3 days after admission", age at an event) survive while the real
 * dates do not leave the machine. The offset is random, 30 to 365 days either way, and held in
 * memory. A date without a year moves within a reference year; a month and year moves by its
 * 15th. Day-first or month-first for 03/04/2025: what the other dates of the text show (a date
 * like 23/09 or 09/23), day-first when nothing does.
 */
const DAY_MS = 86_400_000;

export class DateShifter {
  constructor(
    readonly days: number,
    /** The year used for dates written without one. */
    readonly referenceYear = new Date().getUTCFullYear(),
  ) {}

  static random(random: () => number = Math.random): DateShifter {
    const size = 30 + Math.floor(random() * 336);
    return new DateShifter(random() < 0.5 ? -size : size);
  }

  /** `text` with every date moved by `days` (or back, with `back`); returns the new text and what changed. */
  shiftText(text: string, opts: { back?: boolean; order?: 'dm' | 'md' } = {}): { text: string; changed: Array<{ from: string; to: string; start: number }> } {
    const dates = findDates(text);
    const order = opts.order ?? preferredOrder(dates);
    let out = '';
    let last = 0;
    const changed: Array<{ from: string; to: string; start: number }> = [];
    for (const d of dates) {
      const to = this.shiftOne(d, opts.back ? -this.days : this.days, order);
      out += text.slice(last, d.start);
      changed.push({ from: d.text, to, start: out.length });
      out += to;
      last = d.end;
    }
    return { text: out + text.slice(last), changed };
  }

  /** One date (a finding's text) moved; the text unchanged when it is not a date. */
  shiftDate(text: string, opts: { back?: boolean; order?: 'dm' | 'md' } = {}): string {
    const d = findDates(text).find((x) => x.start === 0 && x.end === text.length);
    if (!d) return text;
    return this.shiftOne(d, opts.back ? -this.days : this.days, opts.order ?? 'dm');
  }

  private shiftOne(d: DateMatch, days: number, order: 'dm' | 'md'): string {
    const parts = d.readings.find((r) => r.order === order) ?? d.readings[0]!;
    return d.render(move(parts, days, this.referenceYear));
  }
}

function move(p: DateParts, days: number, referenceYear: number): DateParts {
  const y = p.y ?? referenceYear;
  const t = Date.UTC(y, p.m - 1, p.d ?? 15) + days * DAY_MS;
  const n = new Date(t);
  return { y: p.y === undefined ? undefined : n.getUTCFullYear(), m: n.getUTCMonth() + 1, d: p.d === undefined ? undefined : n.getUTCDate(), order: p.order };
}

/** Day-first unless the text's unambiguous number dates are month-first (09/23/1967). */
export function preferredOrder(dates: readonly DateMatch[]): 'dm' | 'md' {
  let dm = 0;
  let md = 0;
  for (const d of dates) {
    if (d.readings.length !== 1) continue;
    if (d.readings[0]!.order === 'dm') dm++;
    if (d.readings[0]!.order === 'md') md++;
  }
  return md > dm ? 'md' : 'dm';
}
