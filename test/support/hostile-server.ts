import net from 'node:net';

/**
 * A hostile chat service on 127.0.0.1, separate from the double in src/stand-in: it speaks raw
 * TCP so a test decides every byte and every moment — where the TCP writes split (inside a
 * UTF-8 character, inside `data:`), how the HTTP body is framed, and how the exchange ends
 * (clean close, RST, a stall, or the answer sent but the connection left open).
 *
 * Each case gets its own path prefix: base URL `${url}/c/<id>`, so one server carries hundreds
 * of cases at once. A case is a list of `WirePlan`s, one per request (retries get the next plan;
 * the last one repeats).
 */
export interface WirePlan {
  /** The response as sent: status line, headers and body, in the writes the server makes. */
  writes: Buffer[];
  /** Pause between writes (ms); 0 = the next turn of the event loop. */
  pauseMs?: number;
  /** After the last write: FIN, RST, nothing (a stall, or an answer left open). */
  end: 'close' | 'rst' | 'stall';
}

export interface HostileRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Buffer;
}

/** A custom handler for a path (resource tests): it owns the socket. */
export type RawHandler = (req: HostileRequest, socket: net.Socket) => void;

export interface HostileServer {
  url: string;
  port: number;
  /** Serve these plans under `${url}/c/<id>`; returns that base URL. */
  addCase(id: string, plans: WirePlan[]): string;
  /** Requests each case received. */
  requests(id: string): HostileRequest[];
  /** Answer requests whose path starts with `prefix` with `handler`. */
  route(prefix: string, handler: RawHandler): void;
  close(): Promise<void>;
}

const HEAD_LIMIT = 64 * 1024;

export async function startHostileServer(): Promise<HostileServer> {
  const cases = new Map<string, { plans: WirePlan[]; seen: HostileRequest[] }>();
  const routes: Array<[string, RawHandler]> = [];
  const sockets = new Set<net.Socket>();

  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.setNoDelay(true);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    readRequest(socket, (req) => {
      const m = /^\/c\/([^/]+)(\/.*)?$/.exec(req.path);
      const entry = m ? cases.get(m[1]!) : undefined;
      if (entry) {
        entry.seen.push(req);
        const plan = entry.plans[Math.min(entry.seen.length - 1, entry.plans.length - 1)]!;
        void sendPlan(socket, plan);
        return;
      }
      const route = routes.find(([prefix]) => req.path.startsWith(prefix));
      if (route) return route[1](req, socket);
      socket.end('HTTP/1.1 404 Not Found\r\ncontent-type: text/plain\r\ncontent-length: 9\r\nconnection: close\r\n\r\nnot found');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as net.AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    port,
    addCase(id, plans) {
      cases.set(id, { plans, seen: [] });
      return `${url}/c/${id}`;
    },
    requests: (id) => cases.get(id)?.seen ?? [],
    route(prefix, handler) {
      routes.push([prefix, handler]);
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/**
 * Read one request (head and a Content-Length body) and hand it over. The whole body is read
 * before answering: closing a socket with unread input would turn a clean close into an RST.
 */
function readRequest(socket: net.Socket, onRequest: (req: HostileRequest) => void): void {
  let buf = Buffer.alloc(0);
  let head: { method: string; path: string; headers: Record<string, string>; length: number; start: number } | undefined;
  const onData = (chunk: Buffer) => {
    buf = Buffer.concat([buf, chunk]);
    if (!head) {
      const end = buf.indexOf('\r\n\r\n');
      if (end < 0) {
        if (buf.length > HEAD_LIMIT) socket.destroy();
        return;
      }
      const lines = buf.subarray(0, end).toString('latin1').split('\r\n');
      const [method = '', path = ''] = lines[0]!.split(' ');
      const headers: Record<string, string> = {};
      for (const line of lines.slice(1)) {
        const i = line.indexOf(':');
        if (i > 0) headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
      }
      head = { method, path, headers, length: Number(headers['content-length'] ?? 0), start: end + 4 };
    }
    if (buf.length - head.start >= head.length) {
      socket.off('data', onData);
      // Anything after the body (a client must not pipeline here) is read and dropped.
      socket.on('data', () => {});
      onRequest({ method: head.method, path: head.path, headers: head.headers, body: buf.subarray(head.start, head.start + head.length) });
    }
  };
  socket.on('data', onData);
}

const pause = (ms: number) => new Promise<void>((r) => (ms > 0 ? setTimeout(r, ms) : setImmediate(r)));

async function sendPlan(socket: net.Socket, plan: WirePlan): Promise<void> {
  for (const piece of plan.writes) {
    if (socket.destroyed) return;
    socket.write(piece);
    await pause(plan.pauseMs ?? 0);
  }
  if (socket.destroyed) return;
  if (plan.end === 'close') socket.end();
  else if (plan.end === 'rst') {
    // Give the client a moment to read what was sent: an RST discards unread input.
    await pause(100);
    if (!socket.destroyed) socket.resetAndDestroy();
  }
  // 'stall': leave it; the client must give up (idle timeout) or end on [DONE] by itself.
}

/** HTTP/1.1 response head. */
export function responseHead(status: number, headers: Record<string, string | number>): Buffer {
  const reason: Record<number, string> = { 200: 'OK', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 429: 'Too Many Requests', 500: 'Internal Server Error', 502: 'Bad Gateway', 503: 'Service Unavailable' };
  const lines = [`HTTP/1.1 ${status} ${reason[status] ?? 'Status'}`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
  return Buffer.from(lines.join('\r\n') + '\r\n\r\n', 'latin1');
}

/** The body as chunked transfer encoding, in chunks of random sizes from `sizes` (cycled). */
export function chunked(body: Buffer, sizes: number[], terminate: boolean): Buffer {
  const parts: Buffer[] = [];
  let i = 0;
  for (let k = 0; i < body.length; k++) {
    const n = Math.max(1, sizes[k % sizes.length]!);
    const piece = body.subarray(i, i + n);
    parts.push(Buffer.from(piece.length.toString(16) + '\r\n'), piece, Buffer.from('\r\n'));
    i += n;
  }
  if (terminate) parts.push(Buffer.from('0\r\n\r\n'));
  return Buffer.concat(parts);
}

/** Cut `wire` at the given byte offsets (sorted, deduplicated) into separate writes. */
export function splitAt(wire: Buffer, offsets: number[]): Buffer[] {
  const cuts = [...new Set(offsets.filter((o) => o > 0 && o < wire.length))].sort((a, b) => a - b);
  const out: Buffer[] = [];
  let last = 0;
  for (const c of cuts) {
    out.push(wire.subarray(last, c));
    last = c;
  }
  out.push(wire.subarray(last));
  return out;
}

// ---- servers that never answer (deadline tests) ----

export interface SilentServer {
  url: string;
  port: number;
  /** Connections accepted so far. */
  connections: number;
  close(): Promise<void>;
}

/** Accepts TCP connections and reads them, and never sends a byte. */
export async function startSilentServer(): Promise<SilentServer> {
  const sockets = new Set<net.Socket>();
  const state = { connections: 0 };
  const server = net.createServer((s) => {
    state.connections++;
    sockets.add(s);
    s.on('data', () => {});
    s.on('error', () => {});
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as net.AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    get connections() {
      return state.connections;
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

export interface RefusingProxy extends SilentServer {
  /** CONNECT requests refused so far. */
  connects: number;
  /** Absolute-form (plain forward-proxy) requests seen so far; they are held unanswered, like a silent upstream. */
  forwards: number;
}

/**
 * A forward proxy that refuses CONNECT (403, then close, as a default squid does for a port it
 * does not allow) — or, with `connect: 'accept'`, answers it with 200 and then relays nothing,
 * or with `connect: 'close'` closes the connection without a word —
 * and holds plain forward-proxy requests unanswered (the upstream is silent).
 */
export async function startRefusingProxy(opts: { connect?: 'refuse' | 'accept' | 'close' } = {}): Promise<RefusingProxy> {
  const sockets = new Set<net.Socket>();
  const state = { connections: 0, connects: 0, forwards: 0 };
  const server = net.createServer((s) => {
    state.connections++;
    sockets.add(s);
    s.on('error', () => {});
    s.on('close', () => sockets.delete(s));
    readRequest(s, (req) => {
      if (req.method === 'CONNECT') {
        state.connects++;
        if (opts.connect === 'accept') return void s.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        if (opts.connect === 'close') return void s.destroy();
        s.end('HTTP/1.1 403 Forbidden\r\ncontent-type: text/plain\r\ncontent-length: 26\r\nconnection: close\r\n\r\nCONNECT to this port: no\r\n');
      } else {
        state.forwards++;
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as net.AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    get connections() {
      return state.connections;
    },
    get connects() {
      return state.connects;
    },
    get forwards() {
      return state.forwards;
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/**
 * Send `head` then `filler` for ever (as fast as the client reads), until the client goes away
 * or `maxBytes` have been sent: an endless line, body, header block or task record.
 */
export function sendEndless(socket: net.Socket, head: string, filler: string, maxBytes = 4 * 1024 ** 3): void {
  const block = Buffer.from(filler.repeat(Math.ceil(65536 / filler.length)));
  let sent = 0;
  const pump = () => {
    while (!socket.destroyed && sent < maxBytes) {
      sent += block.length;
      if (!socket.write(block)) return void socket.once('drain', pump);
    }
  };
  socket.write(head);
  pump();
}
