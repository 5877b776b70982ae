// The floor for bench/batch: bare node:http keeping `-j` requests in flight until `items` are answered
// (`node batch-floor.mjs <items> <jobs>`): what this machine and the double allow, with no client around it.
import http from 'node:http';

const [items, jobs] = process.argv.slice(2).map(Number);
const agent = new http.Agent({ keepAlive: true });
let next = 0;
const ask = (i) =>
  new Promise((resolve, reject) => {
    const body = JSON.stringify({ model: 'medical-large-latest', messages: [{ role: 'user', content: `q${i}` }], max_tokens: 8192, stream: false, enable_thinking: false });
    const req = http.request(`${process.env.MEDCHAT_BASE_URL}/v1/chat/completions`, {
      method: 'POST',
      agent,
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), authorization: `Bearer ${process.env.MEDCHAT_API_KEY}` },
    });
    req.on('response', (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve(JSON.parse(text)));
    });
    req.on('error', reject);
    req.end(body);
  });
await Promise.all(Array.from({ length: jobs }, async () => {
  while (next < items) await ask(next++);
}));
agent.destroy();
