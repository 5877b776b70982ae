/**
 * Make text from the service harmless on a terminal: escape sequences (colours, cursor moves,
 * screen clears, alternate screen, OSC 52 clipboard writes, title changes, hyperlinks), control
 * characters (C0, DEL, C1 such as 0x9b CSI) and bidirectional overrides/isolates/marks (which
 * reorder what is shown, "Trojan Source") are shown as visible symbols instead of being obeyed.
 * Newlines and tabs pass; CRLF becomes LF.
 *
 * Every path that writes service-originated text (answers, reasoning, errors, task fields,
 * session titles, exports) to a TERMINAL goes through here. Piped output is written exactly as
 * received; JSON output goes through `jsonForTerminal` (the same value, with these characters
 * written as \u escapes).
 */
// C0 controls except \t (09) and \n (0a), DEL, and C1 controls (which some terminals obey too);
// bidi embeddings/overrides U+202A–U+202E, isolates U+2066–U+2069, marks U+200E/U+200F and U+061C.
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
const UNSAFE_TEST = new RegExp(UNSAFE.source);

/** How each unsafe character is shown: ␛ for ESC, control pictures for C0, ␡ for DEL, � for C1, <U+202E> for bidi. */
function visible(ch: string): string {
  const code = ch.charCodeAt(0);
  if (code === 0x1b) return '␛';
  if (code < 0x20) return String.fromCharCode(0x2400 + code);
  if (code === 0x7f) return '␡';
  if (code <= 0x9f) return '�';
  return `<U+${code.toString(16).toUpperCase().padStart(4, '0')}>`;
}

export function sanitizeForTerminal(text: string): string {
  if (!needsSanitizing(text)) return text;
  return text.replace(/\r\n/g, '\n').replace(UNSAFE, visible);
}

/** For a one-line message (errors, notices): sanitized, and line breaks and tabs made spaces so it stays one line. */
export function sanitizeLine(text: string): string {
  return sanitizeForTerminal(text).replace(/[ \t]*\n[ \t]*/g, ' ').replace(/\t/g, ' ');
}

export function needsSanitizing(text: string): boolean {
  return UNSAFE_TEST.test(text);
}

// What JSON.stringify leaves raw that a terminal may obey or reorder (it escapes U+0000–U+001F
// itself): DEL, C1, bidi controls; also U+2028/U+2029, which break JavaScript string literals.
const JSON_UNSAFE = /[\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/g;

/**
 * JSON.stringify, with every character a terminal could obey written as a `\uXXXX` escape:
 * the same JSON value (a parser reads back exactly what was received), safe to print anywhere.
 */
export function jsonForTerminal(value: unknown, space?: number): string {
  const text = JSON.stringify(value, null, space);
  return text === undefined ? text : text.replace(JSON_UNSAFE, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
