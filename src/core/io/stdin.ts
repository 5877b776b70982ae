import { usageError } from '../errors.js';
import { decodeText, readStreamBounded } from './bounded-read.js';
import { ioText } from '../i18n/messages/io.js';

/**
 * The most text one input may hold (stdin, a `-f` file, a batch line): 2 MB, 16 bytes for each
 * token of the service's 128k window, three to five times what it can take (text runs at 3–5
 * bytes a token). A larger `context-window` (up to 1M) does not raise it: reading, checking and
 * counting 2 MB already peaks at 165–195 MB (the o200k tokenizer's tables alone take ~75 MB), and
 * 4 MB passed 200 MB (16 MB, what 16 bytes a token of 1M would allow, took 480 MB).
 */
export const MAX_INPUT_BYTES = 2 * 1024 * 1024;

/**
 * Read all of stdin as UTF-8 text, at most `maxBytes`: past that it is refused at once, without
 * reading (or holding) more. Binary data is refused with a clear message (nothing is sent).
 */
export async function readStdinText(stream: NodeJS.ReadableStream = process.stdin, maxBytes = MAX_INPUT_BYTES): Promise<string> {
  const bytes = await readStreamBounded(stream, maxBytes, () =>
    usageError(
      ioText.stdinTooLarge(formatBytes(maxBytes)),
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
