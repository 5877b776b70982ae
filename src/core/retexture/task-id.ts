/**
 * Task ids are opaque strings. Services send them as JSON strings or as bare JSON numbers that
 * may pass 2^53 (and, from lenient servers, even with a leading zero), so responses are parsed
 * here without ever turning a number into a JavaScript number first.
 *
 * `parseJsonLossless` is a small strict-enough JSON parser with one difference from JSON.parse:
 * an integer that is not a safe JavaScript integer, or that starts with a 0, stays a string
 * holding its digits exactly; and the values of id-like keys (`result`, `id`, `taskId`, `ids`)
 * are always strings.
 */

import { usageError } from '../errors.js';
import { retextureText } from '../i18n/messages/retexture.js';

const ID_KEYS = new Set(['result', 'id', 'taskId', 'task_id', 'ids']);

export class JsonSyntaxError extends Error {}

/** A parsed number token: its exact source text. Turned into a string or a number by context. */
class NumberToken {
  constructor(readonly text: string) {}
}

export function parseJsonLossless(text: string): unknown {
  let i = 0;
  const s = text;
  const fail = (what: string): never => {
    // i18n-exempt: the lossless JSON parser's internal error: a body that fails is treated as not JSON
    throw new JsonSyntaxError(`${what} at position ${i}`);
  };
  const ws = () => {
    while (i < s.length && (s[i] === ' ' || s[i] === '\n' || s[i] === '\r' || s[i] === '\t')) i++;
  };
  const value = (): unknown => {
    ws();
    const ch = s[i];
    if (ch === '{') return object();
    if (ch === '[') return array();
    if (ch === '"') return string();
    if (ch === '-' || (ch !== undefined && ch >= '0' && ch <= '9')) return number();
    if (s.startsWith('true', i)) return (i += 4), true;
    if (s.startsWith('false', i)) return (i += 5), false;
    if (s.startsWith('null', i)) return (i += 4), null;
    // i18n-exempt: the lossless JSON parser's internal error: a body that fails is treated as not JSON
    return fail(ch === undefined ? 'unexpected end of JSON' : `unexpected character ${JSON.stringify(ch)}`);
  };
  const number = (): NumberToken => {
    const m = /^-?\d+(\.\d+)?([eE][+-]?\d+)?/.exec(s.slice(i, i + 400));
    // i18n-exempt: the lossless JSON parser's internal error: a body that fails is treated as not JSON
    if (!m) return fail('bad number');
    i += m[0].length;
    return new NumberToken(m[0]);
  };
  const string = (): string => {
    i++; // opening quote
    let out = '';
    for (;;) {
      const end = s.indexOf('"', i);
      // i18n-exempt: the lossless JSON parser's internal error: a body that fails is treated as not JSON
      if (end < 0) fail('unterminated string');
      const back = s.indexOf('\\', i);
      if (back >= 0 && back < end) {
        out += s.slice(i, back);
        const e = s[back + 1];
        i = back + 2;
        if (e === 'u') {
          const hex = s.slice(i, i + 4);
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) fail('bad \\u escape');
          out += String.fromCharCode(parseInt(hex, 16));
          i += 4;
        } else {
          const map: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
          const c = e === undefined ? undefined : map[e];
          // i18n-exempt: the lossless JSON parser's internal error: a body that fails is treated as not JSON
          if (c === undefined) fail('bad escape');
          out += c;
        }
        continue;
      }
      out += s.slice(i, end);
      i = end + 1;
      return out;
    }
  };
  const finish = (v: unknown, idLike: boolean): unknown => {
    if (v instanceof NumberToken) return idLike ? v.text : numberValue(v.text);
    if (Array.isArray(v) && idLike) return v.map((x) => (x instanceof NumberToken ? x.text : x));
    return v;
  };
  const array = (): unknown[] => {
    i++;
    const out: unknown[] = [];
    ws();
    if (s[i] === ']') return i++, out;
    for (;;) {
      out.push(value());
      ws();
      if (s[i] === ',') {
        i++;
        continue;
      }
      if (s[i] === ']') {
        i++;
        return out.map((x) => finish(x, false));
      }
      fail('expected , or ]');
    }
  };
  const object = (): Record<string, unknown> => {
    i++;
    const out: Record<string, unknown> = {};
    ws();
    if (s[i] === '}') return i++, out;
    for (;;) {
      ws();
      if (s[i] !== '"') fail('expected a key');
      const key = string();
      ws();
      if (s[i] !== ':') fail('expected :');
      i++;
      const v = value();
      Object.defineProperty(out, key, { value: finish(v, ID_KEYS.has(key)), enumerable: true, writable: true, configurable: true });
      ws();
      if (s[i] === ',') {
        i++;
        continue;
      }
      if (s[i] === '}') return i++, out;
      fail('expected , or }');
    }
  };
  const result = finish(value(), false);
  ws();
  // i18n-exempt: the lossless JSON parser's internal error: a body that fails is treated as not JSON
  if (i < s.length) fail('unexpected text after JSON');
  return result;
}

/** A number token's value: a JS number when that is exact, else its digits as a string. */
function numberValue(text: string): number | string {
  if (/^-?\d+$/.test(text)) {
    if (/^-?0\d/.test(text)) return text; // leading zero: keep the digits
    const n = Number(text);
    return Number.isSafeInteger(n) ? n : text;
  }
  return Number(text);
}

/** Turn whatever a service sent as an id into the opaque id string, or undefined when there is none. */
export function taskIdFrom(value: unknown): string | undefined {
  if (typeof value === 'string') {
    const t = value.trim();
    return t === '' ? undefined : t;
  }
  // Only reached for values that did not come through parseJsonLossless (safe integers at most).
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
  return undefined;
}

/**
 * Ids medchat passes on: what services make (digits, usually; sometimes letters, UUIDs, `a:b`),
 * never a path (`..`, `/`), a query (`?`, `#`, `%`), whitespace, quotes or shell syntax. An id
 * goes into a URL path (encoded there as well) and into commands medchat suggests.
 */
const USABLE_ID = /^[A-Za-z0-9_][A-Za-z0-9_.:@+=~-]{0,199}$/;

export const isUsableTaskId = (id: string): boolean => USABLE_ID.test(id);

/** Check an id the user typed; it goes into a URL path (encoded there too), never altered. */
export function checkTaskIdArgument(raw: string): string {
  const id = raw.trim();
  if (!isUsableTaskId(id)) {
    throw usageError(retextureText.badTaskId(JSON.stringify(id.slice(0, 40))));
  }
  return id;
}
