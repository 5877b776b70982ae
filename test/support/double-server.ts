// Run the service double by hand: `npx tsx test/support/double-server.ts [options]` prints its base URL.
//   [paceMs]                    milliseconds between streamed chunks (default 20)
//   --latency-ms <ms>           every request waits this long before it is answered (a fixed latency)
//   --throttle <n>              the first n requests get 429 (or --status 503) with retry-after
//   --retry-after <s|date>      the retry-after those answers carry (seconds, or an HTTP date)
//   --status <429|503>
import { parseArgs } from 'node:util';
import { startServiceDouble } from './misbehaving-service.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    'latency-ms': { type: 'string' },
    throttle: { type: 'string' },
    'retry-after': { type: 'string' },
    status: { type: 'string' },
  },
});
const d = await startServiceDouble({ contextWindow: 131072, latencyMs: Number(values['latency-ms'] ?? 0) });
d.chat.defaultScript = { paceMs: Number(positionals[0] ?? 20) };
if (values.throttle) {
  const retryAfter = values['retry-after'];
  d.chat.throttleNext(Number(values.throttle), {
    status: values.status === '503' ? 503 : 429,
    retryAfter: retryAfter === undefined ? undefined : /^\d+$/.test(retryAfter) ? Number(retryAfter) : retryAfter,
  });
}
process.stdout.write(d.url + '\n');
