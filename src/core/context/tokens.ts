/**
 * Token estimates. The base count comes from a real tokenizer (o200k, which splits Chinese,
 * Japanese and Korean as well as English); a calibration ratio learnt from the `prompt_tokens`
 * the service reports turns it into the service's own numbers. What the service reported is
 * used as is wherever possible (see ContextManager): only text added since is estimated.
 *
 * The o200k tables take ~170 ms to load, so they load on demand (`loadTokenizer`): a short
 * one-shot question never needs them, because its UTF-8 size already bounds its tokens (see
 * `upperBound`). Until they are loaded, `countText` falls back to a rough count.
 */
import type { WireMessage } from '../chat/chat-request.js';

/** Tokens the chat template adds around each message, and once to prime the reply. */
export const PER_MESSAGE_OVERHEAD = 4;
export const REPLY_PRIMING = 2;

let encoder: ((text: string) => number) | undefined;
let loading: Promise<void> | undefined;

/** Load the o200k tokenizer (once). Call before counting when exact numbers matter. */
export function loadTokenizer(): Promise<void> {
  loading ??= import('gpt-tokenizer/encoding/o200k_base').then((m) => {
    // `<|endoftext|>` in a note is text like any other (the service reads it so too); by default
    // the tokenizer throws on it ("Disallowed special token"), which ended medchat.
    const asText = { disallowedSpecial: new Set<string>() };
    encoder = (text) => m.countTokens(text, asText);
  });
  return loading;
}

export function tokenizerLoaded(): boolean {
  return encoder !== undefined;
}

const CJK = /[\u3000-\u30ff\u3400-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]/g;

/** A rough count for before the tokenizer is loaded: about one token per CJK character, four characters per token otherwise. */
function roughCount(text: string): number {
  const cjk = text.match(CJK)?.length ?? 0;
  return cjk + Math.ceil((text.length - cjk) / 4);
}

/** No o200k token is shorter than one byte: the UTF-8 size bounds the count from above. */
export function upperBound(messages: readonly WireMessage[]): number {
  let n = REPLY_PRIMING;
  for (const m of messages) n += PER_MESSAGE_OVERHEAD + Buffer.byteLength(m.content, 'utf8');
  return n;
}

const cache = new Map<string, number>();
const CACHE_LIMIT = 4096;
const CACHE_MIN_LENGTH = 64; // short strings are cheaper to count than to remember

/** Raw o200k tokens of a text. Counts of long texts are remembered, so a history is tokenised once. */
export function countText(text: string): number {
  if (!text) return 0;
  if (!encoder) return roughCount(text);
  if (text.length >= CACHE_MIN_LENGTH) {
    const hit = cache.get(text);
    if (hit !== undefined) return hit;
  }
  const n = countSliced(text, encoder);
  if (text.length >= CACHE_MIN_LENGTH) remember(text, n);
  return n;
}

/** A run of this many characters or more, all spaces or all not (a DNA sequence, 300 KB of `{`), is counted in slices. */
const LONG_RUN = 256;
const RUN_SLICE = 256;

/**
 * o200k's byte-pair merging is quadratic in the length of one piece, and a run without spaces is
 * one piece: 300 KB of DNA took 80 s to count. Ordinary text is counted whole (exactly); each run
 * of LONG_RUN characters or more, all white space or all not, is counted in slices of RUN_SLICE.
 * A cut changes the merges only next to it, so such a run counts within about one token per
 * slice of what o200k would: within 1% on DNA, protein, hex, base64, braces and spaces (usually a
 * little more, now and then one fewer; see test/core/tokens.test.ts). The count is an estimate
 * anyway (it is calibrated against what the service reports).
 */
function countSliced(text: string, count: (text: string) => number): number {
  if (text.length < LONG_RUN) return count(text);
  let n = 0;
  let from = 0; // the start of the ordinary text not counted yet
  let runStart = 0;
  let runSpace = isSpace(text.charCodeAt(0));
  for (let i = 1; i <= text.length; i++) {
    const space = i < text.length ? isSpace(text.charCodeAt(i)) : !runSpace;
    if (space === runSpace) continue;
    if (i - runStart >= LONG_RUN) {
      if (runStart > from) n += count(text.slice(from, runStart));
      for (let s = runStart; s < i; s += RUN_SLICE) n += count(text.slice(s, Math.min(i, s + RUN_SLICE)));
      from = i;
    }
    runStart = i;
    runSpace = space;
  }
  if (from < text.length) n += count(text.slice(from));
  return n;
}

function isSpace(c: number): boolean {
  return c === 32 || (c >= 9 && c <= 13) || c === 0xa0 || c === 0x3000 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x1680 || c === 0x202f || c === 0x205f || c === 0xfeff;
}

/** Tell the counter a count it already knows (e.g. one stored in a session file). */
export function primeCount(text: string, n: number): void {
  if (text.length >= CACHE_MIN_LENGTH && Number.isFinite(n) && n >= 0) remember(text, n);
}

function remember(text: string, n: number): void {
  if (cache.size >= CACHE_LIMIT) {
    const oldest = cache.keys().next().value;
    if (oldest !== undefined) cache.delete(oldest);
  }
  cache.set(text, n);
}

/** Forget remembered counts (benchmarks). */
export function clearCountCache(): void {
  cache.clear();
}

/** Raw tokens of one message, template overhead included. */
export function countMessage(m: WireMessage): number {
  return PER_MESSAGE_OVERHEAD + countText(m.content);
}

/** Raw tokens of a whole request's messages (what `prompt_tokens` would be with an o200k server). */
export function countMessages(messages: readonly WireMessage[]): number {
  let n = REPLY_PRIMING;
  for (const m of messages) n += countMessage(m);
  return n;
}

/**
 * The ratio between what the service reports and what o200k counts, learnt from each reported
 * usage. Starts at 1 (o200k itself) and follows the latest observation, smoothed a little so a
 * single odd turn does not throw it off; clamped to a sane range.
 */
export class TokenCalibration {
  private value: number;
  private samples: number;

  constructor(ratio = 1, samples = 0) {
    this.value = TokenCalibration.clamp(ratio);
    this.samples = samples;
  }

  get ratio(): number {
    return this.value;
  }

  get observations(): number {
    return this.samples;
  }

  /** Learn from one request: `reported` prompt tokens for messages o200k counted as `raw`. */
  observe(reported: number, raw: number): void {
    if (!(reported > 0) || !(raw > 0)) return;
    const r = TokenCalibration.clamp(reported / raw);
    // The first observation replaces the prior; later ones lean towards the newest (the text mix shifts).
    this.value = this.samples === 0 ? r : TokenCalibration.clamp(this.value * 0.3 + r * 0.7);
    this.samples++;
  }

  /** Service tokens for `raw` o200k tokens. */
  scale(raw: number): number {
    return Math.ceil(raw * this.value);
  }

  private static clamp(r: number): number {
    if (!Number.isFinite(r) || r <= 0) return 1;
    return Math.min(4, Math.max(0.25, r));
  }
}
