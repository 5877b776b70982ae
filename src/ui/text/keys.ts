/**
 * Turns what the terminal sends into named keys. Ink's input parser already splits the byte
 * stream into events (one escape sequence, or a run of plain text); this maps each event to a
 * `Key`, and tracks bracketed paste (ESC[200~ … ESC[201~) so pasted newlines never send.
 */
export type NamedKey =
  | 'enter' | 'newline' | 'backspace' | 'delete' | 'left' | 'right' | 'up' | 'down' | 'home' | 'end'
  | 'word-left' | 'word-right' | 'kill-word-before' | 'kill-word-after' | 'kill-line-start' | 'kill-line-end'
  | 'ctrl-c' | 'ctrl-d' | 'ctrl-g' | 'ctrl-o' | 'ctrl-l' | 'escape' | 'tab' | 'shift-tab' | 'page-up' | 'page-down';

export type Key = { name: 'text'; text: string } | { name: 'paste'; text: string } | { name: NamedKey | 'ignored' };

/**
 * Every key the decoder knows: what a person presses (the label /help shows), the key it means,
 * and the bytes terminals send for it. The one list /help, the manual and the tests read.
 */
export const KEY_BINDINGS: ReadonlyArray<{ label: string; key: NamedKey; sends: readonly string[] }> = [
  { label: 'Enter', key: 'enter', sends: ['\r'] },
  { label: 'Ctrl+J', key: 'newline', sends: ['\n'] },
  { label: 'Alt+Enter', key: 'newline', sends: ['\x1b\r', '\x1b\n', '\x1b[13;3u'] },
  { label: 'Shift+Enter', key: 'newline', sends: ['\x1b[13;2u', '\x1b[27;2;13~'] },
  { label: 'Backspace', key: 'backspace', sends: ['\x7f', '\b'] },
  { label: 'Delete', key: 'delete', sends: ['\x1b[3~'] },
  { label: 'Left', key: 'left', sends: ['\x1b[D', '\x1bOD'] },
  { label: 'Ctrl+B', key: 'left', sends: ['\x02'] },
  { label: 'Right', key: 'right', sends: ['\x1b[C', '\x1bOC'] },
  { label: 'Ctrl+F', key: 'right', sends: ['\x06'] },
  { label: 'Ctrl+Left', key: 'word-left', sends: ['\x1b[1;5D', '\x1b[5D'] },
  { label: 'Alt+Left', key: 'word-left', sends: ['\x1b[1;3D', '\x1b\x1b[D'] },
  { label: 'Alt+B', key: 'word-left', sends: ['\x1bb'] },
  { label: 'Ctrl+Right', key: 'word-right', sends: ['\x1b[1;5C', '\x1b[5C'] },
  { label: 'Alt+Right', key: 'word-right', sends: ['\x1b[1;3C', '\x1b\x1b[C'] },
  { label: 'Alt+F', key: 'word-right', sends: ['\x1bf'] },
  { label: 'Home', key: 'home', sends: ['\x1b[H', '\x1bOH', '\x1b[1~', '\x1b[7~'] },
  { label: 'Ctrl+A', key: 'home', sends: ['\x01'] },
  { label: 'End', key: 'end', sends: ['\x1b[F', '\x1bOF', '\x1b[4~', '\x1b[8~'] },
  { label: 'Ctrl+E', key: 'end', sends: ['\x05'] },
  { label: 'Ctrl+W', key: 'kill-word-before', sends: ['\x17'] },
  { label: 'Alt+Backspace', key: 'kill-word-before', sends: ['\x1b\x7f', '\x1b\b'] },
  { label: 'Alt+D', key: 'kill-word-after', sends: ['\x1bd'] },
  { label: 'Ctrl+U', key: 'kill-line-start', sends: ['\x15'] },
  { label: 'Ctrl+K', key: 'kill-line-end', sends: ['\x0b'] },
  { label: 'Up', key: 'up', sends: ['\x1b[A', '\x1bOA'] },
  { label: 'Ctrl+P', key: 'up', sends: ['\x10'] },
  { label: 'Down', key: 'down', sends: ['\x1b[B', '\x1bOB'] },
  { label: 'Ctrl+N', key: 'down', sends: ['\x0e'] },
  { label: 'PgUp', key: 'page-up', sends: ['\x1b[5~'] },
  { label: 'PgDn', key: 'page-down', sends: ['\x1b[6~'] },
  { label: 'Tab', key: 'tab', sends: ['\t'] },
  { label: 'Shift+Tab', key: 'shift-tab', sends: ['\x1b[Z'] },
  { label: 'Esc', key: 'escape', sends: ['\x1b'] },
  { label: 'Ctrl+C', key: 'ctrl-c', sends: ['\x03'] },
  { label: 'Ctrl+D', key: 'ctrl-d', sends: ['\x04'] },
  { label: 'Ctrl+G', key: 'ctrl-g', sends: ['\x07'] },
  { label: 'Ctrl+O', key: 'ctrl-o', sends: ['\x0f'] },
  { label: 'Ctrl+L', key: 'ctrl-l', sends: ['\x0c'] },
];

const SEQUENCES: Record<string, NamedKey> = Object.fromEntries(KEY_BINDINGS.flatMap((b) => b.sends.map((seq) => [seq, b.key])));

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
    if (named) return [{ name: named }];
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
        if (key) keys.push({ name: key });
      }
      if (text) keys.push({ name: 'text', text });
    }
    if (body !== event) keys.push({ name: 'enter' });
    return keys;
  }
}

export const ENABLE_BRACKETED_PASTE = '\x1b[?2004h';
export const DISABLE_BRACKETED_PASTE = '\x1b[?2004l';
