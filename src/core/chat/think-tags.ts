/**
 * Splits inline `<think>…</think>` reasoning out of streamed content, for servers that send
 * reasoning inside the answer text. Tags may be split across chunks, and the opening tag may be
 * missing (the answer then starts with reasoning and the first `</think>` ends it).
 *
 * While undecided at the start, up to `holdLimit` characters are held back: if `</think>` shows
 * up within them, they were reasoning; otherwise they are released as content. White space before
 * an opening tag is held back too, up to `holdLimit` characters.
 */
interface SplitPiece {
  kind: 'reasoning' | 'content';
  text: string;
}

const OPEN = '<think>';
const CLOSE = '</think>';
const SPACE = /\s/;

export class ThinkTagSplitter {
  private state: 'start' | 'undecided' | 'reasoning' | 'content' = 'start';
  private buf = '';
  /** How much of `buf` at the start is white space (in the state 'start'). */
  private lead = 0;

  constructor(
    /** Hold back the start of the answer to catch a missing opening tag (only when thinking was asked for). */
    private readonly detectMissingOpen = true,
    private readonly holdLimit = 512,
  ) {}

  push(text: string): SplitPiece[] {
    this.buf += text;
    const out: SplitPiece[] = [];
    for (;;) {
      const before = this.buf.length + this.state;
      this.step(out, false);
      if (this.buf.length + this.state === before) break;
    }
    return merge(out);
  }

  /** The stream ended: release whatever is held back. */
  end(): SplitPiece[] {
    const out: SplitPiece[] = [];
    this.step(out, true);
    if (this.buf) {
      out.push({ kind: this.state === 'reasoning' ? 'reasoning' : 'content', text: this.buf });
      this.buf = '';
    }
    return merge(out);
  }

  private step(out: SplitPiece[], final: boolean): void {
    switch (this.state) {
      case 'start': {
        // The white space at the start, looked at once (an answer of nothing but spaces is not searched again per piece).
        let lead = this.lead;
        while (lead < this.buf.length && SPACE.test(this.buf[lead]!)) lead++;
        this.lead = lead;
        const trimmed = this.buf.slice(lead);
        if (trimmed.startsWith(OPEN)) {
          this.buf = trimmed.slice(OPEN.length);
          this.state = 'reasoning';
        } else if (!final && trimmed.length < OPEN.length && OPEN.startsWith(trimmed) && lead <= this.holdLimit) {
          return; // could still become "<think>"
        } else {
          this.state = this.detectMissingOpen ? 'undecided' : 'content';
        }
        return;
      }
      case 'undecided': {
        const close = this.buf.indexOf(CLOSE);
        if (close >= 0) {
          if (close > 0) out.push({ kind: 'reasoning', text: this.buf.slice(0, close) });
          this.buf = this.buf.slice(close + CLOSE.length).replace(/^\s*\n/, '');
          this.state = 'content';
        } else if (final || this.buf.length > this.holdLimit) {
          this.state = 'content';
        }
        return;
      }
      case 'reasoning': {
        const close = this.buf.indexOf(CLOSE);
        if (close >= 0) {
          if (close > 0) out.push({ kind: 'reasoning', text: this.buf.slice(0, close) });
          this.buf = this.buf.slice(close + CLOSE.length).replace(/^\s*\n/, '');
          this.state = 'content';
          return;
        }
        const keep = final ? 0 : partialSuffix(this.buf, CLOSE);
        const emit = this.buf.slice(0, this.buf.length - keep);
        if (emit) out.push({ kind: 'reasoning', text: emit });
        this.buf = this.buf.slice(emit.length);
        return;
      }
      case 'content': {
        if (this.buf) out.push({ kind: 'content', text: this.buf });
        this.buf = '';
        return;
      }
    }
  }
}

/** Length of the longest suffix of `text` that is a proper prefix of `tag`. */
function partialSuffix(text: string, tag: string): number {
  for (let n = Math.min(tag.length - 1, text.length); n > 0; n--) {
    if (text.endsWith(tag.slice(0, n))) return n;
  }
  return 0;
}

function merge(pieces: SplitPiece[]): SplitPiece[] {
  const out: SplitPiece[] = [];
  for (const p of pieces) {
    if (!p.text) continue;
    const last = out[out.length - 1];
    if (last && last.kind === p.kind) last.text += p.text;
    else out.push({ ...p });
  }
  return out;
}
