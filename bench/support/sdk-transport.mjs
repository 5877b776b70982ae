// bench/stream-cpu: the bare openai SDK streaming and printing content, on medchat's node:http
// transport (src/core/http-transport.ts, bundled by the benchmark to the file named by BENCH_TRANSPORT).
import OpenAI from 'openai';

const { httpFetch } = await import(process.env.BENCH_TRANSPORT);
const client = new OpenAI({ apiKey: process.env.MEDCHAT_API_KEY, baseURL: `${process.env.MEDCHAT_BASE_URL}/v1`, fetch: httpFetch });
const stream = await client.chat.completions.create({
  model: 'medical-large-latest',
  messages: [{ role: 'user', content: process.argv[2] ?? 'q' }],
  stream: true,
  enable_thinking: false,
});
for await (const chunk of stream) {
  const text = chunk.choices[0]?.delta?.content;
  if (text) process.stdout.write(text);
}
