/**
 * The worker thread of `sessions search` on many files (search.ts, searchWithWorker): it takes the
 * next piece of the newest-first list, reads, opens and checks each file with search.ts's own
 * examineFile (the same pre-filter and comparison), and posts what each gave. The data keys come
 * from the main thread in memory; the decrypted bytes never leave this thread's memory.
 */
import { workerData } from 'node:worker_threads';
import { examineFile, fromShared, type Outcome, type WorkerData, type WorkerPiece } from './search.js';

const NEXT = 0;
const STOP = 1;
const POSTED = 2;

const d = workerData as WorkerData;
const ctrl = new Int32Array(d.ctrl);
const check = fromShared(d.check);
const chunks = Math.ceil(d.files.length / d.chunk);

d.port.once('message', (m: { keys: Map<string, Uint8Array> }) => {
  try {
    while (Atomics.load(ctrl, STOP) === 0) {
      const c = Atomics.add(ctrl, NEXT, 1);
      if (c >= chunks) break;
      const outcomes: Outcome[] = [];
      for (let i = c * d.chunk; i < Math.min(d.files.length, (c + 1) * d.chunk); i++) {
        const f = d.files[i]!;
        outcomes.push(Atomics.load(ctrl, STOP) === 0 ? examineFile(f.file, f.id, m.keys, check) : 'main');
      }
      d.port.postMessage({ chunk: c, outcomes } satisfies WorkerPiece);
      Atomics.add(ctrl, POSTED, 1);
      Atomics.notify(ctrl, POSTED);
    }
  } finally {
    d.port.close();
  }
});
