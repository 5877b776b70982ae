import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { getFetch } from '../net/http.js';
import { MedchatError, usageError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import { toWriteError, writeFileAtomic as writeFileAtomicSync } from '../io/atomic-file.js';
import type { FileOps } from '../io/file-ops.js';
import { shellQuote } from '../text/shell-quote.js';
import { extensionFor, sniffImageType, type ImageMime } from './image-input.js';
import { DOWNLOAD_IDLE_TIMEOUT_MS, requestTimer, type CommandDeadline } from './deadline.js';
import { deadlinePassed, describeNetworkError, hostOf, readBodyLimited, requestTimedOut, serviceText, type ServiceConnection } from './service-http.js';
import { retextureText } from '../i18n/messages/retexture.js';

/**
 * The largest result image medchat downloads. Retexture results are a few MB; the bytes are
 * held in memory (checked, then written), so a link that never ends must stop well before it
 * fills it: 32 MB keeps medchat well under 200 MB in all (the bytes, plus network buffers
 * waiting for the garbage collector).
 */
const DEFAULT_MAX_DOWNLOAD_BYTES = 32 * 1024 * 1024;

/** Resolve an image URL the service gave (possibly relative to the base URL); only http(s) is fetched or printed. */
export function resolveImageUrl(imageUrl: string, baseUrl: string): string {
  let url: URL;
  try {
    url = new URL(imageUrl, baseUrl.replace(/\/*$/, '/'));
  } catch {
    throw new MedchatError(retextureText.badImageUrl(JSON.stringify(serviceText(imageUrl, 100))), ExitCode.failure, 'malformed');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new MedchatError(retextureText.notHttpImageUrl(serviceText(url.protocol, 20)), ExitCode.failure, 'malformed');
  }
  return url.toString();
}

export interface DownloadedImage {
  bytes: Buffer;
  mime: ImageMime;
  url: string;
}

/**
 * Fetch the result image and check it is one (PNG, JPEG, WebP or GIF, by its bytes). The key is
 * sent only when the image lives on the service's own host, never to another host. The
 * download gives up after 30 s without data, at the command's deadline (kind 'deadline-cut'), or
 * past `maxBytes`.
 */
export async function downloadImage(
  imageUrl: string,
  conn: ServiceConnection,
  opts: { signal?: AbortSignal; maxBytes?: number; deadline?: CommandDeadline; taskId?: string } = {},
): Promise<DownloadedImage> {
  const url = resolveImageUrl(imageUrl, conn.baseUrl);
  const fetchFn = await getFetch();
  const sameOrigin = safeOrigin(url) === safeOrigin(conn.baseUrl);
  const maxBytes = opts.maxBytes ?? DEFAULT_MAX_DOWNLOAD_BYTES;
  const timer = requestTimer(opts.signal, DOWNLOAD_IDLE_TIMEOUT_MS, opts.deadline, { idle: true });
  let res: Response;
  let bytes: Buffer;
  try {
    res = await fetchFn(url, { headers: sameOrigin ? { authorization: `Bearer ${conn.apiKey}` } : {}, signal: timer.signal, redirect: 'follow' });
    if (!res.ok) {
      await res.body?.cancel().catch(() => {});
      throw new MedchatError(
        retextureText.downloadFailed(hostOf(url), res.status),
        ExitCode.failure,
        'download',
      );
    }
    timer.touch();
    bytes = await readBodyLimited(
      res,
      maxBytes,
      () =>
        new MedchatError(
          // i18n-exempt: a command
          retextureText.downloadTooLarge(hostOf(url), Math.round(maxBytes / 1024 / 1024), opts.taskId ? `medchat task ${shellQuote(opts.taskId)}` : undefined),
          ExitCode.failure,
          'download',
        ),
      () => timer.touch(),
    );
  } catch (err) {
    const expired = timer.expired();
    if (expired === 'deadline') throw deadlinePassed(retextureText.theImageDownload);
    if (expired === 'request') throw requestTimedOut(retextureText.theImageDownload, url, DOWNLOAD_IDLE_TIMEOUT_MS);
    throw err instanceof MedchatError ? err : describeNetworkError(err, url);
  } finally {
    timer.dispose();
  }
  const mime = sniffImageType(bytes);
  if (!mime) {
    const type = res.headers.get('content-type')?.split(';')[0]?.trim();
    throw new MedchatError(
      retextureText.notAnImage(hostOf(url), bytes.length === 0 ? undefined : serviceText(type, 60) || retextureText.unknownType),
      ExitCode.failure,
      'download',
    );
  }
  return { bytes, mime, url };
}

function safeOrigin(u: string): string {
  try {
    return new URL(u).origin;
  } catch {
    return '';
  }
}

/**
 * Where `--output` writes: the path itself, or `<dir>/retexture-<id>.<ext>` when it names an
 * existing folder (or ends in a slash).
 */
export async function outputPathFor(output: string, taskId: string, mime: ImageMime): Promise<string> {
  const endsWithSep = /[\\/]$/.test(output);
  let isDir = endsWithSep;
  try {
    isDir = (await fsp.stat(output)).isDirectory() || endsWithSep;
  } catch {
    /* does not exist: a file path (or a folder to create when it ends in a slash) */
  }
  if (isDir) {
    const safeId = taskId.replace(/[^A-Za-z0-9._-]/g, '_');
    return path.join(output, `retexture-${safeId}.${extensionFor(mime)}`);
  }
  return output;
}

/** Write atomically: every byte to a temporary file beside the target, flushed, then renamed over it. */
export async function writeFileAtomic(target: string, bytes: Uint8Array, ops?: FileOps): Promise<void> {
  const dir = path.dirname(path.resolve(target));
  try {
    await fsp.mkdir(dir, { recursive: true });
  } catch (err) {
    throw usageError(retextureText.cannotCreateFolder(dir, String((err as NodeJS.ErrnoException).code ?? err)));
  }
  try {
    writeFileAtomicSync(target, bytes, { mode: 0o644, ops });
  } catch (err) {
    const e = toWriteError(target, err);
    throw new MedchatError(retextureText.cannotWrite(target, e.reason, e.code, e.nextStep), ExitCode.usage, 'usage');
  }
}

/** Does the file name's extension disagree with the bytes? (Used for a warning, never to refuse.) */
export function extensionMismatch(file: string, mime: ImageMime): boolean {
  const ext = path.extname(file).slice(1).toLowerCase();
  if (!ext) return false;
  const want = extensionFor(mime);
  return !(ext === want || (want === 'jpg' && ext === 'jpeg'));
}
