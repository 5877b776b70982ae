import { describeCounts, type Finding } from './kinds.js';
import type { Outgoing } from './guard.js';
import type { PutBack } from './restore.js';
import { LineIndex } from '../text/line-index.js';
import { privacyText } from '../i18n/messages/privacy.js';

/** The guard's words: the stderr lines of one-shot and batch, and `medchat privacy check`'s listing. */

/** One line about an outgoing text, or undefined when nothing was found (or the guard is off). */
export function outgoingLine(out: Outgoing): string | undefined {
  if (!out.findings.length) return undefined;
  const what = describeCounts(out.counts);
  if (out.mode === 'warn') return privacyText.warnLine(what);
  return privacyText.replacedLine(what, out.replaced.some((r) => r.finding.kind === 'DATE' && !r.with.startsWith('[')));
}

/** What was put back in an answer (for output that is not a terminal: the values are listed here, not marked). */
export function putBackLine(putBack: readonly PutBack[]): string | undefined {
  if (!putBack.length) return undefined;
  const seen = new Map<string, string>();
  for (const p of putBack) if (!seen.has(p.placeholder)) seen.set(p.placeholder, p.value);
  const list = [...seen].map(([p, v]) => `${p} → ${v}`).join(', ');
  return privacyText.putBackLine(list);
}

/** The lines of the text lineCol was last asked about (it is asked once per finding). */
let lines: LineIndex | undefined;

/** 1-based line and column of an offset. */
export function lineCol(text: string, offset: number): { line: number; col: number } {
  if (lines?.text !== text) lines = new LineIndex(text);
  return lines.lineCol(offset);
}

/** `privacy check`'s text: one line a finding ("12:5  NAME  Margaret Ellison"), then the counts. */
export function findingLines(text: string, findings: readonly Finding[]): string[] {
  return findings.map((f) => {
    const { line, col } = lineCol(text, f.start);
    return `${`${line}:${col}`.padEnd(8)} ${f.kind.padEnd(7)} ${f.text.replace(/\s*\n\s*/g, ' ⏎ ')}`;
  });
}
