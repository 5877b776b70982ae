import { Worker } from 'node:worker_threads';
import type { MisbehavingScript } from './misbehaving-service.js';

/**
 * The service double on a thread of its own, for terminal tests whose outcome depends on how soon
 * the double answers (a 1 s idle timeout). The terminal tests drive tmux with synchronous calls
 * (execFileSync), and each one stops the test's thread until tmux answers: on a loaded machine
 * that was measured at up to 0.9 s for one call and 1.5 s for a run of them. A double on the
 * test's own thread answers that much later, so medchat rightly said "no response from the
 * service within 1s" where the test expected its stall-after-text message. Here the double answers
 * on time whatever the test's thread is doing. Scripts are copied to the thread: plain data only.
 */
export interface ThreadDouble {
  url: string;
  chat: {
    /** Resolves once the thread has queued them (so a request sent after it gets them). */
    enqueue(...scripts: MisbehavingScript[]): Promise<void>;
    /** The chat requests so far (path and parsed body). */
    requests(): Promise<Array<{ path: string; body: unknown }>>;
  };
  close(): Promise<void>;
}

export async function startServiceDoubleThread(): Promise<ThreadDouble> {
  const worker = new Worker(new URL('./double-thread-worker.mjs', import.meta.url));
  let seq = 0;
  const waiting = new Map<number, { resolve: (m: unknown) => void; reject: (err: Error) => void }>();
  const url = await new Promise<string>((resolve, reject) => {
    worker.once('error', reject);
    worker.on('message', (m: { type: string; id?: number; url?: string }) => {
      if (m.type === 'ready') resolve(m.url!);
      else if (m.id !== undefined) {
        waiting.get(m.id)?.resolve(m);
        waiting.delete(m.id);
      }
    });
  });
  // A thread that dies fails what waits on it, rather than leaving the test hanging.
  worker.on('exit', (code) => {
    for (const w of waiting.values()) w.reject(new Error(`the double's thread exited (${code})`));
    waiting.clear();
  });
  const ask = <T>(message: Record<string, unknown>) =>
    new Promise<T>((resolve, reject) => {
      const id = ++seq;
      waiting.set(id, { resolve: resolve as (m: unknown) => void, reject });
      worker.postMessage({ ...message, id });
    });
  return {
    url,
    chat: {
      enqueue: async (...scripts) => {
        await ask({ type: 'enqueue', scripts });
      },
      requests: async () => (await ask<{ requests: Array<{ path: string; body: unknown }> }>({ type: 'requests' })).requests,
    },
    close: async () => {
      await ask({ type: 'close' });
      await worker.terminate();
    },
  };
}
