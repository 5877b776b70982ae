import http from 'node:http';
import net from 'node:net';

/**
 * A small HTTP proxy on 127.0.0.1, like a hospital's: it tunnels `CONNECT host:port` (HTTPS,
 * and what undici uses by default) and forwards absolute-URI requests (`GET http://…`). It
 * records what it carried, so a test can tell whether traffic went through it.
 */
export interface ProxyRecord {
  method: string;
  /** `host:port` for CONNECT, the absolute URL for a forwarded request. */
  target: string;
  proxyAuthorization?: string;
}

export interface TestProxy {
  url: string;
  port: number;
  seen: ProxyRecord[];
  close: () => Promise<void>;
}

/**
 * Host names only this proxy knows (like an intranet name a hospital's proxy resolves): any name
 * ending in `.test` is 127.0.0.1 here and unresolvable everywhere else, so a request to one
 * succeeds only if it went through the proxy.
 */
const resolve = (host: string) => (host.endsWith('.test') ? '127.0.0.1' : host);

export async function startProxy(): Promise<TestProxy> {
  const seen: ProxyRecord[] = [];
  const sockets = new Set<net.Socket>();
  const server = http.createServer((req, res) => {
    seen.push({ method: req.method ?? '', target: req.url ?? '', proxyAuthorization: req.headers['proxy-authorization'] });
    let target: URL;
    try {
      target = new URL(req.url ?? '');
    } catch {
      res.writeHead(400).end('absolute URL required');
      return;
    }
    const headers = { ...req.headers };
    delete headers['proxy-authorization'];
    delete headers['proxy-connection'];
    const up = http.request(
      { host: resolve(target.hostname), port: target.port || 80, method: req.method, path: target.pathname + target.search, headers },
      (upRes) => {
        res.writeHead(upRes.statusCode ?? 502, upRes.headers);
        upRes.pipe(res);
      },
    );
    up.on('error', () => res.destroy());
    res.on('close', () => up.destroy());
    req.pipe(up);
  });
  server.on('connect', (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
    seen.push({ method: 'CONNECT', target: req.url ?? '', proxyAuthorization: req.headers['proxy-authorization'] });
    const [host, port] = (req.url ?? '').split(':');
    const upstream = net.connect(Number(port), resolve(host!), () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) upstream.write(head);
      upstream.pipe(client).pipe(upstream);
    });
    sockets.add(client).add(upstream);
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    upstream.on('error', () => {
      if (client.writable) client.end('HTTP/1.1 502 Bad Gateway\r\n\r\n');
      end();
    });
    client.on('error', end).on('close', end);
    upstream.on('close', end);
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as net.AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    seen,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
