/**
 * Clickable links (OSC 8: `ESC ] 8 ; params ; URI BEL text ESC ] 8 ; ; BEL`). A terminal that does
 * not know the sequence may print it, so it is used only where the terminal is known to handle it,
 * and the target is a checked http(s)/mailto URL with nothing in it a terminal could obey.
 */

/** The longest target sent (VTE refuses URIs over 2083 bytes; others are lower still). */
export const MAX_LINK_LENGTH = 2048;

const envOn = (v: string | undefined) => v !== undefined && v !== '' && v !== '0' && v.toLowerCase() !== 'false';

function version(v: string | undefined): number[] {
  return (v ?? '').split(/[.-]/).map((p) => Number.parseInt(p, 10) || 0);
}

function atLeast(v: string | undefined, min: number[]): boolean {
  const have = version(v);
  for (let i = 0; i < min.length; i++) {
    const h = have[i] ?? 0;
    if (h !== min[i]) return h > min[i]!;
  }
  return true;
}

/**
 * Whether links may be written as OSC 8 on this terminal. Conservative: only terminals that say
 * who they are and are known to support it; never with NO_COLOR, off a terminal, with TERM=dumb,
 * or inside tmux/screen (tmux before 3.4 drops the sequence and needs `terminal-features` set for
 * it even then; it does not say which it is). `FORCE_HYPERLINK=1` turns it on, `=0` off.
 */
export function hyperlinksSupported(env: NodeJS.ProcessEnv, isTTY: boolean): boolean {
  if (env.FORCE_HYPERLINK !== undefined) return envOn(env.FORCE_HYPERLINK);
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (!isTTY || env.TERM === 'dumb') return false;
  if (env.TMUX || env.STY || /^(screen|tmux)/.test(env.TERM ?? '')) return false;
  if (env.CI || env.TEAMCITY_VERSION) return false;
  const program = env.TERM_PROGRAM;
  if (program === 'iTerm.app') return atLeast(env.TERM_PROGRAM_VERSION, [3, 1]);
  if (program === 'WezTerm') return atLeast(env.TERM_PROGRAM_VERSION, [20200620]);
  if (program === 'vscode') return atLeast(env.TERM_PROGRAM_VERSION, [1, 72]);
  if (program === 'ghostty' || env.TERM === 'xterm-ghostty') return true;
  if (env.WT_SESSION) return true; // Windows Terminal
  if (env.KITTY_WINDOW_ID || env.TERM === 'xterm-kitty') return true;
  if (env.TERM === 'foot' || env.TERM === 'foot-extra') return true;
  if (env.VTE_VERSION) return atLeast(env.VTE_VERSION, [5000]); // GNOME Terminal, Tilix… (VTE 0.50)
  return false;
}

let cached: boolean | undefined;

/** `hyperlinksSupported` for this process's stdout (decided once). */
export function terminalHyperlinks(): boolean {
  cached ??= hyperlinksSupported(process.env, Boolean(process.stdout.isTTY));
  return cached;
}

// Anything a terminal could read as the end of the sequence or obey: C0, DEL, C1 (0x9c is ST),
// and the bidi controls the sanitizer also refuses.
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

/**
 * The link target to send, or undefined when `raw` must not be a link: only http, https and
 * mailto; no control characters (ESC, BEL, ST…) in what was given; no longer than
 * MAX_LINK_LENGTH once encoded. What is returned is printable ASCII (the URL parser
 * percent-encodes the rest and punycodes host names).
 */
export function safeLinkTarget(raw: string): string | undefined {
  if (raw.length > MAX_LINK_LENGTH || UNSAFE.test(raw)) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:' && url.protocol !== 'mailto:') return undefined;
  if ((url.protocol === 'http:' || url.protocol === 'https:') && (!url.hostname || url.username || url.password)) return undefined;
  const href = url.href;
  if (href.length > MAX_LINK_LENGTH || !/^[\x21-\x7e]+$/.test(href)) return undefined;
  return href;
}

/** A short id for the `id=` parameter: the pieces of one link cut over rows then light up together. */
function linkId(target: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < target.length; i++) h = Math.imul(h ^ target.charCodeAt(i), 0x01000193);
  return `mc${(h >>> 0).toString(36)}`;
}

/** The sequence that starts a link to `target` (which must come from `safeLinkTarget`). BEL-terminated, as Ink expects. */
export function linkOpen(target: string): string {
  return `\x1b]8;id=${linkId(target)};${target}\x07`;
}

export const LINK_CLOSE = '\x1b]8;;\x07';
