/**
 * The labelled notes for names written without labels (test/fixtures/privacy/names-tuning, names-heldout):
 * same {{KIND:text}} marks as the main set (see privacy-set.ts). names-heldout was written before the
 * name pass existed and before anyone looked at how the guard did on it; nothing was tuned on it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { PRIVACY_SET_DIR, parseMarked, type GoldSpan } from './privacy-set.js';

export type NamesPart = 'names-tuning' | 'names-heldout' | 'names-heldout-2' | 'names-heldout-3' | 'names-heldout-4' | 'names-heldout-5' | 'names-heldout-6' | 'names-heldout-7';

export interface NamesNote {
  name: string;
  part: NamesPart;
  text: string;
  gold: GoldSpan[];
}

export function loadNamesSet(part: NamesPart): NamesNote[] {
  const dir = path.join(PRIVACY_SET_DIR, part);
  return fs
    .readdirSync(dir)
    .filter((n) => n.endsWith('.txt'))
    .sort()
    .map((n) => ({ name: `${part}/${n}`, part, ...parseMarked(fs.readFileSync(path.join(dir, n), 'utf8')) }));
}
