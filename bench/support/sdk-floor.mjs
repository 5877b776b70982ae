// The floor for bench/oneshot: the bare openai SDK streaming the same answer and printing content.
import OpenAI from 'openai';

const client = new OpenAI({ apiKey: process.env.MEDCHAT_API_KEY, baseURL: `${process.env.MEDCHAT_BASE_URL}/v1` });
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
