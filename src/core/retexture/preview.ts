/**
 * A small preview of an image for a terminal, as a string to write (no React here, so the chat
 * screen and the command line share it):
 * - `iterm2`: the iTerm2 inline image protocol (also WezTerm, and others that speak it);
 * - `kitty`: the kitty graphics protocol (kitty, Ghostty, WezTerm);
 * - `blocks`: coloured upper-half blocks, two pixels per character cell (any colour terminal);
 * - `ascii`: a grey ramp in plain characters (NO_COLOR).
 * PNG and JPEG are decoded here (pngjs, jpeg-js); WebP and GIF only go through `iterm2`.
 */
import jpeg from 'jpeg-js';
import { PNG } from 'pngjs';
import { sniffImageType } from './image-input.js';

type PreviewProtocol = 'iterm2' | 'kitty' | 'blocks' | 'ascii';

export interface PreviewOptions {
  protocol?: PreviewProtocol;
  /** Width in character cells (default 32). */
  columns?: number;
  /** Most character rows (default 16). */
  maxRows?: number;
  /** 24-bit colour for `blocks` (default: from COLORTERM). */
  trueColour?: boolean;
  env?: NodeJS.ProcessEnv;
}

export interface Preview {
  text: string;
  protocol: PreviewProtocol;
  /** Character rows it takes, when known. */
  rows?: number;
}

/** Which protocol this terminal understands; `colour` false gives `ascii`. Inside tmux/screen only blocks are safe. */
export function detectPreviewProtocol(env: NodeJS.ProcessEnv = process.env, colour = true): PreviewProtocol {
  if (!colour) return 'ascii';
  if (env.TMUX || /^screen/.test(env.TERM ?? '')) return 'blocks';
  const program = env.TERM_PROGRAM ?? '';
  if (program === 'iTerm.app' || program === 'WezTerm' || env.LC_TERMINAL === 'iTerm2') return 'iterm2';
  if (env.TERM === 'xterm-kitty' || env.KITTY_WINDOW_ID || program === 'ghostty' || env.TERM === 'xterm-ghostty') return 'kitty';
  return 'blocks';
}

function supportsTrueColour(env: NodeJS.ProcessEnv = process.env): boolean {
  return /truecolor|24bit/i.test(env.COLORTERM ?? '') || ['iTerm.app', 'WezTerm', 'ghostty', 'vscode'].includes(env.TERM_PROGRAM ?? '');
}

export interface Pixels {
  width: number;
  height: number;
  /** RGBA, 8 bits each. */
  data: Uint8Array;
}

const MAX_PIXELS = 40_000_000;

/** Decode PNG or JPEG into RGBA pixels; undefined for other types or broken files. */
function decodePixels(bytes: Uint8Array): Pixels | undefined {
  const mime = sniffImageType(bytes);
  try {
    if (mime === 'image/png') {
      const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      if (view.length >= 24 && view.readUInt32BE(16) * view.readUInt32BE(20) > MAX_PIXELS) return undefined;
      const png = PNG.sync.read(view);
      return { width: png.width, height: png.height, data: png.data };
    }
    if (mime === 'image/jpeg') {
      const img = jpeg.decode(bytes, { useTArray: true, formatAsRGBA: true, maxResolutionInMP: MAX_PIXELS / 1e6, maxMemoryUsageInMB: 512 });
      return { width: img.width, height: img.height, data: img.data };
    }
  } catch {
    return undefined;
  }
  return undefined;
}

/** Box-average `src` down (or up) to w×h, blending transparency over black. */
function resample(src: Pixels, w: number, h: number): Uint8Array {
  const out = new Uint8Array(w * h * 3);
  for (let y = 0; y < h; y++) {
    const y0 = Math.floor((y * src.height) / h);
    const y1 = Math.max(y0 + 1, Math.floor(((y + 1) * src.height) / h));
    for (let x = 0; x < w; x++) {
      const x0 = Math.floor((x * src.width) / w);
      const x1 = Math.max(x0 + 1, Math.floor(((x + 1) * src.width) / w));
      let r = 0, g = 0, b = 0, n = 0;
      for (let yy = y0; yy < y1; yy++) {
        for (let xx = x0; xx < x1; xx++) {
          const i = (yy * src.width + xx) * 4;
          const a = (src.data[i + 3] ?? 255) / 255;
          r += (src.data[i] ?? 0) * a;
          g += (src.data[i + 1] ?? 0) * a;
          b += (src.data[i + 2] ?? 0) * a;
          n++;
        }
      }
      const o = (y * w + x) * 3;
      out[o] = Math.round(r / n);
      out[o + 1] = Math.round(g / n);
      out[o + 2] = Math.round(b / n);
    }
  }
  return out;
}

/** The nearest xterm 256-colour index. */
export function ansi256(r: number, g: number, b: number): number {
  const grey = r === g && g === b;
  if (grey) {
    if (r < 8) return 16;
    if (r > 248) return 231;
    return Math.round(((r - 8) / 247) * 24) + 232;
  }
  const q = (v: number) => (v < 48 ? 0 : v < 115 ? 1 : Math.floor((v - 35) / 40));
  return 16 + 36 * q(r) + 6 * q(g) + q(b);
}

function cellSize(img: Pixels, columns: number, maxRows: number, pixelsPerRow: number): { cols: number; rows: number } {
  // A character cell is about twice as tall as it is wide.
  let cols = Math.max(1, Math.min(columns, img.width));
  let rows = Math.max(1, Math.round((cols * img.height) / img.width / 2));
  if (rows > maxRows) {
    rows = maxRows;
    cols = Math.max(1, Math.min(columns, Math.round((rows * 2 * img.width) / img.height)));
  }
  void pixelsPerRow;
  return { cols, rows };
}

export function renderBlocks(img: Pixels, columns = 32, maxRows = 16, trueColour = false): Preview {
  const { cols, rows } = cellSize(img, columns, maxRows, 2);
  const px = resample(img, cols, rows * 2);
  const colour = (r: number, g: number, b: number, bg: boolean) =>
    trueColour ? `${bg ? 48 : 38};2;${r};${g};${b}` : `${bg ? 48 : 38};5;${ansi256(r, g, b)}`;
  const lines: string[] = [];
  for (let row = 0; row < rows; row++) {
    let line = '';
    let prevFg = '';
    let prevBg = '';
    for (let x = 0; x < cols; x++) {
      const t = (row * 2 * cols + x) * 3;
      const b = ((row * 2 + 1) * cols + x) * 3;
      const fg = colour(px[t]!, px[t + 1]!, px[t + 2]!, false);
      const bg = colour(px[b]!, px[b + 1]!, px[b + 2]!, true);
      const codes = [fg !== prevFg ? fg : '', bg !== prevBg ? bg : ''].filter(Boolean).join(';');
      if (codes) line += `\x1b[${codes}m`;
      line += '▀';
      prevFg = fg;
      prevBg = bg;
    }
    lines.push(line + '\x1b[0m');
  }
  return { text: lines.join('\n') + '\n', protocol: 'blocks', rows };
}

const RAMP = ' .:-=+*#%@';

function renderAscii(img: Pixels, columns = 32, maxRows = 16): Preview {
  const { cols, rows } = cellSize(img, columns, maxRows, 1);
  const px = resample(img, cols, rows);
  const lines: string[] = [];
  for (let y = 0; y < rows; y++) {
    let line = '';
    for (let x = 0; x < cols; x++) {
      const i = (y * cols + x) * 3;
      const lum = (0.2126 * px[i]! + 0.7152 * px[i + 1]! + 0.0722 * px[i + 2]!) / 255;
      line += RAMP[Math.min(RAMP.length - 1, Math.floor(lum * RAMP.length))];
    }
    lines.push(line.trimEnd());
  }
  return { text: lines.join('\n') + '\n', protocol: 'ascii', rows };
}

function renderITerm2(bytes: Uint8Array, columns = 32, name = 'retexture'): Preview {
  const b64 = Buffer.from(bytes).toString('base64');
  const n = Buffer.from(name).toString('base64');
  return {
    text: `\x1b]1337;File=name=${n};size=${bytes.length};width=${columns};preserveAspectRatio=1;inline=1:${b64}\x07\n`,
    protocol: 'iterm2',
  };
}

function renderKitty(png: Uint8Array, columns = 32, rows?: number): Preview {
  const b64 = Buffer.from(png).toString('base64');
  const parts: string[] = [];
  for (let i = 0; i < b64.length; i += 4096) {
    const chunk = b64.slice(i, i + 4096);
    const more = i + 4096 < b64.length ? 1 : 0;
    const head = i === 0 ? `a=T,f=100,t=d,c=${columns}${rows ? `,r=${rows}` : ''},m=${more}` : `m=${more}`;
    parts.push(`\x1b_G${head};${chunk}\x1b\\`);
  }
  return { text: parts.join('') + '\n', protocol: 'kitty', rows };
}

/**
 * A preview of `bytes` for this terminal, or undefined when it cannot be drawn (an image type
 * that is not decoded here, a broken file).
 */
export function renderPreview(bytes: Uint8Array, opts: PreviewOptions = {}): Preview | undefined {
  const env = opts.env ?? process.env;
  const protocol = opts.protocol ?? detectPreviewProtocol(env);
  const columns = Math.max(4, Math.min(opts.columns ?? 32, 200));
  const maxRows = Math.max(2, opts.maxRows ?? 16);
  const mime = sniffImageType(bytes);
  if (!mime) return undefined;
  if (protocol === 'iterm2') return renderITerm2(bytes, columns);
  const img = decodePixels(bytes);
  if (!img || img.width === 0 || img.height === 0) return undefined;
  if (protocol === 'kitty') {
    const { cols, rows } = cellSize(img, columns, maxRows, 2);
    const png = mime === 'image/png' ? bytes : PNG.sync.write(Object.assign(new PNG({ width: img.width, height: img.height }), { data: Buffer.from(img.data) }));
    return renderKitty(png, cols, rows);
  }
  if (protocol === 'ascii') return renderAscii(img, columns, maxRows);
  return renderBlocks(img, columns, maxRows, opts.trueColour ?? supportsTrueColour(env));
}
