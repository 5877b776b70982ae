import { privacyText } from '../i18n/messages/privacy.js';

/**
 * What the privacy guard looks for: the textual identifiers of HIPAA's Safe Harbor list, in
 * families. A finding is a span of the outgoing text with its kind; placeholders are named after
 * the kind (`[NAME-1]`, `[DATE-2]`, `[MRN-1]`).
 */
export const KINDS = ['NAME', 'DATE', 'AGE', 'PHONE', 'EMAIL', 'ID', 'MRN', 'ADDRESS', 'URL', 'IP', 'DEVICE'] as const;
export type Kind = (typeof KINDS)[number];

/** The direct identifiers: the ones the recall goal (>= 0.97) is measured on. */
export const DIRECT_KINDS: ReadonlySet<Kind> = new Set<Kind>(['NAME', 'MRN', 'PHONE', 'EMAIL', 'ID', 'ADDRESS', 'DATE']);

export interface Finding {
  kind: Kind;
  /** UTF-16 offsets into the scanned text: text.slice(start, end) === this.text. */
  start: number;
  end: number;
  text: string;
  /** Which rule found it (for `privacy check` and for tuning), e.g. "labelled", "title", "checksum". */
  rule?: string;
}

/** Overlap resolution: a higher rank keeps its characters; a lower one keeps what is left of it. */
export const KIND_RANK: Record<Kind, number> = {
  EMAIL: 11,
  URL: 10,
  IP: 9,
  ID: 8,
  MRN: 7,
  DEVICE: 6,
  PHONE: 5,
  DATE: 4,
  NAME: 3,
  AGE: 2,
  ADDRESS: 1,
};

export function countByKind(findings: readonly Finding[]): Partial<Record<Kind, number>> {
  const out: Partial<Record<Kind, number>> = {};
  for (const f of findings) out[f.kind] = (out[f.kind] ?? 0) + 1;
  return out;
}

/** "2 names, 1 date, 1 record/account number" in the order of KINDS (the kinds' words: messages/privacy.ts). */
export function describeCounts(counts: Partial<Record<Kind, number>>): string {
  const parts: string[] = [];
  for (const k of KINDS) {
    const n = counts[k];
    if (n) parts.push(privacyText[k](n));
  }
  return parts.join(privacyText.listSeparator);
}
