/**
 * A real HTTP server on 127.0.0.1 that stands in for the service: the test double, and the
 * stand-in behind `medchat demo`. It records every request; routes are added by the modules
 * beside this one (chat, retexture and tasks).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  rawBody: string;
  /** Parsed JSON body, or undefined when it was not JSON. */
  body: any;
  /** Resolves when the client's connection for this request has closed. */
  closed: Promise<void>;
  /** True once the response was fully written by the double. */
  finished: boolean;
}

interface Route {
  method: string;
  pattern: RegExp;
  handler: (req: RecordedRequest, res: http.ServerResponse, raw: http.IncomingMessage, match: RegExpExecArray) => void | Promise<void>;
}

export class DoubleServer {
  readonly requests: RecordedRequest[] = [];
  private readonly routes: Route[] = [];
  private readonly server: http.Server;
  private readonly sockets = new Set<import('node:net').Socket>();
  url = '';

  constructor() {
    this.server = http.createServer((req, res) => void this.handle(req, res));
    this.server.on('connection', (s) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
  }

  async listen(port = 0): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(port, '127.0.0.1', resolve));
    const { port: p } = this.server.address() as AddressInfo;
    this.url = `http://127.0.0.1:${p}`;
    return this;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  route(method: string, pattern: RegExp, handler: Route['handler']): void {
    this.routes.push({ method, pattern, handler });
  }

  /** Requests whose path matches, in arrival order. */
  requestsTo(pattern: RegExp): RecordedRequest[] {
    return this.requests.filter((r) => pattern.test(r.path));
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(raw: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of raw) chunks.push(c as Buffer);
    const rawBody = Buffer.concat(chunks).toString('utf8');
    let body: unknown;
    try {
      body = rawBody ? JSON.parse(rawBody) : undefined;
    } catch {
      body = undefined;
    }
    let resolveClosed!: () => void;
    const closed = new Promise<void>((r) => (resolveClosed = r));
    const path = (raw.url ?? '/').split('?')[0] ?? '/';
    const rec: RecordedRequest = { method: raw.method ?? 'GET', path, headers: raw.headers, rawBody, body, closed, finished: false };
    res.on('close', () => resolveClosed());
    res.on('finish', () => (rec.finished = true));
    this.requests.push(rec);
    for (const route of this.routes) {
      const m = route.method === rec.method ? route.pattern.exec(path) : null;
      if (m) {
        try {
          await route.handler(rec, res, raw, m);
        } catch (err) {
          if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ error: { message: String(err), type: 'double_error' } }));
        }
        return;
      }
    }
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { message: `no route for ${rec.method} ${path}`, type: 'invalid_request_error', code: 'not_found' } }));
  }
}

export const delay = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
