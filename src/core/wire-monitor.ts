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
  private tail = '\n';

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

  private readonly decoder = new TextDecoder();

  private scan(chunk: Uint8Array): void {
    if (this.sawDone) return;
    // `tail` is the unfinished last line (when short), starting with its newline, so a marker
    // split across chunks is still found and text inside a long JSON line never matches.
    const text = this.tail + this.decoder.decode(chunk, { stream: true });
    if (/\ndata: ?\[DONE\]/.test(text)) {
      this.sawDone = true;
      return;
    }
    const nl = text.lastIndexOf('\n');
    const rest = nl >= 0 ? text.slice(nl) : this.tail.startsWith('\n') ? text : '';
    this.tail = rest.length <= 32 ? rest : '';
  }

  kick(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.idleExpired = true;
      this.onIdle();
    }, this.idleTimeoutMs);
    this.timer.unref?.();
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
