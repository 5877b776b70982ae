/**
 * The retexture side of the double: `POST /mj/submit/retexture`, `GET /mj/task/{id}/fetch`,
 * `POST /mj/task/list-by-condition`, and `GET /mj/image/{name}` for downloads. Every task has a
 * scripted life, advanced one step per fetch (so tests never depend on time).
 */
import type http from 'node:http';
import { deflateSync } from 'node:zlib';
import type { DoubleServer, RecordedRequest } from './server.js';

export interface TaskLife {
  /** Records the first fetches return, in order, e.g. `[{status: 'SUBMITTED'}, {status: 'IN_PROGRESS', progress: '40%'}]`. */
  steps?: Array<{ status?: string | null; progress?: string }>;
  /** How it ends after the steps (default SUCCESS). `never` stays IN_PROGRESS for ever. */
  end?: 'SUCCESS' | 'FAILURE' | 'CANCEL' | 'never';
  failReason?: string;
  /** The image URL on success (default: this double's `/mj/image/<id>.png`). */
  imageUrl?: string;
  /** How `id` appears in fetched records: a JSON string (default) or a bare JSON number. */
  idShape?: 'string' | 'number';
  /** The first N fetches answer 502 with an HTML page (a gateway hiccup). */
  failFirstFetches?: number;
  /** The first N fetches answer as if the task did not exist yet. */
  notFoundFirstFetches?: number;
  /** Every fetch answers exactly this instead. */
  fetchResponse?: RawResponse;
}

interface RawResponse {
  status: number;
  body?: string;
  contentType?: string;
  /**
   * Misbehave on the wire: `headers` accepts the request and never answers; `body` sends the
   * headers and half the body, then nothing; `endless` sends the body, then spaces for ever
   * (until the client goes away).
   */
  stall?: 'headers' | 'body' | 'endless';
}

export interface SubmitScript {
  /** Answer with exactly this instead of a `{code, description, properties, result}` body. */
  raw?: RawResponse;
  code?: number;
  description?: string;
  properties?: Record<string, unknown>;
  /** The task id's digits (default: a fresh 19-digit id). */
  id?: string;
  /** `result` as a JSON string (default), a bare JSON number, or left out. */
  idShape?: 'string' | 'number' | 'none';
  /** The life of the task this submit creates (for codes 1, 21, 22). */
  life?: TaskLife;
}

export type NotFoundShape = '404' | '400' | '204' | 'empty' | 'null';

interface Task {
  id: string;
  life: TaskLife;
  fetches: number;
  prompt: string;
  state?: string;
  submitTime: number;
}

const SENTINEL = '\u0000ID\u0000';

/** JSON text where the value `SENTINEL` under `key` becomes the bare digits `id`. */
function jsonWithBareId(obj: unknown, id: string): string {
  return JSON.stringify(obj).replace(JSON.stringify(SENTINEL), id);
}

export class RetextureDouble {
  private readonly queue: SubmitScript[] = [];
  /** Used when the queue is empty. */
  defaultScript: SubmitScript = {};
  readonly tasks = new Map<string, Task>();
  /** How an unknown id is answered. */
  notFoundShape: NotFoundShape = '404';
  /** Called on each submit before the queue: return a script to answer it with (the demo uses it). */
  beforeSubmit?: (req: RecordedRequest) => SubmitScript | undefined;
  /** Extra images served at `/mj/image/<name>` (`stall` as in RawResponse). */
  readonly images = new Map<string, { bytes: Buffer; contentType: string; stall?: RawResponse['stall'] }>();
  private seq = 0;

  constructor(readonly server: DoubleServer) {
    server.route('POST', /^\/mj\/submit\/retexture$/, (req, res) => this.submit(req, res));
    server.route('GET', /^\/mj\/task\/([^/]+)\/fetch$/, (_req, res, _raw, m) => this.fetch(decodeURIComponent(m[1] ?? ''), res));
    server.route('POST', /^\/mj\/task\/list-by-condition$/, (req, res) => this.list(req, res));
    server.route('GET', /^\/mj\/image\/([^/]+)$/, (_req, res, _raw, m) => this.image(decodeURIComponent(m[1] ?? ''), res));
  }

  /** The next submits get these scripts, in order; after them, `defaultScript`. */
  enqueue(...scripts: SubmitScript[]): this {
    this.queue.push(...scripts);
    return this;
  }

  /** Create a task directly (for `medchat task <id>` tests). */
  addTask(id: string, life: TaskLife = {}): this {
    this.tasks.set(id, { id, life, fetches: 0, prompt: '', submitTime: Date.now() });
    return this;
  }

  get submits(): RecordedRequest[] {
    return this.server.requestsTo(/^\/mj\/submit\/retexture$/);
  }

  fetchesOf(id: string): RecordedRequest[] {
    return this.server.requestsTo(new RegExp(`^/mj/task/${encodeURIComponent(id).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/fetch$`));
  }

  get imageRequests(): RecordedRequest[] {
    return this.server.requestsTo(/^\/mj\/image\//);
  }

  private submit(req: RecordedRequest, res: http.ServerResponse): void {
    const script = this.beforeSubmit?.(req) ?? this.queue.shift() ?? this.defaultScript;
    if (script.raw) return send(res, script.raw);
    const code = script.code ?? 1;
    const id = script.id ?? String(1712345678901234567n + BigInt(++this.seq) * 1000n);
    const accepted = code === 1 || code === 21 || code === 22;
    if (accepted && (!this.tasks.has(id) || script.life)) {
      this.tasks.set(id, { id, life: script.life ?? {}, fetches: 0, prompt: String(req.body?.prompt ?? ''), state: req.body?.state, submitTime: Date.now() });
    }
    const description = script.description ?? ({ 1: 'Submit success', 21: 'Task already exists', 22: 'Waiting in queue' } as Record<number, string>)[code] ?? 'Submit failed';
    const body: Record<string, unknown> = { code, description, properties: script.properties ?? {} };
    const shape = script.idShape ?? 'string';
    if (shape === 'string') body.result = id;
    if (shape === 'number') body.result = SENTINEL;
    if (!accepted && script.id === undefined && shape === 'string') body.result = null;
    send(res, { status: 200, body: shape === 'number' ? jsonWithBareId(body, id) : JSON.stringify(body), contentType: 'application/json' });
  }

  /** The record a task shows on its n-th fetch (0-based). */
  private record(task: Task, n: number): Record<string, unknown> {
    const life = task.life;
    const steps = life.steps ?? [{ status: 'SUBMITTED', progress: '0%' }, { status: 'IN_PROGRESS', progress: '50%' }];
    const base = {
      id: life.idShape === 'number' ? SENTINEL : task.id,
      action: 'RETEXTURE',
      prompt: task.prompt,
      promptEn: task.prompt,
      description: '/retexture',
      state: task.state ?? null,
      submitTime: task.submitTime,
      startTime: 0,
      finishTime: 0,
      imageUrl: null as string | null,
      failReason: null as string | null,
      properties: {},
    };
    if (n < steps.length) {
      const step = steps[n]!;
      return { ...base, status: step.status ?? '', progress: step.progress ?? '', startTime: step.status === 'IN_PROGRESS' ? task.submitTime + 1 : 0 };
    }
    const end = life.end ?? 'SUCCESS';
    if (end === 'never') return { ...base, status: 'IN_PROGRESS', progress: '99%', startTime: task.submitTime + 1 };
    const finishTime = task.submitTime + 2;
    if (end === 'SUCCESS') {
      return {
        ...base,
        status: 'SUCCESS',
        progress: '100%',
        startTime: task.submitTime + 1,
        finishTime,
        imageUrl: life.imageUrl ?? `${this.server.url}/mj/image/${encodeURIComponent(task.id)}.png`,
      };
    }
    return { ...base, status: end, progress: end === 'CANCEL' ? '' : '30%', finishTime, failReason: life.failReason ?? null };
  }

  private fetch(id: string, res: http.ServerResponse): void {
    const task = this.tasks.get(id);
    if (!task) return this.notFound(res);
    const life = task.life;
    if (life.fetchResponse) return send(res, life.fetchResponse);
    const n = task.fetches++;
    if (n < (life.failFirstFetches ?? 0)) {
      return send(res, { status: 502, body: '<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>', contentType: 'text/html' });
    }
    const offset = (life.failFirstFetches ?? 0) + (life.notFoundFirstFetches ?? 0);
    if (n < offset) return this.notFound(res);
    const rec = this.record(task, n - offset);
    send(res, { status: 200, body: life.idShape === 'number' ? jsonWithBareId(rec, id) : JSON.stringify(rec), contentType: 'application/json' });
  }

  private notFound(res: http.ServerResponse): void {
    switch (this.notFoundShape) {
      case '404':
        return send(res, { status: 404, body: JSON.stringify({ error: 'Not Found' }), contentType: 'application/json' });
      case '400':
        return send(res, { status: 400, body: JSON.stringify({ description: 'task not found', type: 'invalid_request', code: 'not_found' }), contentType: 'application/json' });
      case '204':
        return send(res, { status: 204 });
      case 'empty':
        return send(res, { status: 200, body: '', contentType: 'application/json' });
      case 'null':
        return send(res, { status: 200, body: 'null', contentType: 'application/json' });
    }
  }

  private list(req: RecordedRequest, res: http.ServerResponse): void {
    const ids: unknown[] = Array.isArray(req.body?.ids) ? req.body.ids : [];
    const out: string[] = [];
    for (const raw of ids) {
      const task = this.tasks.get(String(raw));
      if (!task) continue;
      const rec = this.record(task, task.fetches);
      out.push(task.life.idShape === 'number' ? jsonWithBareId(rec, task.id) : JSON.stringify(rec));
    }
    send(res, { status: 200, body: `[${out.join(',')}]`, contentType: 'application/json' });
  }

  private image(name: string, res: http.ServerResponse): void {
    const known = this.images.get(name);
    if (known) return send(res, { status: 200, body: undefined, contentType: known.contentType, stall: known.stall }, known.bytes);
    if (/\.png$/i.test(name)) return send(res, { status: 200, contentType: 'image/png' }, gradientPng(16, 16));
    send(res, { status: 404, body: 'no such image', contentType: 'text/plain' });
  }
}

function send(res: http.ServerResponse, r: RawResponse, bytes?: Buffer): void {
  if (r.stall === 'headers') return; // the request is accepted and never answered
  const headers: Record<string, string> = {};
  if (r.contentType) headers['content-type'] = r.contentType;
  res.writeHead(r.status, headers);
  if (r.status === 204) return void res.end();
  const body = bytes ?? Buffer.from(r.body ?? '');
  if (r.stall === 'body') return void res.write(body.subarray(0, Math.max(1, body.length >> 1)));
  if (r.stall === 'endless') return endless(res, body);
  res.end(body);
}

/** `head`, then spaces for ever, as fast as the client reads them, until it goes away. */
function endless(res: http.ServerResponse, head: Buffer): void {
  const filler = Buffer.alloc(64 * 1024, 0x20);
  let open = true;
  res.on('close', () => (open = false));
  const pump = () => {
    while (open && res.write(filler));
    if (open) res.once('drain', pump);
  };
  res.write(head);
  pump();
}

// A tiny PNG encoder (RGB, no filter), so the double needs no image library.
const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

function crc32(buf: Buffer): number {
  let c = 0xffffffff;
  for (const b of buf) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const td = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(td));
  return Buffer.concat([len, td, crc]);
}

/** Encode RGB pixels (3 bytes each, row by row) as a PNG. */
export function encodePng(width: number, height: number, rgb: Uint8Array): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // colour type RGB
  const raw = Buffer.alloc((width * 3 + 1) * height);
  for (let y = 0; y < height; y++) {
    raw[y * (width * 3 + 1)] = 0;
    Buffer.from(rgb.buffer, rgb.byteOffset + y * width * 3, width * 3).copy(raw, y * (width * 3 + 1) + 1);
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A small red-to-blue gradient: the double's default result image. */
export function gradientPng(width: number, height: number): Buffer {
  const rgb = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 3;
      rgb[i] = Math.round((255 * x) / Math.max(1, width - 1));
      rgb[i + 1] = 64;
      rgb[i + 2] = Math.round((255 * y) / Math.max(1, height - 1));
    }
  }
  return encodePng(width, height, rgb);
}
