// The floor for bench/stream-cpu: bare node:http posting the chat request and reading the stream.
import http from 'node:http';

const body = JSON.stringify({ model: 'medical-large-latest', messages: [{ role: 'user', content: 'q' }], stream: true, enable_thinking: false });
const req = http.request(`${process.env.MEDCHAT_BASE_URL}/v1/chat/completions`, {
  method: 'POST',
  headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), authorization: `Bearer ${process.env.MEDCHAT_API_KEY}` },
});
req.on('response', (res) => {
  let bytes = 0;
  res.on('data', (chunk) => (bytes += chunk.length));
  res.on('end', () => process.stdout.write(`${bytes}\n`));
});
req.end(body);
