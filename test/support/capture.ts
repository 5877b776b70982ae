import { PassThrough } from 'node:stream';

/** A stream to hand a command as its stdout or stderr; `text()` is all that was written to it. */
export function capture(): NodeJS.WriteStream & { text: () => string } {
  const s = new PassThrough();
  let text = '';
  s.on('data', (c) => (text += c));
  return Object.assign(s as unknown as NodeJS.WriteStream, { text: () => text });
}
