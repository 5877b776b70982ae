import { textWidth } from '../core/text/width.js';

/** `s` padded with spaces to `cells` terminal cells: a column of Chinese words (2 cells a character) lines up as English does. */
export const padCells = (s: string, cells: number): string => s + ' '.repeat(Math.max(0, cells - textWidth(s)));
