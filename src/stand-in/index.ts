import { ChatDouble, type ChatDoubleOptions } from './chat.js';
import { DoubleServer } from './server.js';
import { RetextureDouble } from './retexture.js';

export { ChatDouble, roughTokenCount, writeAllFrames, type ChatScript, type ChatDoubleOptions, type ChatExchange, type ChatFrame, type ChatWire, type FrameWriter } from './chat.js';
export { DoubleServer, type RecordedRequest } from './server.js';
export { RetextureDouble, type SubmitScript, type TaskLife, type NotFoundShape } from './retexture.js';

export interface ServiceDouble {
  server: DoubleServer;
  chat: ChatDouble;
  retexture: RetextureDouble;
  url: string;
  close: () => Promise<void>;
}

/** Start the stand-in service on an ephemeral 127.0.0.1 port. */
export async function startServiceDouble(options: ChatDoubleOptions = {}): Promise<ServiceDouble> {
  const server = new DoubleServer();
  const chat = new ChatDouble(server, options);
  const retexture = new RetextureDouble(server);
  await server.listen();
  return { server, chat, retexture, url: server.url, close: () => server.close() };
}
