import fs, { promises as fsp } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { MedchatError, usageError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import { shellQuote } from '../text/shell-quote.js';
import { readPipe, readStreamBounded } from '../io/bounded-read.js';
import { retextureText } from '../i18n/messages/retexture.js';

/** The image types the service takes, found from the bytes (never from a file name). */
export type ImageMime = 'image/png' | 'image/jpeg' | 'image/webp' | 'image/gif';

const DEFAULT_MAX_IMAGE_MB = 25;

export function sniffImageType(bytes: Uint8Array): ImageMime | undefined {
  const b = bytes;
  const at = (i: number, ...xs: number[]) => xs.every((x, k) => b[i + k] === x);
  if (b.length >= 8 && at(0, 0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return 'image/png';
  if (b.length >= 3 && at(0, 0xff, 0xd8, 0xff)) return 'image/jpeg';
  if (b.length >= 12 && at(0, 0x52, 0x49, 0x46, 0x46) && at(8, 0x57, 0x45, 0x42, 0x50)) return 'image/webp';
  if (b.length >= 6 && (at(0, 0x47, 0x49, 0x46, 0x38, 0x37, 0x61) || at(0, 0x47, 0x49, 0x46, 0x38, 0x39, 0x61))) return 'image/gif';
  return undefined;
}

export const extensionFor = (mime: ImageMime): string => ({ 'image/png': 'png', 'image/jpeg': 'jpg', 'image/webp': 'webp', 'image/gif': 'gif' })[mime];

interface ImageInput {
  /** Where it came from: a link (sent as is), a file, or stdin. */
  kind: 'url' | 'file' | 'stdin';
  /**
   * What goes into the request's `image` field: the link, or a `data:<mime>;base64,` URI (made
   * when read: the submit encodes `data` straight into the request body instead).
   */
  readonly value: string;
  /** For files and stdin: the type found from the bytes, and the size. */
  mime?: ImageMime;
  bytes?: number;
  /** For files and stdin: the bytes themselves. */
  data?: ImageData;
  /** How to name it in messages. */
  label: string;
}

export interface ImageData {
  mime: ImageMime;
  bytes: Buffer;
}

interface ImageInputOptions {
  maxBytes?: number;
  stdin?: NodeJS.ReadableStream;
}

const mb = (n: number) => `${(n / 1024 / 1024).toFixed(n < 10 * 1024 * 1024 ? 1 : 0)} MB`;

function isImageLink(spec: string): boolean {
  return /^https?:\/\//i.test(spec.trim());
}

/**
 * Turn `--image <file|url|->` into the request's `image` value. Every problem (not an image,
 * unreadable, empty, too large) is a usage error (exit 2) raised before any request is sent.
 */
export async function loadImageInput(spec: string, opts: ImageInputOptions = {}): Promise<ImageInput> {
  const maxBytes = opts.maxBytes ?? DEFAULT_MAX_IMAGE_MB * 1024 * 1024;
  const raw = spec;
  if (raw.trim() === '') throw usageError(retextureText.imageEmptyFlag);
  if (isImageLink(raw)) {
    const link = raw.trim();
    try {
      const u = new URL(link);
      if (!u.hostname) throw new Error('no host'); // i18n-exempt: caught just below
    } catch {
      throw usageError(retextureText.badLink(JSON.stringify(link.slice(0, 80))));
    }
    return { kind: 'url', value: link, label: link };
  }
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(raw.trim());
  if (scheme && (raw.trim().slice(scheme[0].length).startsWith('//') || scheme[1]!.toLowerCase() === 'file')) {
    throw usageError(notALinkWeTake(raw.trim(), scheme[1]!.toLowerCase()));
  }
  let bytes: Buffer;
  let label: string;
  let kind: 'file' | 'stdin';
  if (raw === '-') {
    kind = 'stdin';
    label = retextureText.imageOnStdin;
    const stdin = opts.stdin ?? process.stdin;
    if ((stdin as { isTTY?: boolean }).isTTY) throw usageError(retextureText.stdinIsTerminal);
    bytes = await readAll(stdin, maxBytes, label);
  } else {
    kind = 'file';
    label = raw;
    let regular = false;
    let fifo = false;
    try {
      const st = await fsp.stat(raw);
      fifo = st.isFIFO();
      if (st.isDirectory()) throw usageError(retextureText.isFolder(raw));
      // A regular file's size is known before reading; a device or a pipe (/dev/zero, <(…)) is
      // read with the same cap, so nothing endless is ever held.
      if (st.isFile() && st.size > maxBytes) throw tooLarge(label, st.size, maxBytes);
      regular = st.isFile();
    } catch (err) {
      if (err instanceof MedchatError) throw err;
      throw usageError(retextureText.cannotRead(raw, describeFsError(err)));
    }
    let stream: fs.ReadStream | undefined;
    try {
      if (regular) {
        bytes = await readRegularFile(raw, maxBytes, label);
      } else if (fifo) {
        // Opened without blocking: a FIFO nothing writes to is refused, not waited on for ever.
        const fd = fs.openSync(raw, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0));
        const noWriter = () => usageError(retextureText.fifoNoWriter(raw));
        bytes = await readAll(readPipe(fd, noWriter), maxBytes, label);
      } else {
        stream = fs.createReadStream(raw, { highWaterMark: 1024 * 1024 });
        bytes = await readAll(stream, maxBytes, label);
      }
    } catch (err) {
      if (err instanceof MedchatError) throw err;
      throw usageError(retextureText.cannotRead(raw, describeFsError(err)));
    } finally {
      stream?.destroy();
    }
  }
  if (bytes.length === 0) throw usageError(retextureText.imageEmpty(label));
  const mime = sniffImageType(bytes);
  if (!mime) throw usageError(retextureText.notImage(label));
  const data = { mime, bytes };
  return {
    kind,
    get value() {
      return `data:${mime};base64,${data.bytes.toString('base64')}`;
    },
    mime,
    bytes: bytes.length,
    data,
    label,
  };
}

/** `--image file:///x.png`, `ftp://…`: say what is taken, and for a file:// link, the path to give instead. */
function notALinkWeTake(spec: string, scheme: string): string {
  if (scheme === 'file') {
    let path = '';
    try {
      path = fileURLToPath(spec);
    } catch {
      /* not a usable file URL: no path to suggest */
    }
    return retextureText.fileLink(path ? shellQuote(path) : undefined);
  }
  return retextureText.otherLink(scheme);
}

function tooLarge(label: string, size: number, maxBytes: number, stoppedReading = false): MedchatError {
  return new MedchatError(retextureText.imageTooLarge(label, stoppedReading ? undefined : mb(size), mb(maxBytes)), ExitCode.usage, 'usage');
}

/** A regular file, read into one buffer of its size (no chunks to gather and copy); never more than `maxBytes`. */
async function readRegularFile(file: string, maxBytes: number, label: string): Promise<Buffer> {
  const handle = await fsp.open(file, 'r');
  try {
    const size = (await handle.stat()).size;
    if (size > maxBytes) throw tooLarge(label, size, maxBytes);
    const buf = Buffer.allocUnsafe(size + 1); // one byte more tells a file that grew while being read
    let n = 0;
    while (n < buf.length) {
      const { bytesRead } = await handle.read(buf, n, buf.length - n, null);
      if (bytesRead === 0) break;
      n += bytesRead;
    }
    if (n > size) throw usageError(retextureText.imageChanged(label));
    return buf.subarray(0, n);
  } finally {
    await handle.close().catch(() => {});
  }
}

function readAll(stream: AsyncIterable<Buffer | string>, maxBytes: number, label: string): Promise<Buffer> {
  return readStreamBounded(stream, maxBytes, () => tooLarge(label, maxBytes + 1, maxBytes, true));
}

function describeFsError(err: unknown): string {
  const code = (err as NodeJS.ErrnoException)?.code;
  if (code === 'ENOENT') return retextureText.noSuchFile;
  if (code === 'EACCES' || code === 'EPERM') return retextureText.permissionDenied;
  if (code === 'EISDIR') return retextureText.itIsFolder;
  return code ?? String((err as Error)?.message ?? err);
}

/** Parse `--max-image-mb`. */
export function parseMaxImageMb(raw: string | undefined): number {
  if (raw === undefined) return DEFAULT_MAX_IMAGE_MB * 1024 * 1024;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw usageError(retextureText.badMaxImageMb(raw));
  return Math.floor(n * 1024 * 1024);
}
