/**
 * One conversation with its context manager and its session file: what the chat screen and
 * one-shot mode both use. `send` streams one answer, keeps the turn up to date, and saves the
 * question at once, the answer at least once a second while it streams, and at the end.
 */
import { randomBytes } from 'node:crypto';
import { completeChat, endedEarly, streamChat, type CallOptions } from '../chat/chat-client.js';
import type { ChatEvent, ChatResult } from '../chat/chat-events.js';
import type { WireMessage } from '../chat/chat-request.js';
import { ContextManager, describeCompaction, emptyContextState, type Compaction, type Prepared, type TokenBreakdown } from '../context/context.js';
import { Conversation, endedStatus, type Turn } from '../context/conversation.js';
import { MedchatError, toMedchatError, usageError } from '../errors.js';
import { EventRedactor } from '../chat/redact-events.js';
import type { Settings } from '../config/settings.js';
import { GrowingText } from '../text/rope.js';
import { countText, loadTokenizer, primeCount, tokenizerLoaded } from '../context/tokens.js';
import { SESSION_FORMAT, SESSION_VERSION, SessionStore, newSessionId, titleFor, type SessionData, type StoredTurn } from './store.js';
import { sessionsText } from '../i18n/messages/sessions.js';

export type SessionEvent = ChatEvent | { type: 'compacted'; compaction: Compaction; text: string };

interface TurnTexts {
  answer: GrowingText;
  reasoning: GrowingText;
}

export interface SendOptions {
  signal?: AbortSignal;
  /** false: one whole-answer request (`--no-stream`, batch). */
  stream?: boolean;
  /** Retries and rate control for the whole-answer request (batch); its own `signal` is ignored. */
  call?: Omit<CallOptions, 'signal'>;
  /** What every text that leaves passes through last (the privacy guard's seal, in redact mode). */
  seal?: (text: string) => string;
}

interface OpenSessionOptions {
  system?: string;
  /** A session id, a unique prefix of one, or `latest` (what `-c` means). */
  resume?: string;
  /** Write nothing to disk (`--incognito`; also implied by `history: off`). */
  incognito?: boolean;
  store?: SessionStore;
  /** The role a new conversation starts with (recorded for `sessions search --role`). */
  role?: string;
  /** How the user lists the saved sessions where they are, named when `resume` matches none (the chat screen: `/sessions`). */
  listWith?: string;
}

/** While an answer streams, at most one save per this many ms: a SIGKILL loses at most about a second of it. */
const SAVE_INTERVAL_MS = 1000;

export class ChatSession {
  readonly conversation: Conversation;
  readonly context: ContextManager;
  /** false: nothing is written (incognito or `history: off`). Prompt history must not be written either. */
  readonly persistent: boolean;
  readonly resumed: boolean;
  private data: SessionData;
  private lastSave = 0;
  private timer: NodeJS.Timeout | undefined;
  /** Ends this process's mark that the conversation is open (see SessionStore.markOpen); undefined until marked. */
  private releaseOpen: (() => void) | undefined;
  /** Turns asked here (this process writes them) and every turn held here; see session-merge.ts. */
  private readonly owned = new Set<string>();
  private readonly seen = new Set<string>();
  /** The first failure to write the session file (the conversation goes on; the front end says so once). */
  saveError: MedchatError | undefined;
  /** Called once, on the first failure to write the session file. */
  onSaveError: ((err: MedchatError) => void) | undefined;

  private constructor(
    public settings: Settings,
    private readonly store: SessionStore,
    data: SessionData,
    persistent: boolean,
    resumed: boolean,
  ) {
    this.data = data;
    this.persistent = persistent;
    this.resumed = resumed;
    if (resumed) this.markOpen();
    this.conversation = new Conversation(data.system);
    for (const saved of data.turns) {
      const turn = this.conversation.addTurn(saved.user);
      const { tokens, ...rest } = saved;
      Object.assign(turn, rest);
      this.seen.add(turn.id);
      if (tokens) {
        primeCount(saved.user, tokens.user);
        if (saved.status === 'complete') primeCount(saved.answer, tokens.answer);
      }
    }
    this.context = new ContextManager(settings, data.context);
  }

  /** Start a new conversation, or resume a saved one (`resume`: id, prefix or `latest`). */
  static open(settings: Settings, opts: OpenSessionOptions = {}): ChatSession {
    const store = opts.store ?? new SessionStore();
    const persistent = settings.history && !opts.incognito;
    if (persistent) store.prepare(); // encryption on: the key is checked and plain history encrypted, before any screen starts
    if (opts.resume !== undefined) {
      if (!settings.history && !opts.incognito) {
        throw usageError(sessionsText.historyOff);
      }
      let id: string;
      try {
        id = store.resolve(opts.resume, opts.listWith);
      } catch (err) {
        if (opts.resume === 'latest' && err instanceof MedchatError && err.kind === 'usage') {
          throw usageError(sessionsText.nothingToContinue);
        }
        throw err;
      }
      const data = store.load(id, opts.listWith);
      if (opts.system?.trim()) data.system = opts.system;
      return new ChatSession(settings, store, data, persistent, true);
    }
    const now = new Date().toISOString();
    const data: SessionData = {
      format: SESSION_FORMAT,
      version: SESSION_VERSION,
      id: newSessionId(),
      title: '',
      createdAt: now,
      updatedAt: now,
      model: settings.model,
      ...(opts.system?.trim() ? { system: opts.system } : {}),
      ...(opts.role ? { role: opts.role } : {}),
      turns: [],
      context: emptyContextState(),
    };
    return new ChatSession(settings, store, data, persistent, false);
  }

  get id(): string {
    return this.data.id;
  }

  get title(): string {
    return this.data.title;
  }

  /** Where the session is saved (undefined when nothing is written). */
  get file(): string | undefined {
    return this.persistent ? this.store.fileFor(this.data.id) : undefined;
  }

  /** Every fold so far, oldest first, for the transcript (`describeCompaction` gives the line). */
  get compactions(): readonly Compaction[] {
    return this.context.state.compactions;
  }

  /**
   * Add a question to the conversation and save it at once. Its id is random, so a turn another
   * medchat adds to the same session at the same time never takes its place.
   */
  ask(text: string): Turn {
    const turn = this.conversation.addTurn(text);
    turn.id = `t-${randomBytes(6).toString('hex')}`;
    this.owned.add(turn.id);
    this.seen.add(turn.id);
    this.saveNow();
    return turn;
  }

  /** Load the tokenizer so `tokenBreakdown` is exact (before that it is a rough count). Call once at startup, in the background. */
  static loadTokenizer(): Promise<void> {
    return loadTokenizer();
  }

  /** The numbers for `/tokens` and the footer meter (`next`: the question being typed). */
  tokenBreakdown(next = ''): TokenBreakdown {
    return this.context.tokenBreakdown(this.conversation, next);
  }

  /** `/compact`: summarise all but the last two exchanges now; undefined when there is nothing to fold. */
  async compactNow(opts: { signal?: AbortSignal } = {}): Promise<{ compaction: Compaction; text: string } | undefined> {
    const c = await this.context.compactNow(this.conversation, opts);
    if (!c) return undefined;
    this.saveNow();
    return { compaction: c, text: describeCompaction(c) };
  }

  /**
   * What would be sent for `turn` (summarising first if needed), without sending it. `seal`: what
   * every text that leaves passes through last (the privacy guard's, in redact mode).
   */
  async prepare(turn: Turn, opts: { signal?: AbortSignal; force?: boolean; seal?: (text: string) => string } = {}): Promise<Prepared> {
    const prepared = await this.context.prepare(this.conversation, { upTo: turn, ...opts });
    const seal = opts.seal;
    return seal ? { ...prepared, messages: prepared.messages.map((m) => ({ ...m, content: seal(m.content) })) } : prepared;
  }

  /**
   * Send `turn` (from `ask`) and stream the answer as events. Keeps `turn` up to date (answer,
   * reasoning, status, usage, timings) and saved: the caller only renders. Summarises or trims
   * first when needed (a `compacted` event says so), and after a context-length error from the
   * service summarises and retries once. Throws a MedchatError like `streamChat` does; the turn
   * is saved with its status (`endedStatus`: `interrupted`, `incomplete`, `failed`) before that.
   * `call`: retries and rate control for the whole-answer request (batch); `seal`: see `prepare`.
   */
  async *send(turn: Turn, opts: SendOptions = {}): AsyncGenerator<SessionEvent, void> {
    const stream = opts.stream !== false;
    turn.status = 'pending';
    turn.startedAt = Date.now();
    this.saveNow();
    let retried = false;
    try {
      for (;;) {
        const prepared = await this.prepare(turn, { signal: opts.signal, force: retried, seal: opts.seal });
        if (prepared.compaction) {
          this.saveNow();
          yield { type: 'compacted', compaction: prepared.compaction, text: describeCompaction(prepared.compaction) };
        }
        // Keys echoed in the answer are masked here, once: what is shown is what is saved.
        const redactor = new EventRedactor();
        const texts = { answer: new GrowingText(turn.answer), reasoning: new GrowingText(turn.reasoning) };
        try {
          const events = stream ? streamChat(this.settings, prepared.messages, { signal: opts.signal }) : this.complete(prepared.messages, { ...opts.call, signal: opts.signal });
          try {
            for await (const received of events) {
              for (const e of redactor.take(received)) {
                this.apply(turn, e, prepared.messages, texts);
                yield e;
              }
            }
          } catch (err) {
            // What was held back (it might have begun a key) still arrived: given out, masked, before the error.
            for (const e of redactor.flush()) {
              this.apply(turn, e, prepared.messages, texts);
              yield e;
            }
            throw err;
          }
          for (const e of redactor.flush()) {
            this.apply(turn, e, prepared.messages, texts);
            yield e;
          }
          break;
        } catch (err) {
          if (!retried && !turn.answer && !turn.reasoning && (await this.context.recover(err, prepared.messages))) {
            retried = true;
            continue;
          }
          throw err;
        }
      }
      turn.status = 'complete';
      turn.durationMs = Date.now() - turn.startedAt;
      this.saveNow();
    } catch (err) {
      const e = toMedchatError(err);
      turn.status = endedStatus(e.kind);
      turn.error = e.message;
      turn.durationMs = Date.now() - turn.startedAt;
      this.saveNow();
      throw e;
    }
  }

  /** `texts`: the turn's answer and reasoning as they grow, a piece an event (rope.ts). */
  private apply(turn: Turn, e: ChatEvent, sent: readonly WireMessage[], texts: TurnTexts): void {
    switch (e.type) {
      case 'reasoning':
        turn.status = 'streaming';
        turn.reasoning = texts.reasoning.add(e.text);
        this.saveSoon();
        break;
      case 'content':
        if (turn.firstTokenMs === undefined) {
          turn.firstTokenMs = Date.now() - turn.startedAt;
          if (turn.reasoning) turn.reasoningMs = turn.firstTokenMs;
        }
        turn.status = 'streaming';
        turn.answer = texts.answer.add(e.text);
        this.saveSoon();
        break;
      case 'usage':
        turn.usage = e.usage;
        this.context.recordUsage(sent, e.usage);
        break;
      default:
        break;
    }
  }

  /** The non-streaming request, as the same events (retry notices arrive as they happen). */
  private async *complete(messages: readonly WireMessage[], call: CallOptions): AsyncGenerator<ChatEvent, void> {
    const pending: ChatEvent[] = [];
    let wake: (() => void) | undefined;
    let done = false;
    let result: ChatResult | undefined;
    let failure: unknown;
    void completeChat(this.settings, messages, call, (e) => {
      pending.push(e);
      wake?.();
    })
      .then(
        (r) => (result = r),
        (err) => (failure = err),
      )
      .finally(() => {
        done = true;
        wake?.();
      });
    for (;;) {
      while (pending.length) yield pending.shift()!;
      if (done) break;
      await new Promise<void>((r) => (wake = r));
      wake = undefined;
    }
    if (failure !== undefined) {
      // A body of events cut off part-way: what arrived is shown and kept before the error.
      const partial = (failure as { partial?: ChatResult }).partial;
      if (partial?.reasoning) yield { type: 'reasoning', text: partial.reasoning };
      if (partial?.content) yield { type: 'content', text: partial.content };
      if (partial?.usage) yield { type: 'usage', usage: partial.usage };
      throw failure;
    }
    const r = result!;
    if (r.reasoning) yield { type: 'reasoning', text: r.reasoning };
    if (r.content) yield { type: 'content', text: r.content };
    if (r.usage) yield { type: 'usage', usage: r.usage };
    if (r.finishReason) yield { type: 'finish', reason: r.finishReason };
    const early = endedEarly(this.settings, r); // cut off, filtered or empty: said, exit 8
    if (early) throw early;
    yield { type: 'end', id: r.id, model: r.model, finishReason: r.finishReason };
  }

  /** Save within SAVE_INTERVAL_MS (so at least once a second while an answer streams). */
  saveSoon(): void {
    if (!this.persistent) return;
    const since = Date.now() - this.lastSave;
    if (since >= SAVE_INTERVAL_MS) {
      this.saveNow({ durable: false });
      return;
    }
    if (!this.timer) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.saveNow({ durable: false });
      }, SAVE_INTERVAL_MS - since);
      this.timer.unref?.();
    }
  }

  /**
   * Write the session now (atomically, merged with turns other processes saved meanwhile). Does
   * nothing when the session is not persistent. `durable: false` (the saves while an answer
   * streams) skips the fsync; see writeFileAtomic. A failure leaves the file as it was and is
   * reported once, through onSaveError.
   */
  saveNow(opts: { durable?: boolean } = {}): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    if (!this.persistent) return;
    this.lastSave = Date.now();
    const d = this.data;
    if (!d.title && this.conversation.turns[0]) d.title = titleFor(this.conversation.turns[0].user);
    d.updatedAt = new Date().toISOString();
    d.model = this.settings.model;
    if (this.conversation.system) d.system = this.conversation.system;
    else delete d.system;
    d.context = this.context.state;
    d.turns = this.conversation.turns.map((t): StoredTurn => {
      const settled = t.status !== 'pending' && t.status !== 'streaming';
      return settled && tokenizerLoaded() ? { ...t, tokens: { user: countText(t.user), answer: countText(t.answer) } } : { ...t };
    });
    try {
      this.store.save(d, { durable: opts.durable, merge: { owned: this.owned, seen: this.seen } });
      this.markOpen();
    } catch (err) {
      if (!this.saveError) {
        this.saveError = toMedchatError(err);
        this.onSaveError?.(this.saveError);
      }
    }
  }

  /** Flush anything pending; call when the conversation closes. */
  close(): void {
    if (this.timer) this.saveNow();
    this.releaseOpen?.();
  }

  /** Mark the conversation open in this process, once: resumed at once, a new one when first saved (its folder is there then). */
  private markOpen(): void {
    if (this.persistent && !this.releaseOpen) this.releaseOpen = this.store.markOpen(this.data.id);
  }
}
