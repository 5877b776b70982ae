// Run the service double by hand: `npx tsx test/support/double-server.ts [paceMs]` prints its base URL.
import { startServiceDouble } from '../../src/double/index.js';

const d = await startServiceDouble({ contextWindow: 131072 });
d.chat.defaultScript = { paceMs: Number(process.argv[2] ?? 20) };
process.stdout.write(d.url + '\n');
