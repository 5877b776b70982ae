import { needsSanitizing } from '../sanitize.js';

/** The HTML entities answers use (the five XML ones and the common typographic and clinical ones). */
const NAMED: Record<string, string> = {
  amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0',
  copy: '©', reg: '®', trade: '™', hellip: '…', mdash: '—', ndash: '–', minus: '−', bull: '•', middot: '·',
  lsquo: '‘', rsquo: '’', ldquo: '“', rdquo: '”', laquo: '«', raquo: '»',
  deg: '°', plusmn: '±', times: '×', divide: '÷', micro: 'µ', le: '≤', ge: '≥', ne: '≠', asymp: '≈', infin: '∞',
  larr: '←', rarr: '→', uarr: '↑', darr: '↓', harr: '↔', frac12: '½', frac14: '¼', frac34: '¾', sup2: '²', sup3: '³',
  alpha: 'α', beta: 'β', gamma: 'γ', delta: 'δ', mu: 'μ', pi: 'π', sigma: 'σ', Delta: 'Δ', sect: '§', para: '¶', euro: '€', pound: '£',
};

/** Matches one entity: `&name;`, `&#123;` or `&#x1F600;`. */
export const ENTITY = /&(?:#[xX]([0-9a-fA-F]{1,6})|#([0-9]{1,7})|([A-Za-z][A-Za-z0-9]{1,31}));/g;

/**
 * The character an entity stands for, or undefined to leave it as written: unknown names, and
 * numbers for characters a terminal could obey (controls, bidi overrides) or that do not exist.
 */
export function decodeEntity(entity: string): string | undefined {
  const body = entity.slice(1, -1);
  if (body[0] !== '#') return Object.hasOwn(NAMED, body) ? NAMED[body] : undefined;
  const hex = body[1] === 'x' || body[1] === 'X';
  const cp = Number.parseInt(body.slice(hex ? 2 : 1), hex ? 16 : 10);
  if (!Number.isFinite(cp)) return undefined;
  if (cp === 0 || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return '\ufffd';
  const ch = String.fromCodePoint(cp);
  return needsSanitizing(ch) ? undefined : ch;
}

/** `text` with every entity it knows replaced by its character. */
export function decodeEntities(text: string): string {
  return text.includes('&') ? text.replace(ENTITY, (e) => decodeEntity(e) ?? e) : text;
}
