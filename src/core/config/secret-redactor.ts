import { jsonForTerminal } from '../text/sanitize.js';
/**
 * Finds API keys in text and masks them. The rule the suite checks: no run of RUN_LENGTH or more
 * consecutive characters of a key (compared case-insensitively, also in its URL-encoded and
 * JSON-escaped forms) survives. Every window of RUN_LENGTH characters that is a piece of a key is
 * marked; marked windows that overlap or touch form one run, and each run becomes the mask
 * (`sk-…a1b2`). So a whole key, a key cut short, a lower-cased or upper-cased echo, and a
 * `%2F`-encoded echo are all masked, and the mask itself holds no run of the key; nor does it
 * make one with the text beside it (a piece of the key too short to be a run: the side of the
 * mask that would join it is left out, `…a1b2` or `sk-…`).
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
/**
 * Every pair of adjacent characters of every form (folded): a window of a key has each of its
 * pairs here. Pairs of ASCII characters in a table, others in a set. Most text, even text made
 * only of key characters (a long key holds most letters), has a pair no key holds every few
 * characters, so it can be passed on without looking for windows at all (see `mayHoldKey`).
 */
const asciiPairs = new Uint8Array(128 * 128);
const otherPairs = new Set<number>();
const asciiKeyChars = new Uint8Array(128);
/** The smallest window of any form (a key shorter than RUN_LENGTH is one window). */
let minWindow = RUN_LENGTH;

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
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      keyChars.add(c);
      if (c < 128) asciiKeyChars[c] = 1;
      if (i > 0) {
        const p = text.charCodeAt(i - 1);
        if (p < 128 && c < 128) asciiPairs[(p << 7) | c] = 1;
        else otherPairs.add(p * 0x10000 + c);
      }
    }
    minWindow = Math.min(minWindow, size);
    forms.push({ text, size, windows, mask });
  }
}

/** Forget every key (tests only). */
export function clearSecrets(): void {
  forms.length = 0;
  known.clear();
  keyChars.clear();
  asciiPairs.fill(0);
  otherPairs.clear();
  asciiKeyChars.fill(0);
  minWindow = RUN_LENGTH;
}

/** How many characters at the end of the text `mayHoldKey` last looked at could be part of one stretch of a key. */
let stretchAtEnd = 0;

/**
 * One pass over `text` (no allocation): false when no window of any key can be in it, because no
 * stretch of `minWindow` characters has every character and every adjacent pair in some key form
 * (compared folded). Also sets `stretchAtEnd`: the length of such a stretch that ends the text (0
 * when the last character is in no key): only an end that long could start a key.
 */
function mayHoldKey(text: string): boolean {
  let run = 0;
  let prev = 0;
  for (let i = 0; i < text.length; i++) {
    let c = text.charCodeAt(i);
    if (c >= 65 && c <= 90) c += 32; // as `fold`
    if (c < 128 ? asciiKeyChars[c] === 0 : !keyChars.has(c)) run = 0;
    else if (run > 0 && (prev < 128 && c < 128 ? asciiPairs[(prev << 7) | c] === 1 : otherPairs.has(prev * 0x10000 + c))) {
      if (++run >= minWindow) return true;
    } else run = 1;
    prev = c;
  }
  stretchAtEnd = run;
  return false;
}

interface Run {
  start: number;
  end: number;
  mask: string;
}

/** The runs to mask in `text` (sorted, merged when they overlap or touch). */
function findRuns(text: string): Run[] {
  if (forms.length === 0 || !mayHoldKey(text)) return [];
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

/** `text` with `runs` masked (each mask shaped by what is shown before it, kept as its last few characters: no copy of what is built). */
function applyRuns(text: string, runs: readonly Run[]): string {
  const out: string[] = [];
  let shown = '';
  const give = (piece: string) => {
    out.push(piece);
    shown = piece.length >= RUN_LENGTH - 1 ? piece.slice(-(RUN_LENGTH - 1)) : (shown + piece).slice(-(RUN_LENGTH - 1));
  };
  let at = 0;
  for (const r of runs) {
    if (r.start > at) give(text.slice(at, r.start));
    give(placedMask(r.mask, shown, text.slice(r.end, r.end + RUN_LENGTH - 1)));
    at = r.end;
  }
  out.push(text.slice(at));
  return out.join('');
}

/**
 * The mask as shown in its place. A mask shows a few characters of its key (`sk-` before the `…`,
 * the last four after it): next to a piece of a key too short to be a run on its own, they could
 * make a run once shown (`sk-…30kQ` then `uyD30kQ` shows `QuyD30kQ`). Then that side of the mask
 * is left out (`sk-…`, `…30kQ`, or `…`). `before` is what is shown just before the run, `after`
 * the text just after it.
 */
function placedMask(mask: string, before: string, after: string): string {
  const dots = mask.indexOf('…');
  const head = mask.slice(0, dots);
  const tail = mask.slice(dots + 1);
  if (!joinsWindow(before, head) && !joinsWindow(tail, after)) return mask;
  return (joinsWindow(before, head) ? '' : head) + '…' + (joinsWindow(tail, after) ? '' : tail);
}

/** Is there a window of a key in `left + right` that takes characters of both? */
function joinsWindow(left: string, right: string): boolean {
  if (!left || !right) return false;
  const l = fold(left.slice(-(RUN_LENGTH - 1)));
  const s = l + fold(right.slice(0, RUN_LENGTH - 1));
  for (const f of forms) {
    for (let i = Math.max(0, l.length - f.size + 1); i < l.length && i + f.size <= s.length; i++) {
      if (f.windows.has(s.slice(i, i + f.size))) return true;
    }
  }
  return false;
}

/** Could more text after `after` still make a window with the end of `mask` (so the mask's shape is not known yet)? */
function mayJoinLater(mask: string, after: string): boolean {
  if (after.length >= RUN_LENGTH - 1) return false; // all that could join it is there
  const tail = fold(mask.slice(mask.indexOf('…') + 1));
  const s = tail + fold(after);
  return forms.some((f) => {
    for (let i = Math.max(0, tail.length - f.size + 1); i < tail.length; i++) if (s.length - i < f.size && f.text.includes(s.slice(i))) return true;
    return false;
  });
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
  const t = /[A-Z]/.test(tail) ? fold(tail) : tail;
  return forms.some((f) => t.length < f.size && f.text.includes(t));
}

/**
 * Redacts a text that arrives in pieces (an answer streamed chunk by chunk), so that the pieces it
 * gives out, joined, equal `redact` of the whole text. Each position is looked at once, as soon as
 * every window starting there can be told, and only the last few characters (RUN_LENGTH - 1 at
 * most) are held back: a run of a key is masked as it goes, the start of its mask (`sk-…`) given
 * out where the run starts, its characters dropped however long it goes on, and the end of its mask
 * (`a1b2`) given out once the text after the run shows whether it may be (see placedMask). So an
 * answer that echoes the key over and over costs what any other answer costs, and nothing long is
 * held. `end()` gives out the rest.
 */
export class StreamRedactor {
  /** Text not yet given out nor dropped (positions below count from its start). */
  private held = '';
  /** The first position of `held` whose windows are not looked at yet. */
  private scan = 0;
  /** The run being masked: the start of its mask given out, its characters dropped; it ends at `end` unless a window goes on. */
  private run: { end: number; mask: string } | undefined;
  /** A run that ended at `at` (the start of `held`), the end of whose mask is not given out yet. */
  private closing: { at: number; mask: string } | undefined;
  /** The last RUN_LENGTH - 1 characters given out: a mask placed next to them is shaped by them. */
  private shown = '';
  private out: string[] = [];

  push(chunk: string): string {
    if (forms.length === 0) {
      const out = this.held + chunk;
      this.held = '';
      return out;
    }
    const text = this.held + chunk;
    if (!this.run && !this.closing && !mayHoldKey(text)) {
      // No window of a key anywhere (the usual case): nothing to mask. Hold back only an end that
      // could start one, the longest such (if an end can, so can every shorter end of it).
      let keep = 0;
      while (keep < stretchAtEnd && keep < RUN_LENGTH - 1 && couldStartRun(text.slice(text.length - keep - 1))) keep++;
      this.held = keep === 0 ? '' : text.slice(text.length - keep);
      this.scan = 0;
      const out = keep === 0 ? text : text.slice(0, text.length - keep);
      this.saw(out);
      return out;
    }
    return this.step(text, false);
  }

  end(): string {
    if (forms.length === 0 || (!this.held && !this.run && !this.closing)) {
      const out = this.held;
      this.held = '';
      return out;
    }
    return this.step(this.held, true);
  }

  /** Looks at each position of `text` from `scan` on, as far as they can be told (to the end when `final`); gives out what is decided. */
  private step(text: string, final: boolean): string {
    const n = text.length;
    const folded = /[A-Z]/.test(text) ? fold(text) : text;
    // ok[j]: how many characters up to j could all be in one window (each character, and each pair of neighbours, in some form).
    const ok = new Int32Array(n);
    for (let j = 0, streak = 0, prev = 0; j < n; j++) {
      const c = folded.charCodeAt(j);
      if (c < 128 ? asciiKeyChars[c] === 0 : !keyChars.has(c)) streak = 0;
      else if (streak > 0 && (prev < 128 && c < 128 ? asciiPairs[(prev << 7) | c] === 1 : otherPairs.has(prev * 0x10000 + c))) streak++;
      else streak = 1;
      ok[j] = streak;
      prev = c;
    }
    let done = 0; // text before it is given out or dropped
    let i = this.scan;
    for (; i < n; i++) {
      if (this.closing) this.closeMask(text, final);
      // Every window starting at i must be told: one the end of the text cuts short could still become one.
      if (!final && i + RUN_LENGTH > n && ok[n - 1]! >= n - i) {
        const rest = folded.slice(i);
        if (forms.some((f) => i + f.size > n && f.text.includes(rest))) break;
      }
      for (const f of forms) {
        const end = i + f.size;
        if (end > n || ok[end - 1]! < f.size || !f.windows.has(folded.slice(i, end))) continue;
        if (this.run && i <= this.run.end) {
          this.run.end = Math.max(this.run.end, end);
          continue;
        }
        // A new run. The mask of the one before is decided by now: a window holds RUN_LENGTH - 1 characters after it.
        if (this.closing) this.closeMask(text, true);
        if (i > done) this.give(text.slice(done, i));
        const head = f.mask.slice(0, f.mask.indexOf('…'));
        this.give((joinsWindow(this.shown, head) ? '' : head) + '…');
        this.run = { end, mask: f.mask };
        done = i;
      }
      if (this.run && i >= this.run.end) {
        // No window goes on from the run's end: the run is over, its characters dropped.
        this.closing = { at: this.run.end, mask: this.run.mask };
        done = this.run.end;
        this.run = undefined;
      }
    }
    if (final && this.run) {
      this.closing = { at: this.run.end, mask: this.run.mask };
      done = this.run.end;
      this.run = undefined;
    }
    if (this.closing) this.closeMask(text, final);
    // Keep what is not decided: from the run's last looked-at position, from a mask's end not given out, or from `i`.
    const keepFrom = this.run ? i : this.closing ? this.closing.at : i;
    if (!this.run && keepFrom > done) this.give(text.slice(done, keepFrom));
    if (this.run) this.run.end -= keepFrom;
    if (this.closing) this.closing.at -= keepFrom;
    this.held = final ? '' : text.slice(keepFrom);
    this.scan = final ? 0 : i - keepFrom;
    if (final) this.run = this.closing = undefined;
    const out = this.out.length === 1 ? this.out[0]! : this.out.join('');
    this.out = [];
    return out;
  }

  /** Gives out the end of the mask of the run that ended (or leaves it out), once the text after it decides which. */
  private closeMask(text: string, final: boolean): void {
    const { at, mask } = this.closing!;
    const tail = mask.slice(mask.indexOf('…') + 1);
    const after = text.slice(at, at + RUN_LENGTH - 1);
    if (joinsWindow(tail, after)) this.closing = undefined;
    else if (final || after.length >= RUN_LENGTH - 1 || !mayJoinLater(mask, after)) {
      this.give(tail);
      this.closing = undefined;
    }
  }

  private give(piece: string): void {
    if (!piece) return;
    this.out.push(piece);
    this.saw(piece);
  }

  /** Keep the last few characters given out: a mask placed next to them is shaped by them (see placedMask). */
  private saw(out: string): void {
    if (out.length >= RUN_LENGTH - 1) this.shown = out.slice(-(RUN_LENGTH - 1));
    else if (out) this.shown = (this.shown + out).slice(-(RUN_LENGTH - 1));
  }
}
