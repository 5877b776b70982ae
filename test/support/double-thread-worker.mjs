// The thread side of double-thread.ts: plain JavaScript, because a worker does not inherit the
// test's `--import tsx` hooks in time on Node 20; it registers tsx, then runs the TypeScript double.
import { parentPort } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
const { startServiceDouble } = await import('./misbehaving-service.js');
const double = await startServiceDouble();
parentPort.on('message', async (m) => {
  if (m.type === 'enqueue') {
    double.chat.enqueue(...m.scripts);
    parentPort.postMessage({ type: 'enqueued', id: m.id });
  } else if (m.type === 'requests') {
    parentPort.postMessage({ type: 'requests', id: m.id, requests: double.chat.requests.map((r) => ({ path: r.path, body: r.body })) });
  } else if (m.type === 'close') {
    await double.close();
    parentPort.postMessage({ type: 'closed', id: m.id });
  }
});
parentPort.postMessage({ type: 'ready', url: double.url });
