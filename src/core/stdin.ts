import { usageError } from './errors.js';

/** Read all of stdin as UTF-8 text. Binary data is refused with a clear message (nothing is sent). */
export async function readStdinText(stream: NodeJS.ReadableStream = process.stdin, maxBytes = 64 * 1024 * 1024): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    size += buf.length;
    if (size > maxBytes) throw usageError(`stdin is larger than ${Math.round(maxBytes / 1024 / 1024)} MB; send a smaller file`);
    chunks.push(buf);
  }
  const bytes = Buffer.concat(chunks);
  if (bytes.includes(0)) throw usageError('stdin holds binary data; medchat sends text only (convert the file to text first)');
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes).replace(/^\uFEFF/, '');
  } catch {
    throw usageError('stdin is not valid UTF-8 text; convert it first (for example with iconv -t utf-8)');
  }
}

/** Read one line from a terminal without echoing it (for secrets). Ctrl+C cancels. */
export function readHiddenLine(input: NodeJS.ReadStream = process.stdin): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    input.setRawMode?.(true);
    input.resume();
    input.setEncoding('utf8');
    const finish = (err?: Error) => {
      input.off('data', onData);
      input.setRawMode?.(false);
      input.pause();
      if (err) reject(err);
      else resolve(text.trim());
    };
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (ch === '\r' || ch === '\n' || ch === '\u0004') return finish();
        if (ch === '\u0003') return finish(usageError('cancelled'));
        if (ch === '\u007f' || ch === '\b') text = text.slice(0, -1);
        else if (ch >= ' ') text += ch;
      }
    };
    input.on('data', onData);
  });
}
