/**
 * Dates in free text, with their parts and a way to write another date in the same format (for
 * date shifting). Finds dates more specific than a year: day-month-year in numbers or words
 * (03/04/2025, 2025-03-04, 4 March 2025, March 4th, 2025, 03-Oct-44), day and month alone
 * (4 March, March 4, "on 28/03"), month and year (March 2025, 02/2024), and Chinese (2025年3月4日,
 * 3月4日). A year alone, times, durations ("2/7", "3/52", "day 3"), ratios and versions are not.
 */
export interface DateParts {
  y?: number;
  m: number;
  d?: number;
  /** For a date of two numbers: which came first as written ('dm' 03/04 = 3 April, 'md' = March 4). */
  order?: 'dm' | 'md';
}

export interface DateMatch {
  start: number;
  end: number;
  text: string;
  /** For an all-number date both readings that are possible, day-first first; otherwise one. */
  readings: DateParts[];
  /** Other parts written in this date's format (separators, padding, month style; a weekday is dropped). */
  render(parts: DateParts): string;
}

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
const MONTH_INDEX = new Map<string, number>();
MONTHS.forEach((m, i) => {
  MONTH_INDEX.set(m, i + 1);
  MONTH_INDEX.set(m.slice(0, 3), i + 1);
});
MONTH_INDEX.set('sept', 9);

const MONTH_RE = '((?:january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)\\.?)';
const ORD = '(\\d{1,2})(st|nd|rd|th)?';
const NOT_A_YEAR_AFTER = '(?![\\d:.]\\d|[ \\t]*(?:mg|mls?|mcg|units?|%|kg|mmol|hours?|days?|weeks?|patients?))';
const WEEKDAY = /(?:(?:mon|tues|wednes|thurs|fri|satur|sun)day|mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)\.?,?\s+(?:the\s+)?$/i;

function monthOf(word: string): number | undefined {
  return MONTH_INDEX.get(word.toLowerCase().replace(/\.$/, ''));
}

function year(text: string): number {
  const digits = text.replace(/^'/, '');
  const n = Number(digits);
  return digits.length === 2 ? n + (n < 50 ? 2000 : 1900) : n;
}

const DAYS_IN = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const validDay = (m: number, d: number) => m >= 1 && m <= 12 && d >= 1 && d <= DAYS_IN[m - 1]!;
const pad = (n: number, width: number) => String(n).padStart(width, '0');
const ordinal = (d: number) => (d % 10 === 1 && d !== 11 ? 'st' : d % 10 === 2 && d !== 12 ? 'nd' : d % 10 === 3 && d !== 13 ? 'rd' : 'th');
/** A number written like `like`: padded to two digits when `like` was ("04"), else as it comes. */
const num = (like: string, n: number) => pad(n, like.length >= 2 && like.startsWith('0') ? 2 : 1);
/** In an all-number date, two-digit parts (10/12/2025) mean padded parts. */
const numIn = (like: string, other: string, n: number) => pad(n, like.length >= 2 || other.length >= 2 ? (like.length >= 2 ? 2 : 1) : 1);
const yearLike = (like: string, y: number) => (like.replace(/^'/, '').length === 2 ? (like.startsWith("'") ? "'" : '') + pad(y % 100, 2) : String(y));

/** A month name written like `like`: full or short, capitalised, upper or lower case, with its dot. */
function monthLike(like: string, m: number): string {
  const dot = like.endsWith('.');
  const bare = dot ? like.slice(0, -1) : like;
  const full = MONTHS[m - 1]!;
  // Three letters ("May" too) are written short; "Sept" stays "Sept" for September.
  const short = bare.length <= 3 || (bare.length === 4 && MONTHS.indexOf(bare.toLowerCase()) < 0);
  let name = short ? (bare.length === 4 && m === 9 ? 'sept' : full.slice(0, 3)) : full;
  if (bare.length > 1 && bare === bare.toUpperCase()) name = name.toUpperCase();
  else if (bare[0] === bare[0]!.toUpperCase()) name = name[0]!.toUpperCase() + name.slice(1);
  return name + (dot && name.length < full.length ? '.' : '');
}

/** Lower-case `may`, `march` and short forms can be words ("you may", "march"): months only when capitalised or with a year. */
function monthWordOk(word: string, withYear: boolean): boolean {
  const bare = word.replace(/\.$/, '');
  if (!/^[a-z]/.test(bare) || withYear) return true;
  return bare.length > 4 && bare !== 'march';
}

/** Day-first and month-first readings of two numbers (the same reading once when a = b). */
function readingsOf(a: number, b: number, y?: number): DateParts[] {
  const out: DateParts[] = [];
  if (validDay(b, a)) out.push({ y, m: b, d: a, order: 'dm' });
  if (validDay(a, b) && a !== b) out.push({ y, m: a, d: b, order: 'md' });
  if (a === b && out[0]) delete out[0].order; // 04/04: either way
  return out;
}

/** Write two numbers in the order `p.order` says (else the order of the first reading). */
function inOrder(p: DateParts, readings: DateParts[]): [number, number] {
  const order = p.order ?? readings[0]!.order ?? 'dm';
  return order === 'dm' ? [p.d!, p.m] : [p.m, p.d!];
}

type Parsed = Pick<DateMatch, 'readings' | 'render'>;
type Rule = { re: RegExp; parse(x: RegExpExecArray): Parsed | undefined };
type Groups = (string | undefined)[];

const RULES: Rule[] = [
  // 2025-03-04, 2025/3/4, 2025.03.04 (also the date of 2025-03-04T10:00)
  {
    re: /(?<![\d./-])(\d{4})([-/.])(\d{1,2})\2(\d{1,2})(?!\d|[./-]\d)/g,
    parse(x) {
      const [, ys, sep, ms, ds] = x as unknown as string[];
      const y = Number(ys), m = Number(ms), d = Number(ds);
      if (!validDay(m, d) || y < 1850 || y > 2150) return undefined;
      return { readings: [{ y, m, d }], render: (p) => `${p.y}${sep}${numIn(ms!, ds!, p.m)}${sep}${numIn(ds!, ms!, p.d!)}` };
    },
  },
  // 03/04/2025, 3/4/25, 03.04.2025, 03-04-2025: day-first or month-first
  {
    re: /(?<![\d./-])(\d{1,2})([/.-])(\d{1,2})\2(\d{4}|\d{2})(?!\d|[./-]\d)/g,
    parse(x) {
      const [, as, sep, bs, ys] = x as unknown as string[];
      if (ys!.length === 2 && sep !== '/' && (as!.length < 2 || bs!.length < 2)) return undefined; // 2.1.13, 1-2-10: versions, ranges
      const readings = readingsOf(Number(as), Number(bs), year(ys!));
      if (!readings.length) return undefined;
      return {
        readings,
        render: (p) => {
          const [first, second] = inOrder(p, readings);
          return `${numIn(as!, bs!, first)}${sep}${numIn(bs!, as!, second)}${sep}${yearLike(ys!, p.y!)}`;
        },
      };
    },
  },
  // 4 March 2025, 4th of March, 2025, 03-Oct-1944, 12 Mar 24, 4 March
  {
    re: new RegExp(`(?<![\\d./-])${ORD}(\\s+of)?([\\s-]+)${MONTH_RE}(?:(,?[\\s-]+)(\\d{4}|'?\\d{2})${NOT_A_YEAR_AFTER})?(?![a-z])`, 'gi'),
    parse(x) {
      const [, ds, suffix, of, gap, mw, ysep, ys] = x as unknown as Groups;
      const m = monthOf(mw!), d = Number(ds);
      if (!m || !validDay(m, d)) return undefined;
      if (mw === 'may' && !ys) return undefined; // "3 may": not a date without a year
      const y = ys ? year(ys) : undefined;
      return {
        readings: [{ y, m, d }],
        render: (p) => `${num(ds!, p.d!)}${suffix ? ordinal(p.d!) : ''}${of ?? ''}${gap}${monthLike(mw!, p.m)}${ys ? `${ysep}${yearLike(ys, p.y!)}` : ''}`,
      };
    },
  },
  // March 4, 2025 / March 4th 2025 / Nov. 14, 1970 / May 6 / March 2025 / Sept 2024 / Mar-2024
  {
    re: new RegExp(`\\b${MONTH_RE}(?:(\\s+)${ORD}(?![\\d:.]\\d|[ \\t]*(?:mg|mls?|mcg|units?|%|kg|-[ \\t]*\\d|\\d))(?:(,?\\s+)(\\d{4})\\b)?|([\\s-]+)(\\d{4})\\b)`, 'gi'),
    parse(x) {
      const [, mw, gap, ds, suffix, ysep, ys, gap2, ys2] = x as unknown as Groups;
      const m = monthOf(mw!);
      if (!m || !monthWordOk(mw!, Boolean(ys ?? ys2))) return undefined;
      if (ds !== undefined) {
        const d = Number(ds);
        if (!validDay(m, d)) return undefined;
        const y = ys ? Number(ys) : undefined;
        return {
          readings: [{ y, m, d }],
          render: (p) => `${monthLike(mw!, p.m)}${gap}${num(ds, p.d!)}${suffix ? ordinal(p.d!) : ''}${ys ? `${ysep}${p.y}` : ''}`,
        };
      }
      const y = Number(ys2);
      if (y < 1850 || y > 2150) return undefined;
      return { readings: [{ y, m }], render: (p) => `${monthLike(mw!, p.m)}${gap2}${p.y}` };
    },
  },
  // 02/2024, 2-2024: month and year
  {
    re: /(?<![\d./-])(\d{1,2})([/.-])(\d{4})(?!\d|[./-]\d)/g,
    parse(x) {
      const [, ms, sep, ys] = x as unknown as string[];
      const m = Number(ms), y = Number(ys);
      if (m < 1 || m > 12 || y < 1900 || y > 2150) return undefined;
      return { readings: [{ y, m }], render: (p) => `${numIn(ms!, ms!, p.m)}${sep}${p.y}` };
    },
  },
  // 2025年3月4日, 2025年3月, 3月4日, 3月4号
  {
    re: /(?:(\d{4})\s*年\s*)?(\d{1,2})\s*月(?:\s*(\d{1,2})\s*([日号]))?/g,
    parse(x) {
      const [whole, ys, ms, ds, unit] = x as unknown as Groups;
      if (!ys && !ds) return undefined; // "3月" alone: a month, not a date
      const m = Number(ms);
      const y = ys ? Number(ys) : undefined;
      const d = ds ? Number(ds) : undefined;
      if (d !== undefined ? !validDay(m, d) : m < 1 || m > 12) return undefined;
      const sp = /\s/.test(whole!) ? ' ' : '';
      return {
        readings: [{ y, m, d }],
        render: (p) => `${ys ? `${p.y}${sp}年${sp}` : ''}${p.m}${sp}月${d !== undefined ? `${sp}${p.d}${unit}` : ''}`,
      };
    },
  },
  // on 28/03, expected 28/03: a day and month without a year, only after a word that introduces a date
  {
    // (The lookahead first: the lookbehind, which reads back over every space, runs only before a digit.)
    re: /(?=\d)(?<=\b(?:on|dated|expected|until|till|since|from)\s+)(\d{1,2})\/(\d{1,2})(?![\d/]|\.\d)/gi,
    parse(x) {
      const [, as, bs] = x as unknown as string[];
      const readings = readingsOf(Number(as), Number(bs));
      if (!readings.length) return undefined;
      return {
        readings,
        render: (p) => {
          const [first, second] = inOrder(p, readings);
          return `${numIn(as!, bs!, first)}/${numIn(bs!, as!, second)}`;
        },
      };
    },
  },
];

/** Every date in `text`, in order, none overlapping (the longer match wins). */
export function findDates(text: string): DateMatch[] {
  // Every rule needs a digit (a day, a month or a year in figures): without one there is no date, and the rules are not compiled.
  if (!/[0-9]/.test(text)) return [];
  const found: DateMatch[] = [];
  for (const rule of RULES) {
    rule.re.lastIndex = 0;
    for (let x = rule.re.exec(text); x; x = rule.re.exec(text)) {
      const parsed = rule.parse(x);
      if (!parsed) {
        rule.re.lastIndex = x.index + 1;
        continue;
      }
      let start = x.index;
      const end = x.index + x[0].length;
      // A weekday just before ("Saturday 1st March", "Tue, 4 March") is part of the date; a shifted date drops it.
      const before = WEEKDAY.exec(text.slice(Math.max(0, start - 16), start));
      if (before && !/\w/.test(text[start - before[0].length - 1] ?? ' ')) start -= before[0].length;
      found.push({ start, end, text: text.slice(start, end), ...parsed });
    }
  }
  found.sort((a, b) => a.start - b.start || b.end - a.end);
  const out: DateMatch[] = [];
  for (const f of found) {
    const last = out[out.length - 1];
    if (last && f.start < last.end) {
      if (f.end - f.start > last.end - last.start) out[out.length - 1] = f;
      continue;
    }
    out.push(f);
  }
  return out;
}
