import { answer, deltas, secretText, type Answer, type Finish } from './fault-answers.js';
import { chunked, responseHead, splitAt, type WirePlan } from './hostile-server.js';
import type { Prng } from './prng.js';

export type { Finish };

/**
 * Generated fault cases for the invariant harness: an answer (ASCII, CJK, emoji, markdown,
 * escape sequences, echoed keys), optional reasoning, then the wire mutated — TCP split points
 * (inside UTF-8 characters, inside `data:` and `[DONE]`), SSE and HTTP framing variants, cuts
 * (FIN, RST, stall), an answer left open after `[DONE]`, error objects mid-stream, HTTP errors
 * with bodies, finish_reason variants. Each case says which exit codes the contract allows.
 */
export interface FaultCase {
  index: number;
  label: string;
  plans: WirePlan[];
  /** false: run with --no-stream. */
  stream: boolean;
  /** Every character of answer text the service sent. */
  content: string;
  /** Answer text in events that arrived whole before a cut: stdout must hold at least this. */
  delivered: string;
  /** Whether `delivered` is certain to reach the client (not after an RST). */
  deliveredSure: boolean;
  /** Echoed keys are wrapped in « » in content and reasoning. */
  hasSecret: boolean;
  codes: number[];
  /** The client has to give up by itself (stall, or an answer left open). */
  waits: boolean;
  /** `[DONE]` (or finish_reason with usage) arrived, then the connection was left open: must end at once. */
  doneLeftOpen: boolean;
  tty: boolean;
  reasoningShown: boolean;
}

interface SseEvent {
  kind: 'reasoning' | 'content' | 'finish' | 'usage' | 'done' | 'error' | 'noise';
  text: string;
  content: string;
  finish?: Finish;
  /** Byte offsets in the body: where its data ends, and where its blank line ends. */
  dataEnd: number;
  end: number;
}

const ID = 'chatcmpl-hostile';
const chunk = (delta: Record<string, unknown>, finish: Finish = null, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ id: ID, object: 'chat.completion.chunk', created: 1, model: 'medical-large-latest', choices: [{ index: 0, delta, finish_reason: finish }], ...extra });
const USAGE = { prompt_tokens: 12, completion_tokens: 34, total_tokens: 46 };

/** The SSE events of an answer, framed one of the ways servers frame them. */
function sseEvents(r: Prng, a: Answer, opts: { error: boolean }): { body: Buffer; events: SseEvent[] } {
  const eol = r.chance(0.3) ? '\r\n' : '\n';
  const space = r.chance(0.8) ? ' ' : '';
  const eventLine = r.chance(0.15);
  const field = r.chance(0.15) ? 'reasoning' : 'reasoning_content';
  const raw: Array<Omit<SseEvent, 'dataEnd' | 'end' | 'text'> & { data: string }> = [];
  for (const d of deltas(r, a.reasoning, 4)) raw.push({ kind: 'reasoning', data: chunk({ [field]: d }), content: '' });
  const pieces = deltas(r, a.content, 12);
  const finishOnLast = pieces.length > 0 && r.chance(0.3);
  pieces.forEach((d, i) => raw.push({ kind: 'content', data: chunk({ content: d }, finishOnLast && i === pieces.length - 1 ? a.finish : null), content: d, ...(finishOnLast && i === pieces.length - 1 ? { finish: a.finish } : {}) }));
  if (opts.error) {
    const where = r.int(0, raw.length);
    const msg = r.chance(0.5) ? `upstream failed for key ${secretText(r)}` : 'The server had an error while processing your request.';
    raw.splice(where, raw.length - where, { kind: 'error', data: JSON.stringify({ error: { message: msg, type: 'server_error', code: null } }), content: '' });
  } else {
    if (!finishOnLast && a.finish !== null) raw.push({ kind: 'finish', data: chunk({}, a.finish), content: '', finish: a.finish });
    const usage = r.chance(0.8);
    if (usage) raw.push({ kind: 'usage', data: JSON.stringify({ id: ID, object: 'chat.completion.chunk', created: 1, model: 'medical-large-latest', choices: [], usage: USAGE }), content: '' });
    if (r.chance(a.finish === null ? 0.85 : 0.9)) raw.push({ kind: 'done', data: '[DONE]', content: '' });
  }
  const events: SseEvent[] = [];
  let offset = 0;
  const add = (e: Omit<SseEvent, 'dataEnd' | 'end'>, dataLen: number) => {
    const len = Buffer.byteLength(e.text);
    events.push({ ...e, dataEnd: offset + dataLen, end: offset + len });
    offset += len;
  };
  for (const e of raw) {
    if (r.chance(0.12)) add({ kind: 'noise', text: `: ping${eol}${eol}`, content: '' }, 0);
    if (r.chance(0.08)) add({ kind: 'noise', text: eol, content: '' }, 0);
    const lines: string[] = [];
    if (eventLine && e.kind !== 'done') lines.push('event: message');
    if (r.chance(0.05)) lines.push(': keep-alive');
    const prefix = lines.map((l) => l + eol).join('') + `data:${space}${e.data}`;
    add({ kind: e.kind, text: prefix + eol + eol, content: e.content, finish: e.finish }, Buffer.byteLength(prefix));
  }
  return { body: Buffer.from(events.map((e) => e.text).join('')), events };
}

/** Which exit codes the contract allows once these events arrived. */
function codesFor(delivered: SseEvent[], closedAfter: boolean): { codes: number[]; ended: boolean } {
  let content = '';
  let finish: Finish | undefined;
  let usage = false;
  let done = false;
  for (const e of delivered) {
    if (e.kind === 'error') return { codes: [1, 4], ended: false };
    content += e.content;
    if (e.finish !== undefined && e.finish !== null) finish = e.finish;
    if (e.kind === 'usage') usage = true;
    if (e.kind === 'done') done = true;
  }
  const text = content.trim() !== ''; // whitespace alone is no answer text (exit 8)
  const final = finish === 'stop' ? (text ? [0] : [8]) : finish ? [8] : text ? [0, 8] : [8];
  if (done || (finish && usage)) return { codes: final, ended: true };
  // Cut after a finish_reason but before usage/[DONE]: with no text delivered, a network failure (1) is true too.
  if (finish) return { codes: text ? [...final, 4] : [...final, 1, 4], ended: closedAfter };
  return { codes: text ? [4] : [1, 4], ended: false };
}

type Ending = 'complete-close' | 'complete-open' | 'complete-rst' | 'cut-close' | 'cut-rst' | 'cut-stall';

/** Pick TCP split points: random ones, plus some inside UTF-8 characters, `data:` and `[DONE]`. */
function splitPoints(r: Prng, wire: Buffer): number[] {
  const points: number[] = [];
  for (let k = r.int(2, 30); k > 0; k--) points.push(r.int(1, Math.max(1, wire.length - 1)));
  const inside = (needle: string) => {
    const hits: number[] = [];
    for (let i = wire.indexOf(needle); i >= 0 && hits.length < 50; i = wire.indexOf(needle, i + 1)) hits.push(i);
    if (hits.length) points.push(r.pick(hits) + r.int(1, needle.length - 1));
  };
  if (r.chance(0.6)) {
    const cont: number[] = [];
    for (let i = 0; i < wire.length && cont.length < 200; i++) if ((wire[i]! & 0xc0) === 0x80) cont.push(i);
    for (let k = r.int(1, 4); k > 0 && cont.length; k--) points.push(r.pick(cont));
  }
  if (r.chance(0.4)) inside('data:');
  if (r.chance(0.4)) inside('[DONE]');
  return points;
}

function frameBody(r: Prng, contentType: string, body: Buffer, cutAt: number | undefined, open: boolean): Buffer[] {
  const sent = cutAt === undefined ? body : body.subarray(0, cutAt);
  const framing = r.weighted<'close' | 'chunked' | 'length'>([[45, 'close'], [40, 'chunked'], [15, 'length']]);
  const headers: Record<string, string | number> = { 'content-type': contentType, 'cache-control': 'no-cache' };
  let framed: Buffer;
  if (framing === 'chunked') {
    headers['transfer-encoding'] = 'chunked';
    const sizes = Array.from({ length: 8 }, () => r.int(1, 300));
    framed = chunked(sent, sizes, cutAt === undefined && !open);
  } else {
    if (framing === 'length' && !(open && cutAt === undefined)) headers['content-length'] = body.length;
    framed = sent;
  }
  // Every response says `connection: close` (and the server takes one request per connection):
  // a pooled connection reused for the next case would test the harness, not medchat.
  headers.connection = 'close';
  const wire = Buffer.concat([responseHead(200, headers), framed]);
  return splitAt(wire, splitPoints(r, wire));
}

/** A streamed (or whole) answer, mutated. */
function answerPlan(r: Prng, label: string[], opts: { sse: boolean }): Omit<FaultCase, 'index' | 'label' | 'stream' | 'tty' | 'reasoningShown'> {
  const a = answer(r);
  const ending = r.weighted<Ending>([[35, 'complete-close'], [20, 'complete-open'], [5, 'complete-rst'], [15, 'cut-close'], [10, 'cut-rst'], [15, 'cut-stall']]);
  label.push(ending, `finish=${a.finish}`);
  const cut = ending.startsWith('cut');
  const end: WirePlan['end'] = ending.endsWith('close') ? 'close' : ending.endsWith('rst') ? 'rst' : 'stall';
  if (!opts.sse) {
    const message: Record<string, unknown> = { role: 'assistant', content: a.content };
    if (a.reasoning) message.reasoning_content = a.reasoning;
    const obj = { id: ID, object: 'chat.completion', created: 1, model: 'medical-large-latest', choices: [{ index: 0, message, finish_reason: a.finish }], usage: USAGE };
    const body = Buffer.from(r.chance(0.3) ? JSON.stringify(obj, null, 2) : JSON.stringify(obj));
    const cutAt = cut ? r.int(0, body.length - 1) : undefined;
    const text = a.content.trim() !== ''; // whitespace alone is no answer text (exit 8)
    const final = a.finish === 'stop' ? (text ? [0] : [8]) : a.finish ? [8] : text ? [0, 8] : [8];
    const codes = cut ? [1, 4] : ending === 'complete-close' ? final : [...final, 1, 4];
    return {
      plans: [{ writes: frameBody(r, 'application/json', body, cutAt, !cut && end === 'stall'), end, pauseMs: r.chance(0.1) ? 2 : 0 }],
      content: a.content,
      delivered: '',
      deliveredSure: false,
      hasSecret: a.secret,
      codes,
      waits: end === 'stall',
      doneLeftOpen: false,
    };
  }
  const error = r.chance(0.07);
  if (error) label.push('error-event');
  const { body, events } = sseEvents(r, a, { error });
  let cutAt: number | undefined;
  if (cut) {
    // An answer may hold no event at all (no text, no finish, no usage, no [DONE]): cut at 0.
    if (events.length === 0) cutAt = 0;
    else {
      cutAt = r.chance(0.3) ? r.pick(events).end : r.int(0, Math.max(0, body.length - 1));
      if (r.chance(0.2)) cutAt = Math.max(0, r.pick(events).dataEnd - r.int(1, 6)); // inside data:/[DONE]
    }
  }
  const limit = cutAt ?? body.length;
  const strict = events.filter((e) => e.end <= limit);
  const lenient = events.filter((e) => e.dataEnd <= limit);
  const closed = end === 'close';
  const s = codesFor(strict, closed);
  const l = codesFor(lenient, closed);
  const codes = [...new Set([...s.codes, ...l.codes])].sort((x, y) => x - y);
  const delivered = strict.map((e) => e.content).join('');
  return {
    plans: [{ writes: frameBody(r, r.chance(0.8) ? 'text/event-stream' : 'text/event-stream; charset=utf-8', body, cutAt, !cut && end === 'stall'), end, pauseMs: r.chance(0.1) ? 2 : 0 }],
    content: events.map((e) => e.content).join(''),
    delivered,
    deliveredSure: end !== 'rst',
    hasSecret: a.secret || (error && body.includes('«')),
    codes,
    waits: end === 'stall' && !(s.ended && l.ended),
    doneLeftOpen: !cut && end === 'stall' && s.ended && l.ended,
  };
}

/** An HTTP error with a body; `times` plans in a row. */
function errorPlan(r: Prng, label: string[]): { plan: WirePlan; codes: number[]; secret: boolean; retryable: boolean } {
  const kind = r.pick(['401', '401-long', '403', '429', '503', '500-html', '404-model', '200-error'] as const);
  label.push(kind);
  const key = secretText(r);
  let status = 200;
  let type = 'application/json';
  let body = '';
  let codes = [1];
  let secret = false;
  const headers: Record<string, string | number> = {};
  switch (kind) {
    case '401':
      status = 401;
      if (r.chance(0.5)) {
        body = JSON.stringify({ error: { message: `Incorrect API key provided: ${key}. You can find your API key in your account.`, type: 'invalid_request_error', code: 'invalid_api_key' } });
      } else {
        type = 'text/plain';
        body = `Unauthorized: bad token ${key}`;
      }
      codes = [3];
      secret = true;
      break;
    case '401-long':
      status = 401;
      body = JSON.stringify({ error: { message: `${'The API key you sent was not accepted by the gateway in front of the service, please check it. '.slice(0, 140)}${key}`, type: 'invalid_request_error' } });
      codes = [3];
      secret = true;
      break;
    case '403':
      status = 403;
      body = '';
      codes = [3];
      break;
    case '429':
    case '503':
      status = Number(kind);
      headers['retry-after'] = r.chance(0.8) ? '0' : '1';
      body = JSON.stringify({ error: { message: kind === '429' ? 'Rate limit reached' : 'Service overloaded', type: 'server_error' } });
      break;
    case '500-html':
      status = 500;
      type = 'text/html';
      body = '<!DOCTYPE html><html><head><title>500 Internal Server Error</title></head><body><h1>Oops</h1></body></html>';
      break;
    case '404-model':
      status = 404;
      body = JSON.stringify({ error: { message: 'The model `medical-large-latest` does not exist', type: 'invalid_request_error', code: 'model_not_found' } });
      codes = [1, 2];
      break;
    case '200-error':
      body = JSON.stringify({ error: { message: `internal error (${key})`, type: 'server_error' } });
      codes = [1, 3];
      secret = true;
      break;
  }
  const bytes = Buffer.from(body);
  const wire = Buffer.concat([responseHead(status, { 'content-type': type, 'content-length': bytes.length, connection: 'close', ...headers }), bytes]);
  return { plan: { writes: splitAt(wire, splitPoints(r, wire)), end: 'close' }, codes, secret, retryable: ['429', '503', '500-html'].includes(kind) };
}

/** Case `index` of the run whose generator is `run` (the same seed and index give the same case). */
export function generateCase(run: Prng, index: number): FaultCase {
  const r = run.fork(index);
  const label: string[] = [];
  const kind = r.weighted([[55, 'stream'], [14, 'no-stream'], [16, 'http-error'], [8, 'retry-then-answer'], [7, 'shape-swap']] as const);
  label.push(kind);
  const tty = r.chance(0.25);
  const reasoningShown = r.chance(0.5);
  const common = { index, tty, reasoningShown };
  if (kind === 'http-error') {
    const e = errorPlan(r, label);
    return { ...common, label: label.join(' '), stream: r.chance(0.8), plans: [e.plan], content: '', delivered: '', deliveredSure: true, hasSecret: e.secret, codes: e.codes, waits: false, doneLeftOpen: false };
  }
  if (kind === 'retry-then-answer') {
    const first = r.chance(0.3) ? { plan: { writes: [], end: 'rst' } as WirePlan } : (() => {
      let e = errorPlan(r, label);
      for (let i = 0; i < 20 && !e.retryable; i++) e = errorPlan(r, (label.pop(), label));
      return e;
    })();
    if (first.plan.end === 'rst') label.push('rst-before-headers');
    const ok = answerPlan(r, label, { sse: true });
    // The retry's wait makes this case's timing its own: the left-open check is for plain streams.
    return { ...common, stream: true, ...ok, doneLeftOpen: false, label: label.join(' '), plans: [first.plan, ...ok.plans], hasSecret: ok.hasSecret || ('secret' in first && Boolean(first.secret)) };
  }
  if (kind === 'shape-swap') {
    // A whole JSON answer to a stream request, or SSE to --no-stream: both shapes are accepted.
    const toStream = r.chance(0.5);
    label.push(toStream ? 'json-to-stream' : 'sse-to-no-stream');
    const swapped = answerPlan(r, label, { sse: !toStream });
    return { ...common, label: label.join(' '), stream: toStream, ...swapped };
  }
  const stream = kind === 'stream';
  const plain = answerPlan(r, label, { sse: stream });
  return { ...common, label: label.join(' '), stream, ...plain };
}
