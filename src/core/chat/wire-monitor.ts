import type { BodyWatch, WatchedFetch } from '../net/http-transport.js';

/** `[DONE]` counts only at the start of a line: each marker begins with the newline before it. */
const MARKERS = [Buffer.from('\ndata: [DONE]'), Buffer.from('\ndata:[DONE]')];
const BRACKET = MARKERS.map((m) => m.indexOf('['));
const DONE = Buffer.from('[DONE]');
const NEWLINE = 0x0a;
const CR = 0x0d;
const OPEN_BRACKET = 0x5b;
const BLANK_LF = Buffer.from('\n\n');
const BLANK_CRLF = Buffer.from('\n\r\n');

/** How much one exchange may receive before it is given up: memory stays bounded whatever the service sends. */
export interface WireLimits {
  /** The whole body. */
  bodyBytes: number;
  /** One server-sent event (up to its blank line); 0 when the body is not an event stream. */
  eventBytes: number;
}

/** One event may carry a whole answer (some services send it so): the same 16 MB as a whole body. */
export const STREAM_LIMITS: WireLimits = { bodyBytes: 64 * 1024 * 1024, eventBytes: 16 * 1024 * 1024 };
export const WHOLE_ANSWER_LIMITS: WireLimits = { bodyBytes: 16 * 1024 * 1024, eventBytes: 0 };

export type GiveUp = 'idle' | 'body' | 'event';

/**
 * Watches the bytes of one HTTP exchange on their way into the SDK:
 * - an idle timer that starts with the request and restarts on headers and every chunk
 *   (the SDK's own timeout stops counting once headers arrive);
 * - whether the stream carried `data: [DONE]` (the SDK swallows it and ends quietly either way);
 *   the body ends there, even when the service leaves the response open;
 * - how much arrived: over `limits` (the whole body, or one event without its blank line) the
 *   exchange is given up (`tooMuch` says which).
 * Its `fetch` is handed to the SDK; the request goes through `baseFetch`, which shows this
 * monitor every chunk as it arrives (src/core/net/http-transport.ts: on the socket's own chunks).
 */
export class WireMonitor implements BodyWatch {
  idleExpired = false;
  sawDone = false;
  bytesReceived = 0;
  tooMuch: 'body' | 'event' | undefined;
  /** Bytes of the event under way (since the last blank line). */
  private eventBytes = 0;
  private endsLf = false;
  private endsLfCr = false;
  private timer: NodeJS.Timeout | undefined;
  /** The last look at the socket before giving up (see `kick`). */
  private recheck: NodeJS.Immediate | undefined;
  private lastActivity = 0;
  /**
   * For each marker, how many of its first bytes ended the data so far (a marker split across
   * chunks). 1 at the start: the body's start is a line start.
   */
  private readonly carry = [1, 1];

  constructor(
    private readonly idleTimeoutMs: number,
    private readonly onGiveUp: (why: GiveUp) => void,
    private readonly baseFetch: WatchedFetch,
    readonly limits: WireLimits = STREAM_LIMITS,
  ) {}

  readonly fetch: typeof fetch = async (input, init) => {
    this.kick();
    let response: Response;
    try {
      response = await this.baseFetch(input, init, this);
    } catch (err) {
      this.stop();
      throw err;
    }
    this.kick();
    return response;
  };

  /** A chunk of the body arrived. `true`: the answer is over (`[DONE]`), read no more. */
  data(chunk: Buffer): boolean {
    if (this.tooMuch) return false;
    this.kick();
    this.bytesReceived += chunk.length;
    if (this.bytesReceived > this.limits.bodyBytes) return this.giveUp('body');
    if (this.limits.eventBytes > 0 && chunk.length > 0 && this.eventTooLong(chunk)) return this.giveUp('event');
    if (!this.sawDone && chunk.length > 0) {
      this.scan(chunk);
      return this.sawDone;
    }
    return false;
  }

  private giveUp(why: 'body' | 'event'): false {
    this.tooMuch = why;
    this.stop();
    this.onGiveUp(why);
    return false;
  }

  /** Counts the bytes since the last blank line (`\n\n` or `\n\r\n`, maybe split across chunks). */
  private eventTooLong(chunk: Buffer): boolean {
    const len = chunk.length;
    // The usual chunk ends with an event's blank line: then that is the last one, and nothing is searched.
    const endsBlank = len >= 2 && chunk[len - 1] === NEWLINE && (chunk[len - 2] === NEWLINE || (len >= 3 && chunk[len - 2] === CR && chunk[len - 3] === NEWLINE));
    let end = len;
    if (!endsBlank) {
      const lf = chunk.lastIndexOf(BLANK_LF);
      const crlf = chunk.lastIndexOf(BLANK_CRLF);
      end = Math.max(lf < 0 ? -1 : lf + 2, crlf < 0 ? -1 : crlf + 3);
    }
    if (end < 0) {
      if (this.endsLf && chunk[0] === NEWLINE) end = 1;
      else if (this.endsLf && chunk[0] === CR && chunk[1] === NEWLINE) end = 2;
      else if (this.endsLfCr && chunk[0] === NEWLINE) end = 1;
    }
    this.eventBytes = end < 0 ? this.eventBytes + len : len - end;
    const last = chunk[len - 1];
    this.endsLfCr = last === CR && (len >= 2 ? chunk[len - 2] === NEWLINE : this.endsLf);
    this.endsLf = last === NEWLINE;
    return this.eventBytes > this.limits.eventBytes;
  }

  /** The body is over (ended, failed or cancelled). */
  close(): void {
    this.stop();
  }

  /**
   * Looks for a marker in the chunk, or one that the previous chunks began and this one finishes,
   * without joining chunks: what is carried over is a count of marker bytes, not the bytes. In the
   * common case (no marker, the chunk ends a line) that is one indexOf and a few byte reads.
   */
  private scan(chunk: Buffer): void {
    const len = chunk.length;
    // A marker begun by the previous chunks: does this one go on with it?
    let continued0 = 0;
    let continued1 = 0;
    for (let m = 0; m < 2; m++) {
      const had = this.carry[m]!;
      if (had === 0) continue;
      const marker = MARKERS[m]!;
      const rest = marker.length - had;
      const n = rest < len ? rest : len;
      const bracket = BRACKET[m]! - had; // where the marker's '[' would be in this chunk
      if (bracket >= 0 && bracket < n && chunk[bracket] !== OPEN_BRACKET) continue;
      if (chunk.compare(marker, had, had + n, 0, n) !== 0) continue;
      if (n === rest) {
        this.sawDone = true;
        return;
      }
      if (m === 0) continued0 = had + n; // the whole chunk is more of the marker
      else continued1 = had + n;
    }
    // A whole marker in this chunk: `[DONE]` with `\ndata: ` or `\ndata:` before it.
    for (let i = chunk.indexOf(DONE); i >= 0; i = chunk.indexOf(DONE, i + 1)) {
      if ((i >= 7 && chunk.compare(MARKERS[0]!, 0, 7, i - 7, i) === 0) || (i >= 6 && chunk.compare(MARKERS[1]!, 0, 6, i - 6, i) === 0)) {
        this.sawDone = true;
        return;
      }
    }
    // What this chunk leaves begun for the next one.
    if (chunk[len - 1] === NEWLINE) {
      this.carry[0] = this.carry[1] = 1;
      return;
    }
    // The only newline in a marker is its first byte: a marker begun at the end of this chunk
    // starts at the chunk's last newline.
    const nl = chunk.lastIndexOf(NEWLINE);
    for (let m = 0; m < 2; m++) {
      const marker = MARKERS[m]!;
      const k = len - nl;
      this.carry[m] =
        nl < 0 ? (m === 0 ? continued0 : continued1) : k < marker.length && chunk.compare(marker, 0, k, nl, len) === 0 ? k : 0;
    }
  }

  /**
   * Note activity. One timer per exchange: when it fires early, it re-arms for the time left.
   * When it finds the deadline passed, the socket is read once more before giving up: timers run
   * before I/O in each turn of the event loop, so after medchat's own thread was busy past the
   * deadline (a long render, a loaded machine) bytes that arrived meanwhile are still unread, and
   * the silence was ours, not the service's.
   */
  kick(): void {
    this.lastActivity = performance.now();
    if (this.timer || this.recheck) return;
    this.arm(this.idleTimeoutMs);
  }

  private arm(ms: number): void {
    this.timer = setTimeout(() => {
      this.timer = undefined;
      const idle = performance.now() - this.lastActivity;
      if (idle < this.idleTimeoutMs) return this.arm(this.idleTimeoutMs - idle);
      const seen = this.lastActivity;
      // setImmediate runs after this turn's I/O: whatever is waiting on the socket is read first.
      this.recheck = setImmediate(() => {
        this.recheck = undefined;
        if (this.lastActivity !== seen) return this.arm(Math.max(0, this.idleTimeoutMs - (performance.now() - this.lastActivity)));
        this.idleExpired = true;
        this.onGiveUp('idle');
      });
      // Not unref'd: an unref'd immediate does not keep the poll phase from blocking, and would
      // wait for the next event (the SDK's own timeout, seconds later).
    }, ms);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    if (this.recheck) clearImmediate(this.recheck);
    this.timer = undefined;
    this.recheck = undefined;
  }
}
