/**
 * Watches the bytes of one HTTP exchange on their way into the SDK:
 * - an idle timer that starts with the request and restarts on headers and every chunk
 *   (the SDK's own timeout stops counting once headers arrive);
 * - whether the stream carried `data: [DONE]` (the SDK swallows it and ends quietly either way).
 * It is a `fetch` wrapper handed to the SDK; the request itself goes through the real fetch.
 */
export class WireMonitor {
  idleExpired = false;
  sawDone = false;
  bytesReceived = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly idleTimeoutMs: number,
    private readonly onIdle: () => void,
    private readonly baseFetch: typeof fetch = globalThis.fetch,
  ) {}

  readonly fetch: typeof fetch = async (input, init) => {
    this.kick();
    let response: Response;
    try {
      response = await this.baseFetch(input, init);
    } catch (err) {
      this.stop();
      throw err;
    }
    this.kick();
    if (!response.body) {
      this.stop();
      return response;
    }
    const reader = response.body.getReader();
    const body = new ReadableStream<Uint8Array>({
      pull: async (controller) => {
        try {
          const { value, done } = await reader.read();
          if (done) {
            this.stop();
            controller.close();
            return;
          }
          this.kick();
          this.bytesReceived += value.byteLength;
          this.scan(value);
          controller.enqueue(value);
        } catch (err) {
          this.stop();
          controller.error(err);
        }
      },
      cancel: async (reason) => {
        this.stop();
        await reader.cancel(reason).catch(() => {});
      },
    });
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };

  private tail: Buffer = Buffer.from('\n');
  private lastActivity = 0;

  /**
   * `[DONE]` counts only at the start of a line: the search includes the newline before it,
   * and JSON text cannot hold a raw newline, so answer text never matches. A short tail of the
   * previous chunk is kept for markers split across chunks.
   */
  private scan(chunk: Uint8Array): void {
    if (this.sawDone) return;
    const bytes = Buffer.concat([this.tail, Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength)]);
    if (bytes.indexOf('\ndata: [DONE]') >= 0 || bytes.indexOf('\ndata:[DONE]') >= 0) {
      this.sawDone = true;
      return;
    }
    this.tail = Buffer.from(bytes.subarray(Math.max(0, bytes.length - 16)));
  }

  /** Note activity. One timer per exchange: when it fires early, it re-arms for the time left. */
  kick(): void {
    this.lastActivity = performance.now();
    if (this.timer) return;
    const arm = (ms: number) => {
      this.timer = setTimeout(() => {
        const idle = performance.now() - this.lastActivity;
        if (idle >= this.idleTimeoutMs) {
          this.timer = undefined;
          this.idleExpired = true;
          this.onIdle();
        } else {
          arm(this.idleTimeoutMs - idle);
        }
      }, ms);
      this.timer.unref?.();
    };
    arm(this.idleTimeoutMs);
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
