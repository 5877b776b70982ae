/**
 * The guard for one conversation: what goes out is checked (warn), or has its identifiers
 * replaced by placeholders and, with date shifting, its dates moved (redact); answers get the
 * values back. It never sends anything itself and keeps the mapping in memory only.
 *
 *   const guard = new PrivacyGuard({ shiftDates });            // once per conversation
 *   const out = guardOutgoing(text, 'redact', guard);         // before each request
 *   send(every message through guard.seal) … guard.streamRestorer(mark).push(chunk)
 *
 * What it replaced once it replaces wherever it appears again, in any later text of the
 * conversation: the whole value, and each word of a name ("Margaret" after "Margaret Ellison").
 */
import { DateShifter, preferredOrder } from './date-shift.js';
import { findDates } from './date-parse.js';
import { countByKind, type Finding, type Kind } from './kinds.js';
import { PlaceholderMap } from './placeholders.js';
import { StreamRestorer, restoreText, type Mark, type PutBack } from './restore.js';
import { findNameWords, scan } from './scanner.js';

const PRIVACY_MODES = ['warn', 'redact', 'off'] as const;
export type PrivacyMode = (typeof PRIVACY_MODES)[number];

export interface Outgoing {
  mode: PrivacyMode;
  /** What to send: the text as typed (warn, off) or with placeholders and shifted dates (redact). */
  text: string;
  /** What was found in the text as typed. Empty in `off` mode (nothing is looked at). */
  findings: Finding[];
  counts: Partial<Record<Kind, number>>;
  /** redact: each finding and what replaced it. */
  replaced: Array<{ finding: Finding; with: string }>;
}

interface GuardOptions {
  shiftDates?: boolean;
  /** A fixed offset (a resumed conversation keeps its own); else a random one. */
  shiftDays?: number;
  random?: () => number;
}

/** Values longer than this are looked for again as written (see remembered). */
const MAX_VALUE = 2000;

export class PrivacyGuard {
  readonly placeholders = new PlaceholderMap();
  readonly shifter: DateShifter | undefined;
  /** Day-first or month-first, as the first text with dates showed; kept for the conversation. */
  private order: 'dm' | 'md' | undefined;

  constructor(opts: GuardOptions = {}) {
    this.shifter = opts.shiftDates ? (opts.shiftDays !== undefined ? new DateShifter(opts.shiftDays) : DateShifter.random(opts.random)) : undefined;
  }

  /** What the text holds (as `medchat privacy check` shows it). */
  inspect(text: string): Finding[] {
    return scan(text);
  }

  prepare(text: string, mode: PrivacyMode): Outgoing {
    if (mode === 'off') return { mode, text, findings: [], counts: {}, replaced: [] };
    if (mode === 'redact') {
      // Placeholder-looking text the user typed is never read as ours: one that reads as a
      // placeholder already made is escaped, and the numbers of the rest are skipped.
      text = this.placeholders.escapeForgeries(text);
      this.placeholders.reserveFrom(text);
    }
    const findings = this.remembered(text, scan(text));
    const counts = countByKind(findings);
    if (mode === 'warn' || findings.length === 0) return { mode, text, findings, counts, replaced: [] };
    return { mode, findings, counts, ...this.replace(text, findings) };
  }

  /**
   * `text` with what this conversation already replaced (its values, the words of its names, its
   * shifted dates) replaced again wherever it appears; nothing new is looked for. Every message of
   * a redacted request passes here last: the user's own system prompt, earlier turns sent before a
   * value was first found, a summary's source.
   */
  seal(text: string): string {
    if (!text) return text;
    // Our own "[NAME-1]" (text medchat redacted, resent) stays; any other form of it is the user's.
    text = this.placeholders.escapeForgeries(text, true);
    this.placeholders.reserveFrom(text);
    if (!this.active) return text;
    const findings = this.remembered(text, []);
    return findings.length ? this.replace(text, findings).text : text;
  }

  private replace(text: string, findings: readonly Finding[]): Pick<Outgoing, 'text' | 'replaced'> {
    this.placeholders.reserveFrom(text);
    if (this.shifter && !this.order) {
      const dates = findDates(text);
      if (dates.some((d) => d.readings.length === 1 && d.readings[0]!.order)) this.order = preferredOrder(dates);
    }
    let out = '';
    let last = 0;
    const replaced: Outgoing['replaced'] = [];
    for (const f of findings) {
      let by: string;
      if (f.kind === 'DATE' && this.shifter) {
        by = this.shifter.shiftDate(f.text, { order: this.order ?? 'dm' });
        if (by === f.text) by = this.placeholders.placeholderFor(f.kind, f.text);
        else {
          this.shifted = true;
          this.shiftedDates.add(f.text);
        }
      } else {
        by = this.placeholders.placeholderFor(f.kind, f.text);
      }
      out += text.slice(last, f.start) + by;
      last = f.end;
      replaced.push({ finding: f, with: by });
    }
    return { text: out + text.slice(last), replaced };
  }

  /**
   * `findings` plus every value this conversation already replaced, wherever it appears again (a
   * name found by its label in one question is a name in the next, where nothing labels it), and
   * each word of those names on its own ("Margaret says…").
   */
  private remembered(text: string, findings: Finding[]): Finding[] {
    if (!this.placeholders.size && !this.shiftedDates.size) return findings;
    const extra: Finding[] = [];
    // Which characters a finding already holds (a walk over every finding for each match was quadratic).
    const held = new Uint8Array(text.length);
    const hold = (f: Finding) => held.fill(1, f.start, f.end);
    for (const f of findings) hold(f);
    const free = (start: number, end: number) => held.subarray(start, end).indexOf(1) < 0;
    const names: string[] = [];
    const values: Array<[Kind, string]> = [...this.shiftedDates].map((d): [Kind, string] => ['DATE', d]);
    for (const [placeholder, value] of this.placeholders.entries()) {
      const kind = /^\[([A-Z]+)-/.exec(placeholder)?.[1] as Kind | undefined;
      if (!kind) continue;
      if (kind === 'NAME') names.push(value);
      values.push([kind, value]);
    }
    for (const [kind, value] of values) {
      // (A value longer than MAX_VALUE, a whole line of ten thousand characters read as an address, would make a pattern too large to compile: it is found as written.)
      if (value.trim().length < 3) continue;
      if (value.length > MAX_VALUE) {
        for (let at = text.indexOf(value); at >= 0; at = text.indexOf(value, at + value.length)) {
          if (free(at, at + value.length)) {
            extra.push({ kind, start: at, end: at + value.length, text: value, rule: 'seen earlier' }); // i18n-exempt: a rule's name, for tuning
            hold(extra[extra.length - 1]!);
          }
        }
        continue;
      }
      const pattern = value.trim().replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/\s+/g, '\\s+');
      for (const m of text.matchAll(new RegExp(`(?<![A-Za-z0-9])${pattern}(?![A-Za-z0-9])`, 'gi'))) {
        const start = m.index!;
        const end = start + m[0].length;
        if (free(start, end)) {
          extra.push({ kind, start, end, text: m[0], rule: 'seen earlier' }); // i18n-exempt: a rule's name, for tuning
          hold(extra[extra.length - 1]!);
        }
      }
    }
    for (const w of findNameWords(text, names, 'seen earlier')) { // i18n-exempt: a rule's name, for tuning
      if (free(w.start, w.end)) {
        extra.push(w);
        hold(w);
      }
    }
    return extra.length ? [...findings, ...extra].sort((a, b) => a.start - b.start) : findings;
  }

  /** An answer with the values put back (see restore.ts). */
  restore(answer: string, mark?: Mark): { text: string; putBack: PutBack[] } {
    return restoreText(answer, this.placeholders, mark, this.shiftContext());
  }

  streamRestorer(mark?: Mark): StreamRestorer {
    return new StreamRestorer(this.placeholders, mark, this.shiftContext());
  }

  /** Whether answers need anything put back: a placeholder was made or a date shifted in this conversation. */
  get active(): boolean {
    return this.placeholders.size > 0 || this.shifted;
  }

  /** A date was shifted in something sent: from then on dates in answers are shifted back. */
  private shifted = false;
  /** The dates shifted so far, as written: shifted again wherever they appear. */
  private readonly shiftedDates = new Set<string>();

  private shiftContext(): { shifter: DateShifter; order: 'dm' | 'md' } | undefined {
    return this.shifter && this.shifted ? { shifter: this.shifter, order: this.order ?? 'dm' } : undefined;
  }
}

/** Check (warn), replace (redact) or pass (off) one outgoing text; see PrivacyGuard.prepare. */
export function guardOutgoing(text: string, mode: PrivacyMode, guard: PrivacyGuard): Outgoing {
  return guard.prepare(text, mode);
}
