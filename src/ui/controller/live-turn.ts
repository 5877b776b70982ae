/**
 * The streaming turn as a pure reducer: feed it the session's events (with the time each
 * arrived), get the live state and the items to print. No timers, no I/O, no mutation: the same
 * events at the same times give the same screen.
 *
 * Finished paragraphs (up to the last blank line outside a code fence) go into the printed
 * transcript as soon as they are finished, so the live region holds only the paragraph being
 * written. The reasoning is folded into one printed item when the answer begins.
 */
import type { Usage } from '../../core/chat/chat-events.js';
import type { TurnStatus } from '../../core/context/conversation.js';
import { closeCutMarkup } from '../../core/text/markdown/cut-off.js';
import { sanitizeForTerminal } from '../../core/text/sanitize.js';
import { formatDuration, formatSeconds, formatTokens, tokensWord } from '../../core/text/format.js';
import type { SessionEvent } from '../../core/sessions/chat-session.js';
import { lastSafeSplit } from '../text/split.js';
import type { Change, LastStats, LiveTurn, NewItem } from './screen-state.js';
import { uiScreenText } from '../../core/i18n/messages/ui-screen.js';

interface LiveStep {
  live: LiveTurn;
  /** Items to append to the printed transcript, in order. */
  print: NewItem[];
}

export function startLive(turnId: string, now: number): LiveTurn {
  return { turnId, phase: 'waiting', startedAt: now, lastDataAt: now, reasoning: '', reasoningTokens: 0, answerTokens: 0, answerTail: '', answerCuts: 0 };
}

export function reduceLive(live: LiveTurn, e: SessionEvent, now: number): LiveStep {
  switch (e.type) {
    case 'compacted':
      return { live, print: [{ kind: 'notice', text: e.text, tone: 'info' }] };
    case 'reasoning': {
      const next: LiveTurn = {
        ...live,
        retry: undefined,
        lastDataAt: now,
        firstTokenAt: live.firstTokenAt ?? now,
        reasoning: live.reasoning + sanitizeForTerminal(e.text),
        reasoningTokens: live.reasoningTokens + 1,
      };
      if (live.phase === 'waiting') {
        next.phase = 'reasoning';
        next.reasoningStartedAt = now;
      }
      return { live: next, print: [] };
    }
    case 'content': {
      const print: NewItem[] = [];
      let next: LiveTurn = { ...live, retry: undefined, lastDataAt: now, firstTokenAt: live.firstTokenAt ?? now, answerLastAt: now, answerTokens: live.answerTokens + 1 };
      if (live.phase !== 'answer') {
        next = foldReasoning(next, now, print);
        next.phase = 'answer';
        next.answerStartedAt = now;
      }
      next.answerTail += sanitizeForTerminal(e.text);
      if (e.text.includes('\n')) next = moveFinishedParagraphs(next, print);
      return { live: next, print };
    }
    case 'retry':
      return { live: { ...live, lastDataAt: now, retry: uiScreenText.retrying(e.reason, formatDuration(e.delayMs), e.attempt + 1) }, print: [] };
    case 'usage':
      return { live: { ...live, lastDataAt: now, usage: e.usage }, print: [] };
    default:
      return { live: { ...live, lastDataAt: now }, print: [] };
  }
}

/**
 * What a step changed, for the screen: `text` when only the streaming text grew, `paragraphs`
 * when finished answer paragraphs were printed too, `any` otherwise.
 */
export function changeOf(before: LiveTurn, e: SessionEvent, step: LiveStep): Change {
  const more = (e.type === 'content' || e.type === 'reasoning') && step.live.phase === before.phase && step.live.retry === before.retry;
  if (!more) return 'any';
  if (step.print.length === 0) return 'text';
  return step.print.every((i) => i.kind === 'answer') ? 'paragraphs' : 'any';
}

/** How a turn ended, as the question pipeline decided it (the turn's status) and why. */
export interface TurnOutcome {
  status: Extract<TurnStatus, 'complete' | 'interrupted' | 'incomplete' | 'failed'>;
  error?: string;
}

interface TurnTimes {
  durationMs: number;
  firstTokenMs?: number;
  reasoningMs?: number;
  tokensPerSecond?: number;
  usage?: Usage;
}

export interface FinishedTurn {
  /** The folded reasoning (if still open), the rest of the answer and the status line. */
  print: NewItem[];
  times: TurnTimes;
  /** The footer's figures: only for a complete answer (never old figures beside "interrupted"). */
  last?: LastStats;
}

/** The turn ended (`outcome`) at `now`: what to print last, and its figures. */
export function finishLive(live: LiveTurn, outcome: TurnOutcome, now: number): FinishedTurn {
  const print: NewItem[] = [];
  const done = foldReasoning(live, now, print);
  // An answer cut short ends mid-paragraph, maybe inside `**`: shown like a finished paragraph (the turn keeps the text as it came).
  const tail = outcome.status === 'complete' ? done.answerTail.trimEnd() : closeCutMarkup(done.answerTail);
  if (tail) print.push({ kind: 'answer', text: tail });
  const times = timesOf(done, now);
  print.push({ kind: 'status', status: outcome.status, ...(outcome.error ? { error: sanitizeForTerminal(outcome.error) } : {}), stats: statsText(times) });
  const last = outcome.status === 'complete' ? { firstTokenMs: times.firstTokenMs, tokensPerSecond: times.tokensPerSecond, usage: times.usage } : undefined;
  return { print, times, last };
}

function timesOf(live: LiveTurn, now: number): TurnTimes {
  const tps = answerSpeed(live);
  return {
    durationMs: now - live.startedAt,
    ...(live.firstTokenAt !== undefined ? { firstTokenMs: live.firstTokenAt - live.startedAt } : {}),
    ...(live.reasoningMs !== undefined ? { reasoningMs: live.reasoningMs } : {}),
    ...(tps !== undefined ? { tokensPerSecond: tps } : {}),
    ...(live.usage ? { usage: live.usage } : {}),
  };
}

/**
 * The answer's tokens per second while the answer was being written: from its first token to its
 * last, the reasoning before it left out. Its tokens are the reported completion tokens less the
 * reasoning's (both include it), else the pieces streamed.
 */
function answerSpeed(live: LiveTurn): number | undefined {
  if (live.answerStartedAt === undefined || live.answerLastAt === undefined) return undefined;
  const span = live.answerLastAt - live.answerStartedAt;
  const reported = live.usage ? live.usage.completion_tokens - live.reasoningTokens : 0;
  const tokens = Math.max(live.answerTokens, reported);
  // The clock starts with the first token: the rest arrived in `span`.
  return span > 0 && tokens > 1 ? (tokens - 1) / (span / 1000) : undefined;
}

/** The dim line under an answer: `4.2s · first token 0.3s · 52 tok/s · 1.2k in · 800 out`. */
export function statsText(t: Partial<TurnTimes>): string {
  const parts: string[] = [];
  if (t.durationMs !== undefined) parts.push(formatDuration(t.durationMs));
  if (t.firstTokenMs !== undefined) parts.push(uiScreenText.firstToken(formatDuration(t.firstTokenMs)));
  if (t.tokensPerSecond !== undefined && Number.isFinite(t.tokensPerSecond)) parts.push(`${Math.round(t.tokensPerSecond)} tok/s`);
  if (t.usage) parts.push(uiScreenText.inOut(formatTokens(t.usage.prompt_tokens), formatTokens(t.usage.completion_tokens)));
  return parts.join(' · ');
}

function foldReasoning(live: LiveTurn, now: number, print: NewItem[]): LiveTurn {
  const ms = live.reasoningMs ?? (live.phase === 'reasoning' ? now - (live.reasoningStartedAt ?? live.startedAt) : undefined);
  if (!live.reasoning.trim()) return ms === undefined ? live : { ...live, reasoningMs: ms };
  const folded = ms ?? now - (live.reasoningStartedAt ?? live.startedAt);
  print.push({ kind: 'reasoning', text: live.reasoning.trim(), ms: folded, tokens: live.reasoningTokens });
  return { ...live, reasoning: '', reasoningMs: folded };
}

function moveFinishedParagraphs(live: LiveTurn, print: NewItem[]): LiveTurn {
  const cut = lastSafeSplit(live.answerTail);
  if (cut <= 0) return live;
  const done = live.answerTail.slice(0, cut).trimEnd();
  if (done) print.push({ kind: 'answer', text: done });
  return { ...live, answerTail: live.answerTail.slice(cut), answerCuts: live.answerCuts + 1 };
}

/** After this long without data from the service, the footer says so. */
export const STALL_MS = 5000;

/**
 * The footer's figures while an answer streams: time since the question was sent and tokens
 * streamed so far (reasoning included), and `no data for 12s` once the service has gone quiet
 * (not while waiting for the first token, which the waiting line counts, nor during a retry).
 * `seconds`: the turn clock's (see turn-clock.ts), never worked out here, so the footer shows
 * the second the waiting or thinking line shows.
 */
export function liveFigures(live: LiveTurn, now: number, seconds: number): { text: string; stall?: string } {
  const tokens = live.reasoningTokens + live.answerTokens;
  const text = `${formatSeconds(seconds)} · ${tokensWord(tokens)}`;
  const quiet = now - live.lastDataAt;
  if (quiet < STALL_MS || live.phase === 'waiting' || live.retry) return { text };
  return { text, stall: uiScreenText.noData(formatSeconds(quiet / 1000)) };
}
