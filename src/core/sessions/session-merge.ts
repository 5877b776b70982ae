import type { ContextState } from '../context.js';
import type { SessionData, StoredTurn } from './store.js';

/**
 * Two medchat processes can write one session at once (`medchat -c` twice, or the chat screen
 * and a one-shot). Every save takes the session's lock, reads the file as it is now, and merges
 * it with what this process has: each process writes only its own turns, and takes every other
 * turn from the file, so no question or answer is lost whoever saves last.
 */
export interface MergeScope {
  /** Turns this process asked: its copy wins. */
  owned: ReadonlySet<string>;
  /** Every turn this process has held: one it no longer has was removed here (`/retry`), not added elsewhere. */
  seen: ReadonlySet<string>;
}

/**
 * `mine` with the other turns of `disk` woven in by start time (mine keep their order), and
 * mine's context (the summary and where it starts) pointing at the same turns in the result.
 */
export function mergeSessions(mine: SessionData, disk: SessionData, scope: MergeScope): SessionData {
  const onDisk = new Map(disk.turns.map((t) => [t.id, t]));
  const mineIds = new Set(mine.turns.map((t) => t.id));
  const ours = mine.turns.map((t) => (scope.owned.has(t.id) ? t : (onDisk.get(t.id) ?? t)));
  const theirs = disk.turns.filter((t) => !mineIds.has(t.id) && !scope.seen.has(t.id));
  if (theirs.length === 0 && ours.every((t, i) => t === mine.turns[i])) return mine;

  const turns: StoredTurn[] = [];
  const at: number[] = []; // index in `turns` of ours[i]
  let j = 0;
  for (const t of ours) {
    while (j < theirs.length && theirs[j]!.startedAt < t.startedAt) turns.push(theirs[j++]!);
    at.push(turns.length);
    turns.push(t);
  }
  while (j < theirs.length) turns.push(theirs[j++]!);

  // A fold boundary k lies between our turns k-1 and k: it now lies just after our turn k-1.
  const moved = (k: number): number => (k <= 0 || at.length === 0 ? 0 : at[Math.min(k, at.length) - 1]! + 1);
  return { ...mine, turns, context: remapContext(mine.context, moved) };
}

function remapContext(ctx: ContextState, moved: (k: number) => number): ContextState {
  return {
    ...ctx,
    startTurn: moved(ctx.startTurn),
    ...(ctx.summary ? { summary: { ...ctx.summary, throughTurn: moved(ctx.summary.throughTurn) } } : {}),
    compactions: ctx.compactions.map((c) => ({ ...c, throughTurn: moved(c.throughTurn) })),
  };
}
