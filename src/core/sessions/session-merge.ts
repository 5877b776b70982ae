/**
 * Two medchat processes can write one session at once (`medchat -c` twice, or the chat screen
 * and a one-shot). Every save takes the session's lock, reads the file as it is now, and merges
 * it with what this process has: each process writes only its own turns, and takes every other
 * turn from the file, so no question or answer is lost whoever saves last.
 */
import type { ContextState } from '../context/context.js';
import type { SessionData, StoredTurn } from './session-data.js';

export interface MergeScope {
  /** Turns this process asked: its copy wins. */
  owned: ReadonlySet<string>;
  /**
   * Every turn this process has held: one it no longer has was removed here (`/retry`), not
   * added elsewhere. (Likewise a turn of another process that is gone from the file was removed
   * by its owner, and is not written back.)
   */
  seen: ReadonlySet<string>;
}

/**
 * `mine` with the other turns in the file (`diskTurns`) woven in by start time (mine keep their
 * order), and mine's context (the summary and where it starts) pointing at the same turns.
 */
export function mergeSessions(mine: SessionData, diskTurns: readonly StoredTurn[], scope: MergeScope): SessionData {
  const onDisk = new Map(diskTurns.map((t) => [t.id, t]));
  const mineIds = new Set(mine.turns.map((t) => t.id));
  // Ours, as they go in the file; undefined: another process's turn that is gone from the file (its `/retry`).
  const ours = mine.turns.map((t) => (scope.owned.has(t.id) ? t : onDisk.has(t.id) ? newer(t, onDisk.get(t.id)!) : undefined));
  const theirs = diskTurns.filter((t) => !mineIds.has(t.id) && !scope.seen.has(t.id));
  if (theirs.length === 0 && ours.every((t, i) => t === mine.turns[i])) return mine;

  const turns: StoredTurn[] = [];
  const end: number[] = []; // turns.length once our turn i is placed (or dropped)
  let j = 0;
  mine.turns.forEach((t, i) => {
    while (j < theirs.length && theirs[j]!.startedAt < t.startedAt) turns.push(theirs[j++]!);
    const kept = ours[i];
    if (kept) turns.push(kept);
    end.push(turns.length);
  });
  while (j < theirs.length) turns.push(theirs[j++]!);

  // A fold boundary k lies between our turns k-1 and k: it now lies just after our turn k-1.
  const moved = (k: number): number => (k <= 0 || end.length === 0 ? 0 : end[Math.min(k, end.length) - 1]!);
  return { ...mine, turns, context: remapContext(mine.context, moved) };
}

/**
 * A turn another process asked, as this process holds it and as the file has it: the file's
 * copy when its owner got further (more text, or finished), else ours. A turn left `streaming`
 * by a process that was killed was loaded here as `interrupted`, and stays so.
 */
function newer(mine: StoredTurn, disk: StoredTurn | undefined): StoredTurn {
  if (!disk) return mine;
  const progress = (t: StoredTurn) => t.answer.length + t.reasoning.length;
  if (progress(disk) !== progress(mine)) return progress(disk) > progress(mine) ? disk : mine;
  return disk.status !== 'pending' && disk.status !== 'streaming' ? disk : mine;
}

function remapContext(ctx: ContextState, moved: (k: number) => number): ContextState {
  return {
    ...ctx,
    startTurn: moved(ctx.startTurn),
    ...(ctx.summary ? { summary: { ...ctx.summary, throughTurn: moved(ctx.summary.throughTurn) } } : {}),
    compactions: ctx.compactions.map((c) => ({ ...c, throughTurn: moved(c.throughTurn) })),
  };
}

/**
 * A parsed session file (already known to be one) as another process left it, statuses
 * untouched (a turn still streaming there is theirs to finish); undefined if it cannot be merged.
 */
export function readForMerge(raw: unknown, id: string): StoredTurn[] | undefined {
  const d = raw as Partial<SessionData>;
  if (!d || d.id !== id || !Array.isArray(d.turns)) return undefined;
  if (!d.turns.every((t) => t && typeof t === 'object' && typeof t.id === 'string' && typeof t.user === 'string')) return undefined;
  for (const t of d.turns) {
    if (typeof t.startedAt !== 'number') t.startedAt = 0;
    if (typeof t.answer !== 'string') t.answer = '';
    if (typeof t.reasoning !== 'string') t.reasoning = '';
  }
  return d.turns;
}
