import { requestText } from '../../i18n/messages/request.js';
/**
 * The `pattern`s of a user's schema, checked when it is loaded. JavaScript matches a regular
 * expression by backtracking: a group that repeats and holds a repeat of its own (`^(a+)+$`), or
 * chooses between alternatives that can start alike (`^(a|a)*$`), tries every way of splitting a
 * long string and never ends on some answers (the check runs on the main thread: not even SIGTERM
 * gets through). Such a pattern is refused before anything is sent, with what to write instead.
 * A repeated group holding a repeat is let through only when each round must begin with a
 * character none of its repeats can take (a separator: `^[a-z]+(?:-[a-z]+)*$`,
 * `^\d+(?:\.\d+)*$`): the rounds then split the text one way only. Otherwise the check errs on
 * the safe side (`^(a+b)+$` is refused though it is safe); a schema pattern is rarely more than
 * a shape check.
 */

interface Frame {
  /** A repeat whose count can vary (`*`, `+`, `?`, `{1,3}`) somewhere inside. */
  varies: boolean;
  /** The first character of each alternative when it is a plain character that must be there, else null. */
  firsts: Array<string | null | undefined>;
  /** The source of each atom inside whose count can vary (`[a-z]` of `[a-z]+`). */
  repeats: string[];
  /** Where the group's `(` is in the source. */
  start: number;
}

/** An atom a quantifier may follow: its source, the group it is (if one), and whether it was its alternative's first. */
interface Atom {
  src: string;
  group?: Frame;
  isFirst: boolean;
}

/** Why `source` can take exponential time, or undefined when it cannot by this check. */
export function riskyPattern(source: string): string | undefined {
  const stack: Frame[] = [{ varies: false, firsts: [undefined], repeats: [], start: 0 }];
  /** The atom a quantifier would apply to: a group (with what it holds) or a single character/class. */
  let last: Atom | undefined;
  /** Note `ch` as its alternative's first character if nothing came before; true if it was. */
  const first = (ch: string | null): boolean => {
    const f = stack[stack.length - 1]!;
    if (f.firsts[f.firsts.length - 1] !== undefined) return false;
    f.firsts[f.firsts.length - 1] = ch;
    return true;
  };
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    if (c === '\\') {
      const next = source[i + 1] ?? '';
      const isFirst = first(/[A-Za-z0-9]/.test(next) ? null : next);
      last = { src: source.slice(i, i + 2), isFirst };
      i++;
      continue;
    }
    if (c === '[') {
      let j = i + 1;
      if (source[j] === '^') j++;
      if (source[j] === ']') j++;
      while (j < source.length && source[j] !== ']') j += source[j] === '\\' ? 2 : 1;
      last = { src: source.slice(i, j + 1), isFirst: first(null) };
      i = j;
      continue;
    }
    if (c === '(') {
      first(null);
      stack.push({ varies: false, firsts: [undefined], repeats: [], start: i });
      if (source[i + 1] === '?') {
        // (?:  (?=  (?!  (?<=  (?<!  (?<name>
        const m = /^\?(?::|=|!|<=|<!|<[^>]*>)/.exec(source.slice(i + 1, i + 40));
        if (m) i += m[0].length;
      }
      last = undefined;
      continue;
    }
    if (c === ')') {
      if (stack.length === 1) return undefined; // not a pattern ajv would compile; it says so itself
      const group = stack.pop()!;
      const parent = stack[stack.length - 1]!;
      if (group.varies) parent.varies = true;
      parent.repeats.push(...group.repeats);
      last = { src: source.slice(group.start, i + 1), group, isFirst: false };
      continue;
    }
    if (c === '|') {
      stack[stack.length - 1]!.firsts.push(undefined);
      last = undefined;
      continue;
    }
    const q = quantifier(source, i);
    if (q) {
      const frame = stack[stack.length - 1]!;
      if (q.max > 1 && last?.group) {
        if (last.group.varies && !startsWithSeparator(last.group)) return requestText.patternNestedRepeat;
        const firsts = last.group.firsts;
        if (firsts.length > 1 && (firsts.some((f) => typeof f !== 'string') || new Set(firsts).size < firsts.length)) {
          return requestText.patternAlikeAlternatives;
        }
      }
      if (q.min !== q.max && last) {
        frame.varies = true;
        frame.repeats.push(last.src);
      }
      if (q.min === 0 && last?.isFirst) frame.firsts[frame.firsts.length - 1] = null; // it may be absent
      i += q.length - 1;
      last = undefined;
      continue;
    }
    last = { src: c, isFirst: first(c === '.' || c === '^' || c === '$' ? null : c) };
  }
  return undefined;
}

/** Each round of the group must begin with one plain character that none of its repeats can take. */
function startsWithSeparator(group: Frame): boolean {
  const [sep, ...others] = group.firsts;
  if (others.length || typeof sep !== 'string') return false;
  return !group.repeats.some((atom) => canTake(atom, sep));
}

function canTake(atom: string, ch: string): boolean {
  for (const flags of ['u', '']) {
    try {
      return new RegExp(`^(?:${atom})$`, flags).test(ch);
    } catch {
      // not valid with this flag: try the next
    }
  }
  return true;
}

function quantifier(source: string, i: number): { min: number; max: number; length: number } | undefined {
  const c = source[i];
  const lazy = (n: number) => (source[i + n] === '?' ? n + 1 : n);
  if (c === '*') return { min: 0, max: Infinity, length: lazy(1) };
  if (c === '+') return { min: 1, max: Infinity, length: lazy(1) };
  if (c === '?') return { min: 0, max: 1, length: lazy(1) };
  if (c !== '{') return undefined;
  const m = /^\{(\d+)(,(\d*))?\}/.exec(source.slice(i, i + 40));
  if (!m) return undefined;
  const min = Number(m[1]);
  const max = m[2] === undefined ? min : m[3] === '' ? Infinity : Number(m[3]);
  return { min, max, length: lazy(m[0].length) };
}

/** Every `pattern` and `patternProperties` name in a schema (not inside const, enum, default or examples, which are data). */
export function schemaPatterns(schema: unknown): string[] {
  const out: string[] = [];
  const stack: unknown[] = [schema];
  while (stack.length) {
    const node = stack.pop();
    if (node === null || typeof node !== 'object') continue;
    if (Array.isArray(node)) {
      for (const v of node) stack.push(v);
      continue;
    }
    for (const [key, v] of Object.entries(node as Record<string, unknown>)) {
      if (key === 'const' || key === 'enum' || key === 'default' || key === 'examples') continue;
      if (key === 'pattern' && typeof v === 'string') out.push(v);
      if (key === 'patternProperties' && v !== null && typeof v === 'object' && !Array.isArray(v)) out.push(...Object.keys(v));
      stack.push(v);
    }
  }
  return out;
}
