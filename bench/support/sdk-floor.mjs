// The floor for bench/oneshot and bench/stream-cpu: the bare openai SDK streaming the same answer
// and printing content. With BENCH_TRANSPORT (src/core/net/http-transport.ts bundled by bench/stream-cpu
// to that file), on medchat's node:http transport instead of the SDK's default fetch.
import OpenAI from 'openai';

const transport = process.env.BENCH_TRANSPORT ? { fetch: (await import(process.env.BENCH_TRANSPORT)).httpFetch } : {};
const client = new OpenAI({ apiKey: process.env.MEDCHAT_API_KEY, baseURL: `${process.env.MEDCHAT_BASE_URL}/v1`, ...transport });
const stream = await client.chat.completions.create({
  model: 'medical-large-latest',
  messages: [{ role: 'user', content: process.argv[2] ?? 'q' }],
  stream: true,
  enable_thinking: true,
});
for await (const chunk of stream) {
  const text = chunk.choices[0]?.delta?.content;
  if (text) process.stdout.write(text);
}
