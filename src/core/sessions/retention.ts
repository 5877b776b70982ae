/**
 * Retention: saved conversations older than a cut-off are deleted (config `retention-days`, at
 * the start of every command that uses sessions; `medchat sessions purge --older-than`).
 *
 * A conversation's age is its last activity: its file's last save (every turn saves it; what `-c`
 * takes for the latest). A file whose time was set back (restored from a backup) is kept while
 * the time recorded inside it (`updatedAt`) is still recent; a file that cannot be read is judged
 * by its time alone.
 *
 * A conversation is deleted only under its lock, and only if it is still old once the lock is
 * held: one another medchat is saving right then (its lock held) is kept and counted, never
 * deleted under it. Deletion goes through SessionStore.remove, which also does what deleting a
 * session means beyond its file.
 */
import fs from 'node:fs';
import type { SessionStore } from './store.js';
import { sessionsText } from '../i18n/messages/sessions.js';

export const DAY_MS = 86_400_000;

export interface Expired {
  id: string;
  /** Last activity, ms since the epoch. */
  lastMs: number;
  title: string;
}

export interface PurgeResult {
  deleted: Expired[];
  /** Held by another medchat at the time: kept. */
  locked: Expired[];
}

/** An age (`30d`, `12h`, `2w`) or a date (`2026-01-01`, local midnight; or a full ISO time) as a cut-off time; undefined when it is neither. */
export function parseAge(text: string, now = Date.now()): { cutoffMs: number; label: string } | undefined {
  const t = text.trim();
  const age = /^(\d{1,6})\s*(h|d|w)$/i.exec(t);
  if (age) {
    const n = Number(age[1]);
    const unit = age[2]!.toLowerCase() as 'h' | 'd' | 'w';
    const ms = { h: 3_600_000, d: DAY_MS, w: 7 * DAY_MS }[unit];
    return { cutoffMs: now - n * ms, label: sessionsText.olderThan(n, unit) };
  }
  const date = /^(\d{4})-(\d{2})-(\d{2})$/.exec(t);
  if (date) {
    const d = new Date(Number(date[1]), Number(date[2]) - 1, Number(date[3]));
    if (d.getFullYear() !== Number(date[1]) || d.getMonth() !== Number(date[2]) - 1 || d.getDate() !== Number(date[3])) return undefined;
    return { cutoffMs: d.getTime(), label: sessionsText.fromBefore(t) };
  }
  if (/^\d{4}-\d{2}-\d{2}T/.test(t)) {
    const ms = Date.parse(t);
    if (!Number.isNaN(ms)) return { cutoffMs: ms, label: sessionsText.fromBefore(t) };
  }
  return undefined;
}

/** The `updatedAt` and title recorded in a session, as far as it can be read. */
function recorded(store: SessionStore, id: string): { ms?: number; title: string } {
  try {
    const data = JSON.parse(store.readRaw(id).toString('utf8')) as { updatedAt?: unknown; title?: unknown } | null;
    const ms = typeof data?.updatedAt === 'string' ? Date.parse(data.updatedAt) : NaN;
    return { ...(Number.isNaN(ms) ? {} : { ms }), title: typeof data?.title === 'string' ? data.title : '' };
  } catch {
    return { title: '' };
  }
}

/** The sessions whose last activity is before `cutoffMs`, oldest first. */
export function expiredSessions(store: SessionStore, cutoffMs: number): Expired[] {
  const out: Expired[] = [];
  for (const { id, mtimeMs } of store.byActivity()) {
    if (mtimeMs >= cutoffMs) continue;
    const r = recorded(store, id);
    if (r.ms !== undefined && r.ms >= cutoffMs) continue;
    out.push({ id, lastMs: Math.max(mtimeMs, r.ms ?? 0), title: r.title });
  }
  return out.reverse();
}

/** Whether session `id` is still older than the cut-off (asked again under its lock: a save meanwhile makes it new). */
function stillExpired(store: SessionStore, id: string, cutoffMs: number): boolean {
  let mtimeMs: number;
  try {
    mtimeMs = fs.statSync(store.fileFor(id)).mtimeMs;
  } catch {
    return false; // gone meanwhile
  }
  if (mtimeMs >= cutoffMs) return false;
  const r = recorded(store, id);
  return r.ms === undefined || r.ms < cutoffMs;
}

/**
 * Delete the sessions older than `cutoffMs` (with `dryRun`, only say which). A session another
 * medchat holds locked is kept and counted in `locked`.
 */
export function purgeSessions(store: SessionStore, cutoffMs: number, o: { dryRun?: boolean } = {}): PurgeResult {
  const result: PurgeResult = { deleted: [], locked: [] };
  for (const s of expiredSessions(store, cutoffMs)) {
    if (o.dryRun) {
      result.deleted.push(s);
      continue;
    }
    const outcome = store.removeUnlessLocked(s.id, () => stillExpired(store, s.id, cutoffMs));
    if (outcome === 'removed') result.deleted.push(s);
    else if (outcome === 'locked') result.locked.push(s);
  }
  return result;
}

/** The sessions older than `days` days at `now`, deleted: what `retention-days` does at start. */
export function applyRetention(store: SessionStore, days: number, now = Date.now()): PurgeResult {
  return purgeSessions(store, now - days * DAY_MS);
}
