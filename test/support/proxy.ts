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
  /** TCP connections accepted so far (a client in a reconnect loop shows here). */
  connections: () => number;
  close: () => Promise<void>;
}

/**
 * How the proxy behaves, like the hostile or strict ones met in hospitals:
 * - `forward` (default): tunnels CONNECT and forwards absolute-URI requests;
 * - `refuse-connect`: answers CONNECT with `status` (default 403, as squid does for ports other
 *   than 443), still forwards absolute-URI requests;
 * - `close-on-connect`: closes the connection when it reads CONNECT, forwards the rest;
 * - `silent`: accepts connections and reads them, never answers anything;
 * - `auth`: 407 Proxy Authentication Required to everything.
 */
export type ProxyMode = 'forward' | 'refuse-connect' | 'close-on-connect' | 'silent' | 'auth';

export interface ProxyOptions {
  mode?: ProxyMode;
  /** The status a `refuse-connect` proxy answers CONNECT with. */
  status?: number;
}

/**
 * Host names only this proxy knows (like an intranet name a hospital's proxy resolves): any name
 * ending in `.test` is 127.0.0.1 here and unresolvable everywhere else, so a request to one
 * succeeds only if it went through the proxy.
 */
const resolve = (host: string) => (host.endsWith('.test') ? '127.0.0.1' : host);

export async function startProxy(opts: ProxyOptions = {}): Promise<TestProxy> {
  const mode = opts.mode ?? 'forward';
  const seen: ProxyRecord[] = [];
  const sockets = new Set<net.Socket>();
  let connections = 0;
  const server = http.createServer((req, res) => {
    seen.push({ method: req.method ?? '', target: req.url ?? '', proxyAuthorization: req.headers['proxy-authorization'] });
    if (mode === 'silent') return;
    if (mode === 'auth') {
      res.writeHead(407, { 'proxy-authenticate': 'Basic realm="hospital"', 'content-type': 'text/plain' }).end('Proxy Authentication Required');
      return;
    }
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
    // Like squid: the proxy's own page when it cannot reach the service.
    up.on('error', () => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/html' }).end('<html><body>ERR_CONNECT_FAIL</body></html>');
      else res.destroy();
    });
    res.on('close', () => up.destroy());
    req.pipe(up);
  });
  server.on('connect', (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
    seen.push({ method: 'CONNECT', target: req.url ?? '', proxyAuthorization: req.headers['proxy-authorization'] });
    sockets.add(client);
    client.on('error', () => {});
    if (mode === 'silent') return;
    if (mode === 'close-on-connect') {
      client.destroy();
      return;
    }
    if (mode === 'refuse-connect' || mode === 'auth') {
      const status = mode === 'auth' ? 407 : (opts.status ?? 403);
      const extra = mode === 'auth' ? 'Proxy-Authenticate: Basic realm="hospital"\r\n' : '';
      client.end(`HTTP/1.1 ${status} ${http.STATUS_CODES[status] ?? 'Refused'}\r\n${extra}Content-Length: 0\r\nConnection: close\r\n\r\n`);
      return;
    }
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
    connections++;
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as net.AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    seen,
    connections: () => connections,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
