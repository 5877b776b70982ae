import { MedchatError, usageError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import { SUBMIT_TIMEOUT_MS, type CommandDeadline } from './deadline.js';
import { bodyReason, callService, describeHttpFailure, serviceText, type ServiceConnection, type ServiceResponse } from './service-http.js';
import { isUsableTaskId, taskIdFrom } from './task-id.js';
import type { ImageData } from './image-input.js';
import { retextureText } from '../i18n/messages/retexture.js';

interface RetextureRequest {
  prompt: string;
  /** The link or data URI, or an image's bytes to send as a data URI (see image-input.ts). */
  image: string | ImageData;
  state?: string;
  notifyHook?: string;
  noStorage?: boolean;
}

/** The body: `prompt` and `image` always; `state`, `notifyHook`, `noStorage` only when given. */
export function buildRetextureBody(req: RetextureRequest & { image: string }): Record<string, string | boolean> {
  const body: Record<string, string | boolean> = { prompt: req.prompt, image: req.image };
  if (req.state !== undefined) body.state = req.state;
  if (req.notifyHook !== undefined) body.notifyHook = req.notifyHook;
  if (req.noStorage !== undefined) body.noStorage = req.noStorage;
  return body;
}

const IMAGE_SLOT = '\u0000image\u0000';

/**
 * The request body as bytes. An image given as bytes is base64-encoded piece by piece straight
 * into the body, so a 25 MB image costs the body (about 34 MB) once, not again as strings.
 */
function encodeRetextureBody(req: RetextureRequest): string | Buffer {
  if (typeof req.image === 'string') return JSON.stringify(buildRetextureBody({ ...req, image: req.image }));
  const { mime, bytes } = req.image;
  const [before, after] = JSON.stringify(buildRetextureBody({ ...req, image: IMAGE_SLOT })).split(JSON.stringify(IMAGE_SLOT)) as [string, string];
  const head = `${before}"data:${mime};base64,`;
  const tail = `"${after}`;
  const out = Buffer.allocUnsafe(Buffer.byteLength(head) + 4 * Math.ceil(bytes.length / 3) + Buffer.byteLength(tail));
  let at = out.write(head);
  const step = 3 * 64 * 1024; // a multiple of 3: no padding until the last piece
  for (let i = 0; i < bytes.length; i += step) at += out.write(bytes.subarray(i, i + step).toString('base64'), at, 'latin1');
  at += out.write(tail, at);
  return out.subarray(0, at);
}

export function checkNotifyHook(url: string): string {
  const t = url.trim();
  try {
    const u = new URL(t);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('scheme');
  } catch {
    throw usageError(retextureText.badNotifyHook(t.slice(0, 80)));
  }
  return t;
}

/** Codes that give a task id and mean the task will run. */
const ACCEPTED_CODES: Record<number, string> = { 1: 'submitted', 21: 'already exists', 22: 'queued' }; // i18n-exempt: only the codes are used

/** What a code means when the service does not say (read when the message is written). */
const KNOWN_CODES: Record<number, () => string> = {
  3: () => retextureText.codeNotFound,
  4: () => retextureText.codeValidation,
  9: () => retextureText.codeFailure,
  23: () => retextureText.codeQueueFull,
  24: () => retextureText.codePromptRejected,
};

export interface SubmitResult {
  taskId: string;
  code: number;
  description: string;
  /** The service's response, parsed losslessly (ids as strings). */
  response: Record<string, unknown>;
}

/** POST /mj/submit/retexture. Resolves with the task id, or throws a MedchatError with the right exit code. */
export async function submitRetexture(
  conn: ServiceConnection,
  req: RetextureRequest,
  opts: { signal?: AbortSignal; deadline?: CommandDeadline } = {},
): Promise<SubmitResult> {
  const res = await callService(conn, 'POST', '/mj/submit/retexture', encodeRetextureBody(req), {
    ...opts,
    timeoutMs: SUBMIT_TIMEOUT_MS,
    what: retextureText.theSubmit,
  });
  return interpretSubmitResponse(res, conn.baseUrl, conn);
}

function interpretSubmitResponse(res: ServiceResponse, baseUrl: string, conn?: Pick<ServiceConnection, 'apiKeySource'>): SubmitResult {
  const common = describeHttpFailure(res, retextureText.image, conn);
  if (common) throw common;
  const body = res.isJson && res.json && typeof res.json === 'object' && !Array.isArray(res.json) ? (res.json as Record<string, unknown>) : undefined;
  if (res.status === 404) {
    throw new MedchatError(
      retextureText.noEndpoint(baseUrl),
      ExitCode.failure,
      'not-found',
    );
  }
  if (!body) {
    if (res.status >= 200 && res.status < 300) {
      const what = res.text.trim() === '' ? retextureText.sentEmpty : /<\s*(html|!doctype)/i.test(res.text) ? retextureText.sentWebPage : retextureText.sentNotJson;
      const reason = bodyReason(res);
      throw new MedchatError(retextureText.sentInsteadOfId(what, reason), ExitCode.failure, 'malformed');
    }
    const reason = bodyReason(res);
    throw new MedchatError(retextureText.refusedJob(res.status, reason), ExitCode.failure, 'rejected');
  }
  const description = typeof body.description === 'string' ? body.description : typeof body.message === 'string' ? body.message : '';
  const rawCode = body.code;
  const code = typeof rawCode === 'number' ? rawCode : typeof rawCode === 'string' && /^-?\d+$/.test(rawCode) ? Number(rawCode) : undefined;

  // Gateways: HTTP 200 with {"success": false, "code": -1, "message"}.
  if (body.success === false) {
    throw rejected((r) => retextureText.rejectedJob(code, r), description || bodyReason(res));
  }
  if (res.status < 200 || res.status >= 300) {
    // 400 with {"description", "type", "code"} and no result, and other 4xx with a reason.
    throw rejected((r) => retextureText.rejectedJobStatus(res.status, r), description || bodyReason(res));
  }
  if (code === undefined) {
    throw new MedchatError(retextureText.noStatusCode(description ? serviceText(description) : ''), ExitCode.failure, 'malformed');
  }
  if (!(code in ACCEPTED_CODES)) {
    const props = body.properties && typeof body.properties === 'object' ? (body.properties as Record<string, unknown>) : {};
    const banned = props.bannedWord ?? props.banned_word ?? props.bannedWords;
    const bannedText = Array.isArray(banned) ? banned.join(', ') : typeof banned === 'string' ? banned : '';
    const known = KNOWN_CODES[code]?.();
    let reason = serviceText(description) || known || retextureText.noReason;
    if (code === 24 && bannedText) reason += retextureText.rejectedWord(serviceText(bannedText, 60));
    const next = code === 24 ? retextureText.nextReword : code === 23 || code === 9 ? retextureText.nextLater : code === 4 ? retextureText.nextCheck : '';
    throw new MedchatError(retextureText.rejectedCode(code, reason, next), ExitCode.jobRejected, 'rejected');
  }
  const taskId = taskIdFrom(body.result);
  if (!taskId) {
    throw new MedchatError(retextureText.acceptedNoId(code), ExitCode.failure, 'malformed');
  }
  if (!isUsableTaskId(taskId)) {
    // It would go into a URL and into the command medchat suggests: refuse what no service makes.
    throw new MedchatError(
      retextureText.acceptedBadId(code, JSON.stringify(serviceText(taskId, 60))),
      ExitCode.failure,
      'malformed',
    );
  }
  return { taskId, code, description, response: body };
}

function rejected(message: (reason: string) => string, reason: string): MedchatError {
  return new MedchatError(message(serviceText(reason)), ExitCode.jobRejected, 'rejected');
}
