/**
 * The chunks of an answer sent as server-sent events, read straight from the response body. It
 * gives what the openai SDK's `Stream.fromSSEResponse` gives, at the same moments: it is the SDK's
 * own three steps (cut the bytes at blank lines, cut those into lines, gather lines into events),
 * followed step for step, so `data: [DONE]` ends the answer and what follows is ignored, a JSON
 * `error` in an event is an APIError, an event that is not JSON a SyntaxError, a body aborted
 * with an AbortError ends quietly, and `thread.*` events come as `{ event, data }`. What it leaves
 * out is the cost: the SDK runs three async generators per event and copies the whole buffer for
 * every piece; here each read of the body gives, at once, every chunk the piece completes, and
 * bytes are copied only where a line or a blank line spans pieces.
 */
import { APIError, OpenAIError } from 'openai';
import type { RawChunk } from './answer-shapes.js';

const LF = 0x0a;
const CR = 0x0d;
const EMPTY = new Uint8Array(0);
const utf8 = new TextDecoder();

const isAbortError = (err: unknown): boolean =>
  typeof err === 'object' &&
  err !== null &&
  (('name' in err && err.name === 'AbortError') || ('message' in err && String(err.message).includes('FetchRequestCanceledException')));

const concat = (parts: Uint8Array[]): Uint8Array => (parts.length === 1 ? parts[0]! : Buffer.concat(parts));

/** The last `n` bytes of `parts`, joined. */
function lastBytes(parts: Uint8Array[], n: number): Uint8Array {
  const last = parts.at(-1)!;
  if (last.length >= n) return last.subarray(last.length - n);
  const out: Uint8Array[] = [];
  for (let k = parts.length - 1, need = n; k >= 0 && need > 0; k--) {
    const p = parts[k]!;
    out.unshift(p.length > need ? p.subarray(p.length - need) : p);
    need -= Math.min(need, p.length);
  }
  return Buffer.concat(out);
}

/** The text of the first `end` bytes (each line decoded on its own, as the SDK does: a byte-order mark at its start is dropped). */
const textOf = (b: Uint8Array, end: number): string => (end === 0 ? '' : utf8.decode(b.subarray(0, end)));

/**
 * Where the first blank-line pattern (`\n\n`, `\r\r`, `\r\n\r\n`) at or after `from` ends, or -1;
 * the SDK's `findDoubleNewlineIndex` from an offset.
 */
function blankLineEnd(b: Uint8Array, from: number): number {
  for (let i = from; i < b.length - 1; i++) {
    const c = b[i];
    if (c !== LF && c !== CR) continue;
    const d = b[i + 1];
    if (c === d) return i + 2;
    if (c === CR && d === LF && i + 3 < b.length && b[i + 2] === CR && b[i + 3] === LF) return i + 4;
  }
  return -1;
}

export class EventStreamReader {
  private readonly reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  /** Step 1 (the SDK's iterSSEChunks): bytes since the last blank-line pattern, in the pieces they came in. */
  private held: Uint8Array[] = [];
  private heldLength = 0;
  /** Step 2 (the SDK's LineDecoder): bytes of a line not ended yet, and where a `\r` that may be followed by `\n` was. */
  private lineBytes: Uint8Array = EMPTY;
  private crIndex: number | null = null;
  /** Step 3 (the SDK's SSEDecoder): the event under way. */
  private event: string | null = null;
  private data: string[] = [];
  /** `data: [DONE]` arrived: the events after it are not read. */
  private done = false;
  private over = false;
  /** An event that failed (not JSON, or a JSON error): thrown once the chunks before it are given. */
  private failure: { err: unknown } | undefined;

  constructor(
    private readonly response: Response,
    private readonly controller: AbortController,
  ) {
    this.reader = response.body?.getReader();
  }

  /** The chunks that the next piece of the body completes (at least one); undefined once the body is over. */
  async next(): Promise<RawChunk[] | undefined> {
    if (this.failure) {
      const { err } = this.failure;
      this.failure = undefined;
      throw err;
    }
    if (this.over) return undefined;
    if (!this.reader) {
      this.over = true;
      this.controller.abort();
      throw new OpenAIError('Attempted to iterate over a response with no body'); // i18n-exempt: the SDK's own internal error, described by service-errors.ts
    }
    const out: RawChunk[] = [];
    try {
      for (;;) {
        const { value, done } = await this.reader.read();
        this.step(out, value, done);
        if (done) this.over = true;
        if (out.length || this.failure) break;
        if (done) return undefined;
      }
    } catch (err) {
      this.over = true;
      this.controller.abort();
      if (isAbortError(err)) return undefined; // as the SDK: an aborted body ends quietly
      throw err;
    }
    if (this.failure && !out.length) return this.next();
    return out;
  }

  /** Stop reading (the answer is over, or failed): the body is cancelled. */
  cancel(): void {
    if (this.over) return;
    this.over = true;
    this.reader?.cancel().catch(() => {});
  }

  /** One piece of the body (or its end), its events parsed into `out`; a failing event is kept for `next`. */
  private step(out: RawChunk[], value: Uint8Array | undefined, end: boolean): void {
    try {
      if (end) {
        // The end: what is held goes on as it is, then the line decoder's last line (the SDK's flush).
        if (this.heldLength) this.lines(concat(this.held), out);
        this.held = [];
        this.heldLength = 0;
        if (this.lineBytes.length) this.lines(new Uint8Array([LF]), out);
        return;
      }
      if (value == null) return;
      const chunk: Uint8Array = value instanceof ArrayBuffer ? new Uint8Array(value) : typeof value === 'string' ? new TextEncoder().encode(value) : value;
      this.blankLines(chunk, out);
    } catch (err) {
      // The chunks before the failing event are given first, as the SDK yields them one by one; then it fails.
      this.over = true;
      this.controller.abort();
      this.reader?.cancel().catch(() => {});
      this.failure = { err };
    }
  }

  /** Step 1: each stretch of bytes up to a blank-line pattern goes on to the line decoder; the rest waits. */
  private blankLines(chunk: Uint8Array, out: RawChunk[]): void {
    let bytes = chunk;
    let from = 0;
    if (this.heldLength) {
      // A pattern can only begin in the last 3 held bytes (the held ones hold none): look from there.
      const back = Math.min(3, this.heldLength);
      const look = Buffer.concat([lastBytes(this.held, back), chunk]);
      const end = blankLineEnd(look, 0);
      if (end < 0) {
        this.held.push(chunk);
        this.heldLength += chunk.length;
        return;
      }
      const inChunk = end - back; // where the pattern ends in this chunk
      this.held.push(chunk.subarray(0, inChunk));
      this.lines(concat(this.held), out);
      this.held = [];
      this.heldLength = 0;
      bytes = chunk.subarray(inChunk);
    }
    for (let end = blankLineEnd(bytes, from); end >= 0; end = blankLineEnd(bytes, from)) {
      this.lines(bytes.subarray(from, end), out);
      from = end;
    }
    if (from < bytes.length) {
      this.held.push(from === 0 ? bytes : bytes.subarray(from));
      this.heldLength += bytes.length - from;
    }
  }

  /** Step 2, the SDK's LineDecoder.decode: lines end with `\n`, `\r\n` or `\r` (a `\r` at the end waits for the next byte). */
  private lines(chunk: Uint8Array, out: RawChunk[]): void {
    let buf = this.lineBytes.length ? Buffer.concat([this.lineBytes, chunk]) : chunk;
    for (;;) {
      let i = this.crIndex ?? 0;
      while (i < buf.length && buf[i] !== LF && buf[i] !== CR) i++;
      if (i >= buf.length) break;
      const carriage = buf[i] === CR;
      if (carriage && this.crIndex === null) {
        this.crIndex = i + 1;
        continue;
      }
      if (this.crIndex !== null && (i !== this.crIndex || carriage)) {
        // `\r` then a second `\r`, or `\r` then text: the line ended at the first `\r`.
        this.line(textOf(buf, this.crIndex - 1), out);
        buf = buf.subarray(this.crIndex);
        this.crIndex = null;
        continue;
      }
      this.line(textOf(buf, this.crIndex !== null ? i - 1 : i), out);
      buf = buf.subarray(i + 1);
      this.crIndex = null;
    }
    this.lineBytes = buf;
  }

  /** Step 3, the SDK's SSEDecoder.decode and Stream: a field of the event under way, or the blank line that ends it. */
  private line(text: string, out: RawChunk[]): void {
    const line = text.endsWith('\r') ? text.slice(0, -1) : text;
    if (!line) {
      if (!this.event && !this.data.length) return;
      const event = this.event;
      const data = this.data.length === 1 ? this.data[0]! : this.data.join('\n');
      this.event = null;
      this.data = [];
      this.dispatch(event, data, out);
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    if (field !== 'data' && field !== 'event') return;
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') this.event = value;
    else this.data.push(value);
  }

  private dispatch(event: string | null, data: string, out: RawChunk[]): void {
    if (this.done) return;
    if (data.startsWith('[DONE]')) {
      this.done = true;
      return;
    }
    const parsed = JSON.parse(data); // not JSON: a SyntaxError, as from the SDK
    if (event === null || !event.startsWith('thread.')) {
      if (parsed && parsed.error) throw new APIError(undefined, parsed.error, undefined, this.response.headers);
      out.push(parsed as RawChunk);
    } else {
      out.push({ event, data: parsed } as RawChunk);
    }
  }
}
