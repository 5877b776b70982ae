import { batchText } from '../i18n/messages/batch.js';
/**
 * Lines of a file or stream, read as it arrives (pull-based: nothing is read ahead of the
 * consumer beyond one chunk), with their 1-based numbers and byte offsets. Used for the batch
 * input and for reading back an answers file (where the offsets say where to cut a torn tail).
 */
export interface RawLine {
  /** The line's text, without its line break (`\n` or `\r\n`) and, on line 1, without a BOM. */
  text: string;
  lineNo: number;
  /** Byte offsets in the stream: where the line starts, and just past its `\n` (or the end). */
  start: number;
  end: number;
  /** false for a last line with no `\n` after it. */
  terminated: boolean;
}

/** A line longer than the reader accepts (its text is never held whole). */
export class LineTooLongError extends Error {
  constructor(
    readonly lineNo: number,
    readonly maxBytes: number,
  ) {
    super(batchText.lineLonger(lineNo, Math.round(maxBytes / 1024)));
    this.name = 'LineTooLongError';
  }
}

export async function* readLines(source: AsyncIterable<Buffer | string>, maxLineBytes: number): AsyncGenerator<RawLine> {
  let parts: Buffer[] = [];
  let partBytes = 0;
  let lineNo = 0;
  let offset = 0; // bytes before `parts`
  const make = (bytes: Buffer, terminated: boolean): RawLine => {
    lineNo++;
    let text = bytes.toString('utf8', 0, terminated ? bytes.length - 1 : bytes.length);
    if (text.endsWith('\r')) text = text.slice(0, -1);
    if (lineNo === 1 && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    const line = { text, lineNo, start: offset, end: offset + bytes.length, terminated };
    offset += bytes.length;
    return line;
  };
  for await (const piece of source) {
    let chunk = typeof piece === 'string' ? Buffer.from(piece) : piece;
    for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10)) {
      if (partBytes + nl + 1 > maxLineBytes + 2) throw new LineTooLongError(lineNo + 1, maxLineBytes);
      const head = chunk.subarray(0, nl + 1);
      const bytes = parts.length ? Buffer.concat([...parts, head]) : head;
      parts = [];
      partBytes = 0;
      yield make(bytes, true);
      chunk = chunk.subarray(nl + 1);
    }
    if (chunk.length) {
      partBytes += chunk.length;
      if (partBytes > maxLineBytes + 2) throw new LineTooLongError(lineNo + 1, maxLineBytes);
      parts.push(Buffer.from(chunk)); // a copy: the stream may reuse its buffer
    }
  }
  if (partBytes) yield make(Buffer.concat(parts), false);
}
