/**
 * What is sent, and how it fits in the context window. The conversation (every turn, word for
 * word) is kept whole; this decides which of it goes into each request:
 *
 *   system prompt [+ summary of turns before `startTurn`] + turns from `startTurn` + the question
 *
 * Before each request `prepare` checks the estimate against the threshold and, when it would
 * pass it, folds the oldest turns into a clinical summary (or drops them with `compress: trim`,
 * when summarising fails, or when the summary cannot be trusted: cut off, empty, or missing an
 * allergy, dosed medication or age — see `checked-summary.ts`). The system prompt and at least the last two exchanges are always
 * sent word for word. No React, no I/O besides the summarising request: the chat screen and
 * one-shot mode both drive it.
 */
import { createHash } from 'node:crypto';
import type { ClientSettings } from '../chat/chat-client.js';
import type { Usage } from '../chat/chat-events.js';
import type { WireMessage } from '../chat/chat-request.js';
import type { Conversation, Turn } from './conversation.js';
import { MedchatError, TooLongError, usageError, type Fit } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import { isContextLengthError } from '../chat/service-errors.js';
import type { Settings } from '../config/settings.js';
import { quoteLostFacts, summariseChecked, type Summariser } from './checked-summary.js';
import { mergeCompactions, type Compaction } from './compaction.js';
import { requestSummary, systemWithSummary } from './summarise.js';
import { formatTokens, formatWindow } from '../text/format.js';
import { PER_MESSAGE_OVERHEAD, REPLY_PRIMING, TokenCalibration, countMessage, countMessages, countText, loadTokenizer, tokenizerLoaded, upperBound } from './tokens.js';
import { contextText } from '../i18n/messages/context.js';

export { describeCompaction, type Compaction } from './compaction.js';

export type ContextSettings = ClientSettings & Pick<Settings, 'contextWindow' | 'compressAt' | 'compress'>;

interface SummaryState {
  text: string;
  /** Turns before this index are covered by the summary (or were dropped). */
  throughTurn: number;
}

/** What a session file keeps so a resumed conversation sends the same thing and counts the same way. */
export interface ContextState {
  startTurn: number;
  summary?: SummaryState;
  ratio: number;
  samples: number;
  /** The last request the service counted: its first `count` messages hash to `hash` and were `promptTokens`. */
  anchor?: { count: number; hash: string; promptTokens: number; raw?: number };
  compactions: Compaction[];
}

export interface Prepared {
  messages: WireMessage[];
  /** Estimated prompt tokens of `messages`, in the service's own count. */
  estimate: number;
  /** Set when earlier turns were just folded into a summary (the notice to show). */
  summarised?: { count: number; beforeTokens: number; afterTokens: number };
  /** Set when earlier turns were folded or dropped: what happened, for the transcript. */
  compaction?: Compaction;
}

export interface TokenBreakdown {
  window: number;
  maxTokens: number;
  /** Prompt tokens allowed: window − max_tokens. */
  budget: number;
  /** Prompt tokens at which old turns are summarised. */
  threshold: number;
  system: number;
  summary: number;
  /** Turns sent word for word, and their tokens. */
  keptTurns: number;
  kept: number;
  /** Turns folded into the summary or dropped. */
  foldedTurns: number;
  next: number;
  /** Estimated prompt tokens of the next request. */
  prompt: number;
  /** Prompt tokens still free before the window is full (budget − prompt). */
  room: number;
  /** (prompt + max_tokens) / window, 0..1+: the footer meter. */
  fraction: number;
  /** true once the service reported usage this estimate is calibrated with. */
  calibrated: boolean;
}

export function emptyContextState(): ContextState {
  return { startTurn: 0, ratio: 1, samples: 0, compactions: [] };
}

function hashMessages(messages: readonly WireMessage[], count = messages.length): string {
  const h = createHash('sha256');
  for (let i = 0; i < count; i++) {
    const m = messages[i]!;
    h.update(m.role);
    h.update('\u0000');
    h.update(m.content);
    h.update('\u0001');
  }
  return h.digest('base64url');
}

const interrupted = () => new MedchatError('interrupted', ExitCode.interrupted, 'interrupted');

export class ContextManager {
  readonly state: ContextState;
  private readonly calibration: TokenCalibration;

  constructor(
    public settings: ContextSettings,
    state?: ContextState,
    /** Replace the summarising request (tests of the fallback paths use the real one through the double). */
    private readonly summariser: Summariser = requestSummary,
  ) {
    this.state = state ?? emptyContextState();
    this.state.compactions ??= [];
    this.calibration = new TokenCalibration(this.state.ratio, this.state.samples);
  }

  get budget(): number {
    return this.settings.contextWindow - this.settings.maxTokens;
  }

  get threshold(): number {
    return Math.floor(Math.max(0, this.budget) * this.settings.compressAt);
  }

  get ratio(): number {
    return this.calibration.ratio;
  }

  /**
   * The messages for a request that asks `upTo` (default: the last turn), as things stand now.
   * `null`: no question: every kept turn with its answer (turns with no answer are left out).
   */
  messagesFor(conv: Conversation, upTo: Turn | null = conv.lastTurn ?? null): WireMessage[] {
    const out: WireMessage[] = [];
    const system = systemWithSummary(conv.system, this.state.summary?.text);
    if (system) out.push({ role: 'system', content: system });
    const turns = conv.turns;
    for (let i = Math.min(this.state.startTurn, turns.length); i < turns.length; i++) {
      const t = turns[i]!;
      out.push({ role: 'user', content: t.user });
      if (t === upTo) break;
      if (t.answer) out.push({ role: 'assistant', content: t.answer });
      else out.pop();
    }
    return out;
  }

  /** Estimated prompt tokens of `messages`: exact for the part the service already counted, calibrated o200k for the rest. */
  estimate(messages: readonly WireMessage[]): number {
    const a = this.state.anchor;
    if (a && messages.length >= a.count && hashMessages(messages, a.count) === a.hash) {
      if (a.raw === undefined && tokenizerLoaded()) {
        // The usage arrived before the tokenizer was loaded: learn from it now.
        a.raw = countMessages(messages.slice(0, a.count));
        this.observe(a.promptTokens, a.raw);
      }
      let extra = 0;
      for (let i = a.count; i < messages.length; i++) extra += countMessage(messages[i]!);
      return a.promptTokens + this.calibration.scale(extra);
    }
    return this.calibration.scale(countMessages(messages));
  }

  /** Learn from a reported usage: what was sent and how many prompt tokens the service counted. */
  recordUsage(sent: readonly WireMessage[], usage: Usage | undefined): void {
    if (!usage || !(usage.prompt_tokens > 0)) return;
    const raw = tokenizerLoaded() ? countMessages(sent) : undefined;
    if (raw !== undefined) this.observe(usage.prompt_tokens, raw);
    this.state.anchor = { count: sent.length, hash: hashMessages(sent), promptTokens: usage.prompt_tokens, ...(raw !== undefined ? { raw } : {}) };
  }

  private observe(reported: number, raw: number): void {
    this.calibration.observe(reported, raw);
    this.state.ratio = this.calibration.ratio;
    this.state.samples = this.calibration.observations;
  }

  /**
   * Everything to send for `upTo` (default: the last turn), summarising or trimming first when
   * the request would pass the threshold. Throws a usage error (exit 2) when the question alone
   * cannot fit, with the numbers. `seal`: what each text sent to summarise passes through first
   * (the privacy guard's, in redact mode).
   */
  async prepare(conv: Conversation, opts: { upTo?: Turn; signal?: AbortSignal; force?: boolean; seal?: (text: string) => string } = {}): Promise<Prepared> {
    const upTo = opts.upTo ?? conv.lastTurn;
    if (!upTo) throw usageError(contextText.nothingToSend);
    const budget = this.budget;
    if (budget < 1) {
      throw new TooLongError(
        contextText.noRoom(this.settings.maxTokens, formatWindow(this.settings.contextWindow)),
        this.fit('no-room', 0),
      );
    }
    let messages = this.messagesFor(conv, upTo);
    // A request whose UTF-8 size is under the threshold needs no tokenizer at all.
    const bound = this.calibration.scale(upperBound(messages));
    if (!opts.force && bound <= this.threshold) return { messages, estimate: Math.min(bound, this.estimate(messages)) };
    await loadTokenizer();
    let estimate = this.estimate(messages);
    if (!opts.force && estimate <= this.threshold) return { messages, estimate };

    this.refuseIfAloneTooBig(conv, upTo);

    let compaction: Compaction | undefined;
    let summarised: Prepared['summarised'];
    const upIdx = conv.turns.indexOf(upTo);
    const fixedMessages: WireMessage[] = [...(conv.system ? [{ role: 'system' as const, content: conv.system }] : []), { role: 'user', content: upTo.user }];
    const fixed = this.calibration.scale(countMessages(fixedMessages));
    // Round 0 keeps at least two exchanges; later rounds (only when that cannot fit the window) fewer.
    for (let round = 0; round < 3; round++) {
      const foldEnd = this.planFold(conv, upIdx, fixed, round);
      if (foldEnd > this.state.startTurn) {
        const c = await this.fold(conv, foldEnd, this.settings.compress, opts.signal, { seal: opts.seal });
        if (c) {
          compaction = compaction ? mergeCompactions(compaction, c) : c;
          summarised = compaction.method === 'summarise' ? { count: compaction.messages, beforeTokens: compaction.beforeTokens, afterTokens: compaction.afterTokens } : undefined;
        }
      } else if (round < 2) {
        if (estimate <= budget) break;
        continue;
      } else if (this.state.summary) {
        this.state.summary = undefined; // the summary itself is what does not fit
      }
      messages = this.messagesFor(conv, upTo);
      estimate = this.estimate(messages);
      if (estimate <= budget) break;
    }
    if (estimate > budget) {
      throw new TooLongError(
        contextText.conversationTooLong(formatTokens(estimate), formatTokens(this.settings.maxTokens), formatWindow(this.settings.contextWindow)),
        this.fit('conversation', estimate),
      );
    }
    if (compaction) this.state.compactions.push(compaction);
    return { messages, estimate, compaction, ...(summarised ? { summarised } : {}) };
  }

  /**
   * After a context-length error from the service: learn from the numbers it gave and say
   * whether a retry is worth it (the caller then calls `prepare` with `force: true`, once).
   */
  async recover(err: unknown, sent: readonly WireMessage[]): Promise<boolean> {
    const kind = (err as MedchatError)?.kind;
    if (kind !== 'context-length' && !isContextLengthError(err)) return false;
    await loadTokenizer();
    const text = String((err as Error)?.message ?? '');
    const reported = /(\d+)\s+(?:tokens\s+)?in the messages/i.exec(text)?.[1] ?? /prompt(?: is| has)?\D{0,20}(\d{3,})/i.exec(text)?.[1];
    const raw = countMessages(sent);
    if (reported && Number(reported) > 0) {
      this.observe(Number(reported), raw);
      this.state.anchor = { count: sent.length, hash: hashMessages(sent), promptTokens: Number(reported), raw };
    } else {
      // No numbers in the error: assume the estimate was a quarter short.
      this.observe(Math.ceil(this.estimate(sent) * 1.25), raw);
      this.state.anchor = undefined;
    }
    return true;
  }

  /** `/compact`: summarise everything but the last two exchanges now. Undefined when there is nothing to fold. */
  async compactNow(conv: Conversation, opts: { signal?: AbortSignal } = {}): Promise<Compaction | undefined> {
    const turns = conv.turns;
    const answered: number[] = [];
    for (let i = this.state.startTurn; i < turns.length; i++) if (turns[i]!.answer) answered.push(i);
    if (answered.length <= 2) return undefined;
    await loadTokenizer();
    const foldEnd = answered[answered.length - 2]!;
    const c = await this.fold(conv, foldEnd, 'summarise', opts.signal, { strict: true });
    if (c) this.state.compactions.push(c);
    return c;
  }

  /**
   * What the next request would send, as things stand: the system prompt (with the summary),
   * every kept turn with its answer (the last one included), the question still waiting for its
   * first word if there is one, then `next` (the question being typed).
   */
  nextMessages(conv: Conversation, next = ''): WireMessage[] {
    const last = conv.lastTurn;
    const waiting = last && !last.answer && (last.status === 'pending' || last.status === 'streaming') ? last : null;
    const messages = this.messagesFor(conv, waiting);
    if (next) messages.push({ role: 'user', content: next });
    return messages;
  }

  /** The numbers behind `/tokens` and the footer meter: the next request (see nextMessages). `next` is the question being typed, if any. */
  tokenBreakdown(conv: Conversation, next = ''): TokenBreakdown {
    const messages = this.nextMessages(conv, next);
    const scale = (raw: number) => (raw ? this.calibration.scale(raw) : 0);
    const system = conv.system ? scale(PER_MESSAGE_OVERHEAD + countText(conv.system) + REPLY_PRIMING) : scale(REPLY_PRIMING);
    const full = systemWithSummary(conv.system, this.state.summary?.text);
    const summary = this.state.summary ? scale(countText(full ?? '') - countText(conv.system ?? '') + (conv.system ? 0 : PER_MESSAGE_OVERHEAD)) : 0;
    const nextTokens = next ? scale(PER_MESSAGE_OVERHEAD + countText(next)) : 0;
    const prompt = this.estimate(messages);
    const kept = Math.max(0, prompt - system - summary - nextTokens);
    const keptTurns = conv.turns.slice(this.state.startTurn).filter((t) => t.answer).length;
    const window = this.settings.contextWindow;
    return {
      window,
      maxTokens: this.settings.maxTokens,
      budget: this.budget,
      threshold: this.threshold,
      system,
      summary,
      keptTurns,
      kept,
      foldedTurns: Math.min(this.state.startTurn, conv.turns.length),
      next: nextTokens,
      prompt,
      room: this.budget - prompt,
      fraction: (prompt + this.settings.maxTokens) / window,
      calibrated: this.calibration.observations > 0,
    };
  }

  // ---------------------------------------------------------------------------------------

  private fit(what: Fit['what'], tokens: number): Fit {
    return { what, tokens, window: this.settings.contextWindow, maxTokens: this.settings.maxTokens, budget: this.budget };
  }

  private refuseIfAloneTooBig(conv: Conversation, upTo: Turn): void {
    const alone: WireMessage[] = [];
    if (conv.system) alone.push({ role: 'system', content: conv.system });
    alone.push({ role: 'user', content: upTo.user });
    const tokens = this.calibration.scale(countMessages(alone));
    if (tokens > this.budget) {
      throw new TooLongError(
        contextText.messageTooLong(Boolean(conv.system), formatTokens(tokens), formatWindow(this.settings.contextWindow), formatTokens(this.budget), formatTokens(this.settings.maxTokens)),
        this.fit('message', tokens),
      );
    }
  }

  /**
   * Where the fold should end: keep the most recent answered turns that fit in half the
   * threshold, never fewer than two exchanges unless the window cannot hold them (`round`
   * lowers the floor after a fold that was not enough).
   */
  private planFold(conv: Conversation, upIdx: number, fixed: number, round: number): number {
    const answered: number[] = [];
    for (let i = this.state.startTurn; i < upIdx; i++) if (conv.turns[i]!.answer) answered.push(i);
    if (answered.length === 0) return this.state.startTurn;
    const turnTokens = (i: number) => {
      const t = conv.turns[i]!;
      return this.calibration.scale(2 * PER_MESSAGE_OVERHEAD + countText(t.user) + countText(t.answer));
    };
    const summaryAllowance = this.summaryMaxTokens();
    const minKeep = Math.max(0, 2 - round);
    let keep = 0;
    let tail = 0;
    for (let j = answered.length - 1; j >= 0; j--) {
      const next = tail + turnTokens(answered[j]!);
      const within = fixed + next <= this.threshold / 2;
      if (keep < minKeep || within) {
        keep++;
        tail = next;
      } else break;
    }
    // Two exchanges are the floor, unless they and a summary cannot fit in the window at all.
    while (keep > 0 && fixed + tail + summaryAllowance > this.budget) {
      tail -= turnTokens(answered[answered.length - keep]!);
      keep--;
    }
    if (keep >= answered.length) return this.state.startTurn;
    const firstKept = keep > 0 ? answered[answered.length - keep]! : upIdx;
    return firstKept;
  }

  private summaryMaxTokens(): number {
    return Math.max(256, Math.min(4096, Math.floor(this.budget / 8)));
  }

  /**
   * Fold turns [startTurn, foldEnd) into the summary (or drop them). Returns what happened. A
   * summary replaces the turns only when `summariseChecked` trusts it; otherwise they are dropped
   * (or, `strict` for `/compact`, kept and the reason thrown), and the sentences stating an
   * allergy, a dosed medication or an age in them are still sent, word for word.
   */
  private async fold(
    conv: Conversation,
    foldEnd: number,
    method: 'summarise' | 'trim',
    signal: AbortSignal | undefined,
    opts: { strict?: boolean; seal?: (text: string) => string } = {},
  ): Promise<Compaction | undefined> {
    const folded: WireMessage[] = [];
    for (let i = this.state.startTurn; i < foldEnd; i++) {
      const t = conv.turns[i]!;
      if (!t.answer) continue;
      folded.push({ role: 'user', content: t.user }, { role: 'assistant', content: t.answer });
    }
    const previous = this.state.summary?.text;
    const foldedTokens = folded.length ? this.calibration.scale(countMessages(folded) - REPLY_PRIMING) : 0;
    const before = foldedTokens + (previous ? this.calibration.scale(countText(previous)) : 0);
    const trim = (reason?: string): Compaction => {
      const stillSent = [previous ?? '', ...conv.turns.slice(foldEnd).flatMap((t) => [t.user, t.answer])].join('\n');
      const carried = quoteLostFacts(previous, folded, stillSent);
      const quoted = carried.labels;
      if (carried.text) this.state.summary = { text: carried.text, throughTurn: foldEnd };
      this.state.startTurn = foldEnd;
      if (this.state.summary) this.state.summary.throughTurn = foldEnd;
      return {
        at: Date.now(),
        method: 'trim',
        messages: folded.length,
        beforeTokens: foldedTokens,
        afterTokens: 0,
        throughTurn: foldEnd,
        ...(reason ? { reason } : {}),
        ...(quoted.length ? { quotedFacts: quoted } : {}),
      };
    };
    const refuse = (reason: string) =>
      new MedchatError(contextText.summaryUnsafe(reason), ExitCode.failure, 'summary-unsafe');
    if (folded.length === 0) {
      this.state.startTurn = foldEnd;
      if (this.state.summary) this.state.summary.throughTurn = foldEnd;
      return undefined;
    }
    if (method === 'trim') return trim();
    let checked;
    try {
      const job = { settings: this.settings, contextWindow: this.settings.contextWindow, maxTokens: this.summaryMaxTokens(), scale: (n: number) => this.calibration.scale(n), summariser: this.summariser, signal };
      const seal = opts.seal;
      const source = seal ? folded.map((m) => ({ ...m, content: seal(m.content) })) : folded;
      checked = await summariseChecked(job, previous && seal ? seal(previous) : previous, source);
    } catch (err) {
      if (signal?.aborted || (err as MedchatError)?.kind === 'interrupted') throw interrupted();
      if (opts.strict) throw err;
      return trim(contextText.summarisingFailed(String((err as Error).message).split('; ')[0] ?? ''));
    }
    if (!checked.ok) {
      if (opts.strict) throw refuse(checked.reason);
      return trim(checked.reason);
    }
    const text = checked.text;
    const after = this.calibration.scale(countText(text));
    if (after >= before) {
      if (opts.strict) throw refuse(contextText.summaryNotShorterStrict);
      return trim(contextText.summaryNotShorter);
    }
    this.state.summary = { text, throughTurn: foldEnd };
    this.state.startTurn = foldEnd;
    return { at: Date.now(), method: 'summarise', messages: folded.length, beforeTokens: before, afterTokens: after, throughTurn: foldEnd, ...(checked.firstTry ? { firstTry: checked.firstTry } : {}) };
  }


}
