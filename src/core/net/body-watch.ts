/**
 * Watching a response body as it arrives: medchat's wire monitor sees every chunk before the SDK
 * reads it, and hears once when the body is over, however it ends.
 */
export interface BodyWatch {
  /** A chunk arrived; `true` means the body is complete after it (the rest is not read). */
  data(chunk: Buffer): boolean | void;
  close(): void;
}

/** A fetch that can watch the body of its response. */
export type WatchedFetch = (input: string | URL | Request, init?: RequestInit, watch?: BodyWatch) => Promise<Response>;

/** A body the global fetch watches through one more stream layer (the fallbacks, and the proxy path). */
function watchResponse(response: Response, watch: BodyWatch): Response {
  if (!response.body) {
    watch.close();
    return response;
  }
  const reader = response.body.getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { value, done } = await reader.read();
        if (done) {
          watch.close();
          controller.close();
          return;
        }
        const complete = watch.data(Buffer.from(value.buffer, value.byteOffset, value.byteLength));
        controller.enqueue(value);
        if (complete) {
          watch.close();
          controller.close();
          await reader.cancel().catch(() => {});
        }
      } catch (err) {
        watch.close();
        controller.error(err);
      }
    },
    async cancel(reason) {
      watch.close();
      await reader.cancel(reason).catch(() => {});
    },
  });
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}

/** Another fetch (the proxy path's) made watchable, through one more stream layer. */
export function watching(base: typeof fetch): WatchedFetch {
  return (input, init, watch) => {
    const response = base(input, init);
    return watch ? response.then((r) => watchResponse(r, watch)) : response;
  };
}

