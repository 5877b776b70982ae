import { textWidth } from '../../core/text/width.js';

/**
 * What Ink and its text helpers (wrap-ansi, widest-line, cli-truncate) get when they import
 * string-width: the build resolves their imports here (build/build.mjs), so Ink lays out boxes and
 * wraps text with the chat screen's one measure, disputed clusters included (see width.ts), and
 * the frame writer pins those clusters to the cells Ink gave them. (None of them passes options.)
 */
export default function inkStringWidth(text: string): number {
  return textWidth(text);
}
