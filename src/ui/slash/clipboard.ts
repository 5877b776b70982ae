/**
 * Copying text for `/copy`: every way that can work where medchat runs, and an honest account of
 * where the text went. Plain TS: the environment, programs and terminal are passed in, so the
 * choice can be tested with a fake environment and a fake `run`.
 *
 * - Inside tmux: `tmux load-buffer -w -` puts it in tmux's paste buffer (prefix + ]) and, when
 *   `set-clipboard` is not off and tmux knows the outer terminal takes clipboard writes, sends it
 *   on to that terminal's clipboard. An OSC 52 written by medchat would be dropped there unless
 *   the pane has `allow-passthrough` on; then it is also sent, wrapped for passthrough, if tmux
 *   itself did not reach the terminal.
 * - The platform's clipboard program (pbcopy, clip, wl-copy, xclip, xsel) where one can work.
 * - Otherwise (or over SSH, where such a program fills the remote machine's clipboard) OSC 52 to
 *   the terminal, which may ignore it: it is never reported as copied.
 * MEDCHAT_NO_CLIPBOARD_TOOL=1 runs no program at all (tmux included).
 */
import { spawnSync } from 'node:child_process';
import { uiSlashText } from '../../core/i18n/messages/ui-slash.js';

export interface ClipboardHost {
  env: NodeJS.ProcessEnv;
  platform: NodeJS.Platform;
  /** Runs `cmd` with `input` on stdin (its output is not read: clipboard programs stay behind holding it): true when it exits 0. */
  run(cmd: string, args: string[], input: string): boolean;
  /** Runs `cmd` and returns its output when it exits 0, undefined when it fails or is missing. */
  query(cmd: string, args: string[]): string | undefined;
  /** Writes to the terminal; undefined when output is not a terminal. */
  write?: (data: string) => void;
}

interface CopyOutcome {
  /** Inside tmux (TMUX set). */
  inTmux: boolean;
  /** MEDCHAT_NO_CLIPBOARD_TOOL: no program was run. */
  noPrograms: boolean;
  /** In tmux's paste buffer. */
  tmuxBuffer: boolean;
  /** tmux also sent it to the outer terminal's clipboard. */
  tmuxClipboard: boolean;
  /** The clipboard program that took it. */
  tool?: string;
  /** That program's clipboard is on the machine medchat runs on, reached over SSH. */
  remote: boolean;
  /** How OSC 52 was written to the terminal (no answer comes back: it may be ignored). */
  osc52?: 'direct' | 'tmux passthrough' | 'screen passthrough';
}

export function osc52Sequence(text: string): string {
  return `\x1b]52;c;${Buffer.from(text, 'utf8').toString('base64')}\x07`;
}

/** `seq` wrapped so tmux (with allow-passthrough on) or GNU screen hands it to the outer terminal. */
export function passthrough(seq: string, via: 'tmux' | 'screen'): string {
  return via === 'tmux' ? `\x1bPtmux;${seq.replace(/\x1b/g, '\x1b\x1b')}\x1b\\` : `\x1bP${seq}\x1b\\`;
}

/** The clipboard programs to try here, in order. */
function clipboardTools(env: NodeJS.ProcessEnv, platform: NodeJS.Platform): Array<[string, string[]]> {
  if (platform === 'darwin') return [['pbcopy', []]];
  if (platform === 'win32') return [['clip', []]];
  const tools: Array<[string, string[]]> = [];
  if (env.WAYLAND_DISPLAY) tools.push(['wl-copy', []]);
  if (env.DISPLAY) tools.push(['xclip', ['-selection', 'clipboard']], ['xsel', ['--clipboard', '--input']]);
  return tools;
}

const overSsh = (env: NodeJS.ProcessEnv) => Boolean(env.SSH_CONNECTION || env.SSH_TTY || env.SSH_CLIENT);

interface TmuxState {
  buffer: boolean;
  clipboard: boolean;
  passthrough: boolean;
}

function copyInTmux(text: string, host: ClipboardHost): TmuxState {
  const target = host.env.TMUX_PANE ? ['-t', host.env.TMUX_PANE] : [];
  const withW = host.run('tmux', ['load-buffer', '-w', '-'], text);
  // tmux before 3.2 has no -w: the paste buffer alone.
  const buffer = withW || host.run('tmux', ['load-buffer', '-'], text);
  const info = host.query('tmux', ['display-message', '-p', ...target, '#{set-clipboard}|#{client_termfeatures}|#{allow-passthrough}']);
  const [setClipboard = '', features = '', allow = ''] = (info ?? '').trim().split('|');
  return {
    buffer,
    clipboard: withW && setClipboard !== '' && setClipboard !== 'off' && features.split(',').includes('clipboard'),
    passthrough: allow !== '' && allow !== '0' && allow !== 'off',
  };
}

/** Copy `text` every way that can work here; what happened, for `describeCopy`. */
export function copyText(text: string, host: ClipboardHost): CopyOutcome {
  const { env } = host;
  const programs = !env.MEDCHAT_NO_CLIPBOARD_TOOL;
  const outcome: CopyOutcome = { inTmux: Boolean(env.TMUX), noPrograms: !programs, tmuxBuffer: false, tmuxClipboard: false, remote: false };
  let tmuxPassthrough = false;
  if (env.TMUX && programs) {
    const t = copyInTmux(text, host);
    outcome.tmuxBuffer = t.buffer;
    outcome.tmuxClipboard = t.clipboard;
    tmuxPassthrough = t.passthrough;
  }
  if (programs) {
    for (const [cmd, args] of clipboardTools(env, host.platform)) {
      if (host.run(cmd, args, text)) {
        outcome.tool = cmd;
        outcome.remote = overSsh(env);
        break;
      }
    }
  }
  if (host.write && !outcome.tmuxClipboard && (!outcome.tool || outcome.remote)) {
    const seq = osc52Sequence(text);
    if (env.TMUX) {
      if (tmuxPassthrough) {
        host.write(passthrough(seq, 'tmux'));
        outcome.osc52 = 'tmux passthrough'; // i18n-exempt: a kind of outcome, worded by describeCopy
      }
    } else if (env.STY) {
      host.write(passthrough(seq, 'screen'));
      outcome.osc52 = 'screen passthrough'; // i18n-exempt: a kind of outcome, worded by describeCopy
    } else {
      host.write(seq);
      outcome.osc52 = 'direct';
    }
  }
  return outcome;
}

/** Whether anything took the text (OSC 52 alone does not count: nothing says it arrived). */
export const copied = (o: CopyOutcome) => o.tmuxBuffer || o.tool !== undefined;

/**
 * The notice after a copy: what was copied (`what`, e.g. "the last answer"), how long, and where
 * it went, saying no more than is known.
 */
export function describeCopy(what: string, text: string, o: CopyOutcome): { text: string; tone: 'info' | 'warn' } {
  const chars = [...text].length;
  const t = uiSlashText;
  const size = t.characters(chars);
  const places: string[] = [];
  if (o.tmuxBuffer) places.push(t.toTmuxBuffer(!!o.tmuxClipboard));
  if (o.tool) places.push(t.withTool(o.tool, !!o.remote));
  // i18n-exempt: the next line compares kinds of outcome, not words
  const osc = o.osc52 && t.byOsc52(o.osc52 === 'direct' ? undefined : o.osc52 === 'tmux passthrough' ? t.tmuxPassthrough : t.screenPassthrough);
  if (places.length) return { text: t.copied(what, size, places.reduce((a, b) => t.bothPlaces(a, b)), osc || undefined), tone: 'info' };
  if (osc) return { text: t.sentToTerminal(what, size, osc), tone: 'info' };
  const why = o.inTmux ? t.noCopyInTmux(!!o.noPrograms) : t.noCopy(!!o.noPrograms);
  return { text: t.couldNotCopy(what, why), tone: 'warn' };
}

/** The real machine: this process's environment, programs run with a 3 s limit. */
export function systemClipboard(write?: (data: string) => void): ClipboardHost {
  return {
    env: process.env,
    platform: process.platform,
    write,
    run(cmd, args, input) {
      const r = spawnSync(cmd, args, { input, stdio: ['pipe', 'ignore', 'ignore'], timeout: 3000 });
      return !r.error && r.status === 0;
    },
    query(cmd, args) {
      const r = spawnSync(cmd, args, { stdio: ['ignore', 'pipe', 'ignore'], timeout: 3000, encoding: 'utf8' });
      return !r.error && r.status === 0 ? r.stdout : undefined;
    },
  };
}
