/**
 * Make text from the service harmless on a terminal: escape sequences (colours, cursor moves,
 * screen clears, OSC 52 clipboard writes, title changes, hyperlinks) and control characters
 * are shown as visible symbols instead of being obeyed. Newlines and tabs pass; CRLF becomes LF.
 * Only for display on a terminal: piped output is written exactly as received.
 */
// C0 controls except \t (09) and \n (0a), DEL, and C1 controls (which some terminals obey too).
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f\u0080-\u009f]/g;

export function sanitizeForTerminal(text: string): string {
  if (!needsSanitizing(text)) return text;
  return text.replace(/\r\n/g, '\n').replace(CONTROL, (ch) => {
    const code = ch.charCodeAt(0);
    if (code === 0x1b) return '␛';
    if (code < 0x20) return String.fromCharCode(0x2400 + code);
    if (code === 0x7f) return '␡';
    return '�';
  });
}

export function needsSanitizing(text: string): boolean {
  CONTROL.lastIndex = 0;
  const hit = CONTROL.test(text);
  CONTROL.lastIndex = 0;
  return hit;
}
