import { usageError } from '../errors.js';
import { decodeText, readStreamBounded } from './bounded-read.js';

/**
 * The most stdin one-shot mode reads: 16 bytes for each token of the context window (2 MB for
 * 128k tokens), three to five times what the window can take (text runs at 3–5 bytes a token),
 * and small enough that reading and counting it keeps medchat's peak memory under 200 MB.
 */
const STDIN_BYTES_PER_TOKEN = 16;
export const MIN_STDIN_BYTES = 2 * 1024 * 1024;

export function stdinLimitFor(contextWindow: number): number {
  return Math.max(MIN_STDIN_BYTES, Math.floor(contextWindow) * STDIN_BYTES_PER_TOKEN);
}

/**
 * Read all of stdin as UTF-8 text, at most `maxBytes`: past that it is refused at once, without
 * reading (or holding) more. Binary data is refused with a clear message (nothing is sent).
 */
export async function readStdinText(stream: NodeJS.ReadableStream = process.stdin, maxBytes = MIN_STDIN_BYTES): Promise<string> {
  const bytes = await readStreamBounded(stream, maxBytes, () =>
    usageError(
      `stdin is larger than ${formatBytes(maxBytes)}, more than the model's context window can hold; send a smaller part of it (e.g. head -c 400000 file | medchat "…")`,
    ),
  );
  return decodeText(bytes, 'stdin');
}

function formatBytes(n: number): string {
  return n >= 1024 * 1024 ? `${Math.round(n / 1024 / 1024)} MB` : `${Math.round(n / 1024)} KB`;
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
