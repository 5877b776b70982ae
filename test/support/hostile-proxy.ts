import net from 'node:net';

/**
 * A forward proxy on 127.0.0.1 that never carries anything: `refuse` answers every request
 * (CONNECT or absolute-URI) with 403, as a default squid does for CONNECT to a port other than
 * 443; `login` answers 407 (proxy authentication required); `close` hangs up as soon as a request arrives; `silent` accepts and never answers. It
 * counts connections and requests, so a test can tell a bounded client from one that loops.
 */
export interface HostileProxy {
  url: string;
  host: string;
  connections: () => number;
  requests: () => number;
  close: () => Promise<void>;
}

export async function startHostileProxy(mode: 'refuse' | 'login' | 'close' | 'silent'): Promise<HostileProxy> {
  let connections = 0;
  let requests = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    let head = '';
    socket.on('data', (chunk) => {
      head += chunk.toString('latin1');
      if (!head.includes('\r\n\r\n')) return;
      requests++;
      head = '';
      if (mode === 'refuse') socket.end('HTTP/1.1 403 Forbidden\r\nx-squid-error: ERR_ACCESS_DENIED 0\r\ncontent-type: text/plain\r\ncontent-length: 17\r\nconnection: close\r\n\r\nAccess denied (0)');
      else if (mode === 'login') socket.end('HTTP/1.1 407 Proxy Authentication Required\r\nproxy-authenticate: Basic realm="proxy"\r\ncontent-length: 0\r\nconnection: close\r\n\r\n');
      else if (mode === 'close') socket.destroy();
      // silent: read and say nothing
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    host: `127.0.0.1:${port}`,
    connections: () => connections,
    requests: () => requests,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
