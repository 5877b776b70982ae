import { jsonForTerminal } from './sanitize.js';
/**
 * Finds API keys in text and masks them. The rule the suite checks: no run of RUN_LENGTH or more
 * consecutive characters of a key (compared case-insensitively, also in its URL-encoded and
 * JSON-escaped forms) survives. Every window of RUN_LENGTH characters that is a piece of a key is
 * marked; marked windows that overlap or touch form one run, and each run becomes the mask
 * (`sk-…a1b2`). So a whole key, a key cut short, a lower-cased or upper-cased echo, and a
 * `%2F`-encoded echo are all masked, and the mask itself holds no run of the key.
 */
export const RUN_LENGTH = 8;

interface Form {
  /** The form, ASCII-lower-cased. */
  text: string;
  /** Windows of `size` characters of `text` (size = min(RUN_LENGTH, text.length)). */
  size: number;
  windows: Set<string>;
  mask: string;
}

const forms: Form[] = [];
const known = new Set<string>();
/** Every character of every form: a window holding any other character cannot match. */
const keyChars = new Set<number>();

/** `sk-…a1b2`: a prefix such as `sk-` and the last four characters, never a run of the key. */
export function maskKey(secret: string): string {
  const s = secret.trim();
  const printable = (t: string) => t.replace(/[^\x21-\x7e]/g, '?');
  if (s.length <= RUN_LENGTH) return '…' + (s.length > 4 ? printable(s.slice(-2)) : '');
  const dash = s.indexOf('-');
  const prefix = dash > 0 && dash <= 4 ? s.slice(0, dash + 1) : '';
  return `${printable(prefix)}…${printable(s.slice(-4))}`;
}

/** ASCII-only lower-casing: the same length as the input, so positions line up. */
function fold(text: string): string {
  return text.replace(/[A-Z]+/g, (m) => m.toLowerCase());
}

/** Remember a key in use: from now on `redact` masks it (and its pieces). Keys under 6 characters are ignored. */
export function registerSecret(secret: string | undefined): void {
  const s = secret?.trim();
  if (!s || s.length < 6 || known.has(s)) return;
  known.add(s);
  const mask = maskKey(s);
  // As sent, URL-encoded (the usual way, and with every punctuation mark as %XX, as some
  // encoders do), and JSON-escaped.
  const percentAll = s.replace(/[^A-Za-z0-9]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0'));
  const variants = new Set([s, encodeURIComponent(s), percentAll, JSON.stringify(s).slice(1, -1)]);
  for (const v of variants) {
    const text = fold(v);
    const size = Math.min(RUN_LENGTH, text.length);
    const windows = new Set<string>();
    for (let i = 0; i + size <= text.length; i++) windows.add(text.slice(i, i + size));
    for (let i = 0; i < text.length; i++) keyChars.add(text.charCodeAt(i));
    forms.push({ text, size, windows, mask });
  }
}

/** Forget every key (tests only). */
export function clearSecrets(): void {
  forms.length = 0;
  known.clear();
  keyChars.clear();
}

interface Run {
  start: number;
  end: number;
  mask: string;
}

/** The runs to mask in `text` (sorted, merged when they overlap or touch). */
function findRuns(text: string): Run[] {
  if (forms.length === 0) return [];
  const folded = fold(text);
  const n = folded.length;
  // stretchEnd[i]: where the stretch of key characters holding position i ends (i itself when it is not one).
  const stretchEnd = new Int32Array(n + 1);
  stretchEnd[n] = n;
  for (let i = n - 1; i >= 0; i--) stretchEnd[i] = keyChars.has(folded.charCodeAt(i)) ? stretchEnd[i + 1]! : i;
  const runs: Run[] = [];
  for (let i = 0; i < n; i++) {
    for (const f of forms) {
      if (stretchEnd[i]! < i + f.size || !f.windows.has(folded.slice(i, i + f.size))) continue;
      const last = runs.at(-1);
      if (last && i <= last.end) last.end = Math.max(last.end, i + f.size);
      else runs.push({ start: i, end: i + f.size, mask: f.mask });
    }
  }
  return runs;
}

function applyRuns(text: string, runs: readonly Run[], upTo = text.length): string {
  let out = '';
  let at = 0;
  for (const r of runs) {
    if (r.start >= upTo) break;
    out += text.slice(at, r.start) + r.mask;
    at = r.end;
  }
  return out + text.slice(at, upTo);
}

/** `text` with every run of a registered key masked. */
export function redact(text: string): string {
  if (forms.length === 0 || text.length === 0) return text;
  return applyRuns(text, findRuns(text));
}

/** A copy of a JSON-like value with every string (values and property names) redacted. */
export function redactDeep<T>(value: T): T {
  if (forms.length === 0) return value;
  if (typeof value === 'string') return redact(value) as T;
  if (Array.isArray(value)) return value.map((v) => redactDeep(v)) as T;
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[redact(k)] = redactDeep(v);
    return out as T;
  }
  return value;
}

/** `JSON.stringify` of `value` with every key masked (what `--json` prints from service records). */
export function redactedJson(value: unknown): string {
  // Control and bidi characters as \u escapes: the same value, safe on a terminal.
  return jsonForTerminal(redactDeep(value));
}

/** Could `tail` (shorter than a window) still grow into a window of some key? */
function couldStartRun(tail: string): boolean {
  const t = fold(tail);
  return forms.some((f) => t.length < f.size && f.text.includes(t));
}

/**
 * Redacts a text that arrives in pieces (an answer streamed chunk by chunk), so that the pieces it
 * gives out, joined, equal `redact` of the whole text. It holds back only what could still turn
 * out to be part of a key: the end of the text when that end is a piece of a key, or a run that
 * reaches the end (it may go on). `end()` gives out the rest.
 */
export class StreamRedactor {
  private pending = '';
  /** Held text beyond this many characters is given out even if a run might go on (bounds memory). */
  static readonly MAX_HELD = 64 * 1024;

  push(chunk: string): string {
    if (forms.length === 0) {
      const out = this.pending + chunk;
      this.pending = '';
      return out;
    }
    const text = this.pending + chunk;
    const runs = findRuns(text);
    let cut = text.length;
    for (let k = 1; k < RUN_LENGTH && k <= text.length; k++) {
      if (couldStartRun(text.slice(text.length - k))) cut = text.length - k;
    }
    const last = runs.at(-1);
    if (last && last.end >= cut) cut = last.start;
    if (text.length - cut > StreamRedactor.MAX_HELD) cut = text.length;
    const done = runs.filter((r) => r.start < cut);
    const out = applyRuns(text, done, cut);
    this.pending = text.slice(cut);
    return out;
  }

  end(): string {
    const out = redact(this.pending);
    this.pending = '';
    return out;
  }
}
