/**
 * The stand-in service behind `medchat demo`: the test double, on an ephemeral 127.0.0.1 port
 * in this process, answering with the demo replies at about 40 tokens a second, after a pause
 * before the first answer token the way a reasoning model has.
 */
import { ChatDouble } from '../stand-in/chat.js';
import { RetextureDouble } from '../stand-in/retexture.js';
import { DoubleServer, type RecordedRequest } from '../stand-in/server.js';
import { attachDemoRetexture } from './demo-retexture.js';
import { demoReply, tokenChunks } from './replies.js';

interface DemoService {
  url: string;
  server: DoubleServer;
  close: () => Promise<void>;
}

function lastUser(req: RecordedRequest): string {
  const messages: Array<{ role: string; content: string }> = Array.isArray(req.body?.messages) ? req.body.messages : [];
  return [...messages].reverse().find((m) => m.role === 'user')?.content ?? '';
}

export async function startDemoService(opts: { paceMs?: number; firstContentDelayMs?: number } = {}): Promise<DemoService> {
  const server = new DoubleServer();
  const chat = new ChatDouble(server, { contextWindow: 131072 });
  chat.defaultScript = {
    reasoning: (req) => tokenChunks(demoReply(lastUser(req)).reasoning),
    content: (req) => tokenChunks(demoReply(lastUser(req)).content),
    paceMs: opts.paceMs ?? 25,
    firstContentDelayMs: opts.firstContentDelayMs ?? 700,
  };
  attachDemoRetexture(new RetextureDouble(server), () => server.url);
  await server.listen();
  return { url: server.url, server, close: () => server.close() };
}
