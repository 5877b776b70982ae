/**
 * The labelled privacy test set (test/fixtures/privacy/): synthetic notes with each identifier
 * marked inline as {{KIND:text}} (the text may span lines). `parseMarked` strips the marks and
 * gives the text and the gold spans; `scoreFindings` compares what a scanner found with them.
 *
 * A gold span counts as found when findings of its kind cover every letter and digit of it (a
 * name half-replaced still leaks); a finding counts as right when it overlaps a gold span of its
 * kind. The "any kind" figures ignore the kind (for redaction a phone number called an id is
 * still hidden).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DIRECT_KINDS, KINDS, type Finding, type Kind } from '../../src/core/privacy/kinds.js';

export const PRIVACY_SET_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/privacy');

export interface GoldSpan {
  kind: Kind;
  start: number;
  end: number;
  text: string;
}

export interface LabelledNote {
  name: string;
  part: 'tuning' | 'heldout-a' | 'heldout-b';
  text: string;
  gold: GoldSpan[];
}

const MARK = /\{\{([A-Z]+):([\s\S]*?)\}\}/g;

export function parseMarked(source: string): { text: string; gold: GoldSpan[] } {
  let text = '';
  const gold: GoldSpan[] = [];
  let last = 0;
  for (const m of source.matchAll(MARK)) {
    const kind = m[1] as Kind;
    if (!(KINDS as readonly string[]).includes(kind)) throw new Error(`unknown kind ${kind} in {{${m[1]}:${m[2]}}}`);
    text += source.slice(last, m.index);
    gold.push({ kind, start: text.length, end: text.length + m[2]!.length, text: m[2]! });
    text += m[2];
    last = m.index + m[0].length;
  }
  text += source.slice(last);
  if (/\{\{|\}\}/.test(text)) throw new Error(`unbalanced mark near: ${text.slice(text.search(/\{\{|\}\}/), text.search(/\{\{|\}\}/) + 40)}`);
  return { text, gold };
}

export function loadPrivacySet(part?: 'tuning' | 'heldout-a' | 'heldout-b'): LabelledNote[] {
  const parts: Array<LabelledNote['part']> = part ? [part] : ['tuning', 'heldout-a', 'heldout-b'];
  const notes: LabelledNote[] = [];
  for (const p of parts) {
    const dir = path.join(PRIVACY_SET_DIR, p);
    if (!fs.existsSync(dir)) continue;
    for (const name of fs.readdirSync(dir).sort()) {
      if (!name.endsWith('.txt')) continue;
      const { text, gold } = parseMarked(fs.readFileSync(path.join(dir, name), 'utf8'));
      notes.push({ name: `${p}/${name}`, part: p, text, gold });
    }
  }
  return notes;
}

export interface Tally {
  gold: number;
  found: number;
  predicted: number;
  right: number;
}

export interface Scores {
  byKind: Record<Kind, Tally>;
  /** Direct identifiers (names, MRN, phone, e-mail, ids, addresses, dates): the recall goal. */
  direct: Tally;
  all: Tally;
  anyKind: Tally;
  misses: Array<{ note: string; gold: GoldSpan }>;
  falsePositives: Array<{ note: string; finding: Finding }>;
}

const emptyTally = (): Tally => ({ gold: 0, found: 0, predicted: 0, right: 0 });
export const recall = (t: Tally) => (t.gold ? t.found / t.gold : 1);
export const precision = (t: Tally) => (t.predicted ? t.right / t.predicted : 1);

function covered(text: string, g: GoldSpan, findings: readonly Finding[]): boolean {
  for (let i = g.start; i < g.end; i++) {
    if (!/[\p{L}\p{N}]/u.test(text[i]!)) continue;
    if (!findings.some((f) => f.start <= i && i < f.end)) return false;
  }
  return true;
}

const overlaps = (a: { start: number; end: number }, b: { start: number; end: number }) => a.start < b.end && b.start < a.end;

export function scoreFindings<N extends Pick<LabelledNote, 'name' | 'text' | 'gold'>>(notes: readonly N[], findingsFor: (note: N) => readonly Finding[]): Scores {
  const byKind = Object.fromEntries(KINDS.map((k) => [k, emptyTally()])) as Record<Kind, Tally>;
  const direct = emptyTally();
  const all = emptyTally();
  const anyKind = emptyTally();
  const misses: Scores['misses'] = [];
  const falsePositives: Scores['falsePositives'] = [];
  for (const note of notes) {
    const found = findingsFor(note);
    for (const g of note.gold) {
      const sameKind = found.filter((f) => f.kind === g.kind);
      const ok = covered(note.text, g, sameKind);
      const okAny = covered(note.text, g, found);
      for (const t of [byKind[g.kind], all, ...(DIRECT_KINDS.has(g.kind) ? [direct] : [])]) {
        t.gold++;
        if (ok) t.found++;
      }
      anyKind.gold++;
      if (okAny) anyKind.found++;
      if (!ok) misses.push({ note: note.name, gold: g });
    }
    for (const f of found) {
      const right = note.gold.some((g) => g.kind === f.kind && overlaps(g, f));
      const rightAny = note.gold.some((g) => overlaps(g, f));
      for (const t of [byKind[f.kind], all, ...(DIRECT_KINDS.has(f.kind) ? [direct] : [])]) {
        t.predicted++;
        if (right) t.right++;
      }
      anyKind.predicted++;
      if (rightAny) anyKind.right++;
      if (!right) falsePositives.push({ note: note.name, finding: f });
    }
  }
  return { byKind, direct, all, anyKind, misses, falsePositives };
}
