import { usageError } from '../../core/errors.js';
import { jsonForTerminal, sanitizeForTerminal, sanitizeLine } from '../../core/text/sanitize.js';
import { formatForFile, renderExport, sessionToMarkdown, writeExport } from '../../core/sessions/export.js';
import { SessionStore } from '../../core/sessions/store.js';
import { isTty } from '../../core/io/terminal.js';
import { counted, formatListTime } from '../../core/text/format.js';
import { ConfigStore } from '../../core/config/config-store.js';
import { resolveValue } from '../../core/config/settings.js';
import { activePolicy } from '../../core/config/policy.js';
import { hitLines, searchSessions, searchWords } from '../../core/sessions/search.js';
import { cutToColumns } from '../../core/text/width.js';
import { applyRetention, parseAge, purgeSessions } from '../../core/sessions/retention.js';
import { cliSessionsText } from '../../core/i18n/messages/cli-sessions.js';

/**
 * Saved text goes to stdout as it was saved when stdout is a pipe or a file (a transcript stays
 * exact), and through the terminal sanitizer when it is a terminal: escape sequences, controls and
 * bidi overrides from a saved answer are shown, never obeyed.
 */
const print = (text: string) => process.stdout.write(isTty(process.stdout) ? sanitizeForTerminal(text) : text);

export async function sessionsList(o: { json?: boolean }): Promise<number> {
  const store = new SessionStore();
  store.prepare();
  const list = store.list();
  if (o.json) {
    print(
      jsonForTerminal(
        list.map((s) => ({ id: s.id, title: s.title, created_at: s.createdAt, updated_at: s.updatedAt, turns: s.turns, file: s.file })),
        2,
      ) + '\n',
    );
    return 0;
  }
  if (list.length === 0) {
    process.stderr.write(`${cliSessionsText.noneSaved(sanitizeLine(store.dir))}\n`);
    return 0;
  }
  for (const s of list) {
    const turns = cliSessionsText.turns(s.turns);
    print(`${s.id}  ${formatListTime(s.updatedAt).padEnd(16)}  ${turns.padStart(9)}  ${s.title}\n`);
  }
  return 0;
}

export async function sessionsShow(ref: string, o: { reasoning?: boolean }): Promise<number> {
  const store = new SessionStore();
  store.prepare();
  const data = store.load(store.resolve(ref));
  print(sessionToMarkdown(data, { reasoning: Boolean(o.reasoning) }));
  return 0;
}

export async function sessionsExport(ref: string, o: { format?: string; output?: string; reasoning?: boolean }): Promise<number> {
  const asked = (o.format ?? (o.output ? formatForFile(o.output) : 'md')).toLowerCase();
  if (asked !== 'md' && asked !== 'markdown' && asked !== 'json') throw usageError(cliSessionsText.badFormat(String(o.format)));
  const format = asked === 'json' ? 'json' : 'md';
  const store = new SessionStore();
  store.prepare();
  const data = store.load(store.resolve(ref));
  const text = renderExport(data, format, { reasoning: Boolean(o.reasoning) });
  if (o.output && o.output !== '-') {
    writeExport(o.output, text);
    process.stderr.write(`${cliSessionsText.exported(data.id, o.output)}\n`);
    return 0;
  }
  print(text);
  return 0;
}

export async function sessionsRm(ids: string[], o: { all?: boolean }): Promise<number> {
  const store = new SessionStore();
  if (o.all) {
    if (ids.length) throw usageError(cliSessionsText.idsOrAll);
    const n = store.removeAll();
    process.stderr.write(`${cliSessionsText.deleted(n)}\n`);
    return 0;
  }
  if (ids.length === 0) throw usageError(cliSessionsText.nameSessions);
  const resolved = ids.map((r) => store.resolve(r));
  for (const id of resolved) store.remove(id);
  process.stderr.write(`${cliSessionsText.deleted(resolved.length)}\n`);
  return 0;
}

export async function sessionsPath(): Promise<number> {
  print(new SessionStore().dir + '\n');
  return 0;
}

/** An age or a date given to `option` (--since, --older-than), as a cut-off; a usage error otherwise. */
function cutoffFrom(option: string, text: string): { cutoffMs: number; label: string } {
  const parsed = parseAge(text);
  if (!parsed) throw usageError(cliSessionsText.badAge(option, JSON.stringify(text.slice(0, 40))));
  return parsed;
}

const conversations = (n: number) => cliSessionsText.conversations(n);

/** Columns for text on stdout: the terminal's width, else 120 (a file or a pipe still gets bounded lines). */
const outputWidth = () => (isTty(process.stdout) && process.stdout.columns ? process.stdout.columns : 120);

export async function sessionsSearch(words: string[], o: { since?: string; role?: string; json?: boolean; reasoning?: boolean; limit?: string }): Promise<number> {
  const terms = searchWords(words);
  if (terms.length === 0) throw usageError(cliSessionsText.searchNeedsWords);
  const since = o.since !== undefined ? cutoffFrom('--since', o.since).cutoffMs : undefined;
  let limit = 20;
  if (o.limit !== undefined) {
    if (!/^\d{1,6}$/.test(o.limit.trim())) throw usageError(cliSessionsText.badLimit(JSON.stringify(o.limit.slice(0, 40))));
    limit = Number(o.limit.trim());
  }
  const store = new SessionStore();
  const width = outputWidth();
  const result = searchSessions(store, { words, since, role: o.role, reasoning: Boolean(o.reasoning), limit, excerptWidth: o.json ? 200 : width });
  if (o.json) {
    const out = result.hits.map((h) => ({
      id: h.id,
      title: h.title,
      last_activity: h.lastActivity,
      ...(h.role ? { role: h.role } : {}),
      turns: h.turns,
      matching_lines: h.matchingLines,
      lines: h.lines.map((l) => ({ turn: l.turn, part: l.part, text: l.excerpt })),
    }));
    print(jsonForTerminal(out, 2) + '\n');
  } else {
    for (const hit of result.hits) print(hitLines(hit, { width }).join('\n') + '\n');
  }
  const shown = JSON.stringify(terms.join(' ').slice(0, 60));
  if (result.hits.length === 0) process.stderr.write(`${cliSessionsText.noMatch(sanitizeLine(shown), o.since ? sanitizeLine(o.since) : undefined, o.role ? sanitizeLine(o.role) : undefined)}\n`);
  else if (result.more) process.stderr.write(`${cliSessionsText.showingRecent(result.hits.length)}\n`);
  if (result.unreadable) process.stderr.write(`${cliSessionsText.unreadable(result.unreadable)}\n`);
  return 0;
}

export async function sessionsPurge(o: { olderThan?: string; dryRun?: boolean }): Promise<number> {
  const configured = resolveValue('retention-days', { store: new ConfigStore(), env: process.env });
  const cutoff =
    o.olderThan !== undefined
      ? cutoffFrom('--older-than', o.olderThan)
      : typeof configured === 'number'
        ? parseAge(`${configured}d`)!
        : undefined;
  if (!cutoff) throw usageError(cliSessionsText.purgeWhich);
  const store = new SessionStore();
  const result = purgeSessions(store, cutoff.cutoffMs, { dryRun: Boolean(o.dryRun) });
  const width = outputWidth();
  for (const s of result.deleted) print(cutToColumns(`${s.id}  ${formatListTime(s.lastMs)}  ${sanitizeLine(s.title)}`, width) + '\n');
  const kept = result.locked.length ? cliSessionsText.keptOpen(result.locked.length, result.locked.map((s) => s.id).join(', ')) : '';
  process.stderr.write(`${cliSessionsText.purged(Boolean(o.dryRun), result.deleted.length, cutoff.label, kept)}\n`);
  return 0;
}

/**
 * `retention-days`: delete the conversations older than that, with one line on stderr saying
 * so (never silently), at the start of every command that uses sessions. Deleting never stops
 * the command: a failure is one warning line.
 */
export function sweepExpiredSessions(config: ConfigStore = new ConfigStore()): void {
  const days = resolveValue('retention-days', { store: config, env: process.env });
  if (typeof days !== 'number') return;
  const byPolicy = activePolicy().retentionDays !== undefined && days === activePolicy().retentionDays;
  const why = byPolicy ? cliSessionsText.retentionByPolicy(activePolicy().file) : 'retention-days';
  let result;
  try {
    result = applyRetention(new SessionStore(), days);
  } catch (err) {
    process.stderr.write(`${cliSessionsText.sweepFailed(sanitizeLine(err instanceof Error ? err.message : String(err)), days, why)}\n`);
    return;
  }
  if (result.deleted.length === 0 && result.locked.length === 0) return;
  const kept = result.locked.length ? cliSessionsText.sweepKept(result.locked.length) : '';
  process.stderr.write(`${cliSessionsText.swept(result.deleted.length, days, why, kept)}\n`);
}
