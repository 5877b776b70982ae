/**
 * Turns what the terminal sends into named keys. Ink's input parser already splits the byte
 * stream into events (one escape sequence, or a run of plain text); this maps each event to a
 * `Key`, and tracks bracketed paste (ESC[200~ … ESC[201~) so pasted newlines never send.
 */
export type Key =
  | { name: 'text'; text: string }
  | { name: 'paste'; text: string }
  | {
      name:
        | 'enter' | 'newline' | 'backspace' | 'delete' | 'left' | 'right' | 'up' | 'down' | 'home' | 'end'
        | 'word-left' | 'word-right' | 'kill-word-before' | 'kill-word-after' | 'kill-line-start' | 'kill-line-end'
        | 'ctrl-c' | 'ctrl-d' | 'ctrl-g' | 'ctrl-o' | 'ctrl-l' | 'escape' | 'tab' | 'page-up' | 'page-down' | 'ignored';
    };

const SEQUENCES: Record<string, Key['name']> = {
  '\r': 'enter',
  '\n': 'newline', // Ctrl+J
  '\x1b\r': 'newline', // Alt+Enter
  '\x1b\n': 'newline',
  '\x1b[13;2u': 'newline', // Shift+Enter (kitty / CSI u)
  '\x1b[13;3u': 'newline',
  '\x1b[27;2;13~': 'newline',
  '\x7f': 'backspace',
  '\b': 'backspace',
  '\x1b\x7f': 'kill-word-before', // Alt+Backspace
  '\x1b\b': 'kill-word-before',
  '\x1b[3~': 'delete',
  '\x1b[D': 'left', '\x1bOD': 'left',
  '\x1b[C': 'right', '\x1bOC': 'right',
  '\x1b[A': 'up', '\x1bOA': 'up',
  '\x1b[B': 'down', '\x1bOB': 'down',
  '\x1b[H': 'home', '\x1bOH': 'home', '\x1b[1~': 'home', '\x1b[7~': 'home',
  '\x1b[F': 'end', '\x1bOF': 'end', '\x1b[4~': 'end', '\x1b[8~': 'end',
  '\x1b[5~': 'page-up', '\x1b[6~': 'page-down',
  '\x1b[1;5D': 'word-left', '\x1b[1;3D': 'word-left', '\x1b\x1b[D': 'word-left', '\x1bb': 'word-left', '\x1b[5D': 'word-left',
  '\x1b[1;5C': 'word-right', '\x1b[1;3C': 'word-right', '\x1b\x1b[C': 'word-right', '\x1bf': 'word-right', '\x1b[5C': 'word-right',
  '\x1bd': 'kill-word-after',
  '\x01': 'home', // Ctrl+A
  '\x05': 'end', // Ctrl+E
  '\x02': 'left', // Ctrl+B
  '\x06': 'right', // Ctrl+F
  '\x17': 'kill-word-before', // Ctrl+W
  '\x15': 'kill-line-start', // Ctrl+U
  '\x0b': 'kill-line-end', // Ctrl+K
  '\x03': 'ctrl-c',
  '\x04': 'ctrl-d',
  '\x07': 'ctrl-g',
  '\x0f': 'ctrl-o',
  '\x0c': 'ctrl-l',
  '\x10': 'up', // Ctrl+P
  '\x0e': 'down', // Ctrl+N
  '\x1b': 'escape',
  '\t': 'tab',
};

const PASTE_START = '\x1b[200~';
const PASTE_END = '\x1b[201~';

export class KeyDecoder {
  private paste: string | undefined;

  /** One input event from Ink's parser -> zero or more keys. */
  push(event: string): Key[] {
    if (this.paste !== undefined) {
      const endAt = event.indexOf(PASTE_END);
      if (endAt === -1) {
        this.paste += event;
        return [];
      }
      const text = this.paste + event.slice(0, endAt);
      this.paste = undefined;
      const rest = event.slice(endAt + PASTE_END.length);
      return [{ name: 'paste', text }, ...(rest ? this.push(rest) : [])];
    }
    if (event.startsWith(PASTE_START)) {
      this.paste = '';
      const rest = event.slice(PASTE_START.length);
      return rest ? this.push(rest) : [];
    }
    const named = SEQUENCES[event];
    if (named) return [{ name: named } as Key];
    if (event.startsWith('\x1b')) return [{ name: 'ignored' }];
    // A run of plain text. Without bracketed paste, a paste arrives as one run with CRs inside:
    // treat it as a paste (never send). A single trailing CR after typed text is a real Enter.
    // (Typed ahead before raw mode, the terminal turned Enter into "\n": same rule.)
    const body = /[\r\n]$/.test(event) && !/[\r\n]/.test(event.slice(0, -1)) ? event.slice(0, -1) : event;
    const keys: Key[] = [];
    if (/[\r\n]/.test(body)) keys.push({ name: 'paste', text: body });
    else {
      // Typed fast, keys can share one event (held Backspace: "\x7f\x7f"): map each control character.
      let text = '';
      for (const ch of body) {
        const key = /[\u0000-\u001f\u007f]/.test(ch) ? SEQUENCES[ch] : undefined;
        if (key === undefined && !/[\u0000-\u001f\u007f]/.test(ch)) {
          text += ch;
          continue;
        }
        if (text) keys.push({ name: 'text', text });
        text = '';
        if (key) keys.push({ name: key } as Key);
      }
      if (text) keys.push({ name: 'text', text });
    }
    if (body !== event) keys.push({ name: 'enter' });
    return keys;
  }
}

export const ENABLE_BRACKETED_PASTE = '\x1b[?2004h';
export const DISABLE_BRACKETED_PASTE = '\x1b[?2004l';
