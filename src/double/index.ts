import { ChatDouble, type ChatDoubleOptions } from './chat.js';
import { DoubleServer } from './server.js';

export { ChatDouble, roughTokenCount, type ChatScript } from './chat.js';
export { DoubleServer, type RecordedRequest } from './server.js';

export interface ServiceDouble {
  server: DoubleServer;
  chat: ChatDouble;
  url: string;
  close: () => Promise<void>;
}

/** Start the stand-in service on an ephemeral 127.0.0.1 port. */
export async function startServiceDouble(options: ChatDoubleOptions = {}): Promise<ServiceDouble> {
  const server = new DoubleServer();
  const chat = new ChatDouble(server, options);
  await server.listen();
  return { server, chat, url: server.url, close: () => server.close() };
}
