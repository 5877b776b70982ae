import type { ChatEvent, Usage } from '../core/chat-events.js';
import type { TokenBreakdown } from '../core/context.js';
import { Conversation, type Turn, type TurnStatus } from '../core/conversation.js';
import { toMedchatError } from '../core/errors.js';
import type { ActiveRole, RoleSettings } from '../core/roles/active.js';
import { hostOf } from '../core/network-errors.js';
import { ChatSession, type SessionEvent } from '../core/sessions/chat-session.js';
import { SessionStore } from '../core/sessions/store.js';
import { sanitizeForTerminal } from '../core/sanitize.js';
import { shellQuote } from '../core/shell-quote.js';
import type { Settings } from '../core/settings.js';
import type { Meter } from './text/format.js';
import { lastSafeSplit } from './text/split.js';
import { PromptHistory } from './prompt-history.js';
import { COMMANDS, findCommand, type SlashCommand } from './commands/index.js';
import { breakdownText, itemsForTurns, meterFrom, resumedLine, sessionListText } from './session-items.js';
import { tooLong, type TooLong } from './too-long.js';

/**
 * The chat screen's state and actions, in plain TypeScript (no React): it owns the conversation,
 * runs each request through core's `streamChat`, and turns its events into what the screen shows.
 * Components render `snapshot()`; `use-chat` subscribes and batches the redraws.
 *
 * What is printed once (Ink `<Static>`) is `items`, append-only. The streaming turn lives in
 * `live`; as its answer grows past the live limit, finished paragraphs move into `items`.
 */
export type StaticItem =
  | { id: string; kind: 'header'; version: string; model: string; thinking: boolean; host: string; disclaimer: boolean; role?: string }
  | { id: string; kind: 'user'; text: string }
  | { id: string; kind: 'reasoning'; text: string; ms: number; tokens: number }
  | { id: string; kind: 'answer'; text: string }
  | { id: string; kind: 'status'; status: TurnStatus; error?: string; stats?: string }
  /** `plain`: medchat's own output printed as is (a picture preview in coloured blocks). */
  | { id: string; kind: 'notice'; text: string; tone: 'info' | 'warn' | 'error' | 'plain' };

type DistributiveOmit<T, K extends keyof T> = T extends unknown ? Omit<T, K> : never;
export type NewItem = DistributiveOmit<StaticItem, 'id'>;

/**
 * What changed, for a screen that can draw some changes without re-rendering: `text`, only more
 * text in the streaming turn; `paragraphs`, that and finished answer paragraphs added to `items`.
 */
export type Change = 'text' | 'paragraphs' | 'any';

/** Work other than an answer that holds the screen (a retexture job, /compact): one live line, Esc stops it. */
export interface JobState {
  label: string;
  startedAt: number;
}

export interface LiveTurn {
  turnId: string;
  phase: 'waiting' | 'reasoning' | 'answer';
  startedAt: number;
  reasoningStartedAt?: number;
  /** The whole reasoning so far (sanitised); the view shows its last lines. */
  reasoning: string;
  reasoningTokens: number;
  /** Answer text not yet moved into the printed transcript (sanitised). */
  answerTail: string;
  retry?: string;
}

export interface LastStats {
  firstTokenMs?: number;
  tokensPerSecond?: number;
  usage?: Usage;
}

export interface ChatSnapshot {
  items: readonly StaticItem[];
  /** Changes when the printed transcript must be reprinted (clear + remount `<Static>`). */
  epoch: number;
  live?: LiveTurn;
  showReasoning: boolean;
  thinking: boolean;
  maxTokens: number;
  meter: Meter;
  last?: LastStats;
  columns: number;
  rows: number;
  exitRequested: boolean;
  job?: JobState;
  demo: boolean;
}

export interface ControllerOptions {
  system?: string;
  version: string;
  columns?: number;
  rows?: number;
  /** Raw writes to the terminal: control strings that print nothing and leave the cursor (OSC 52). */
  write?: (data: string) => void;
  /** Draw the live region again where it is (Ctrl+L, back from the editor); nothing printed above it is touched. */
  redraw?: () => void;
  /** Open the full-screen transcript viewer (Ctrl+O, /reasoning). */
  openTranscript?: () => void;
  /** Prompt history file; undefined keeps history in memory only. */
  historyFile?: string;
  /** The footer's context meter. Default: the last answer's prompt + completion tokens against the window. */
  contextMeter?: (c: Conversation, s: Settings) => Meter;
  /** Opens the draft in $VISUAL/$EDITOR; returns the edited text, or undefined. */
  openEditor?: (draft: string) => string | undefined;
  commands?: readonly SlashCommand[];
  /** Continue a saved session (id, unique prefix or `latest`). */
  resume?: string;
  /** Write nothing: no session file, no prompt history. */
  incognito?: boolean;
  /** `medchat demo`: the header and footer say so. */
  demo?: boolean;
  /** Where sessions are saved (tests use a temporary folder). Default: the data directory. */
  store?: SessionStore;
  /** How `/retexture` draws its preview inside the screen: coloured blocks, or plain characters without colour. */
  previewProtocol?: 'blocks' | 'ascii';
  /** Task polling interval for `/retexture` (tests poll faster). */
  retexturePollMs?: number;
  /** A role in use from the start (`-r NAME`): shown in the header; see setRole. */
  role?: ActiveRole;
}

let itemSeq = 0;
const nextId = () => `i${++itemSeq}`;

export class ChatController {
  readonly settings: Settings;
  conversation: Conversation;
  session: ChatSession;
  readonly store: SessionStore;
  readonly history: PromptHistory;
  readonly commands: readonly SlashCommand[];
  private items: StaticItem[] = [];
  private epoch = 0;
  private live: LiveTurn | undefined;
  private showReasoning = false;
  private columns: number;
  private rows: number;
  private last: LastStats | undefined;
  private abort: AbortController | undefined;
  private running: Promise<void> | undefined;
  private pendingRefresh = false;
  private exitRequested = false;
  private listeners = new Set<(change: Change) => void>();
  private snap: ChatSnapshot | undefined;
  private job: JobState | undefined;
  private jobAbort: AbortController | undefined;
  private jobRunning: Promise<void> | undefined;
  private draft = '';
  /** The input box takes back a question that was not sent (set by the screen); false when it is busy. */
  returnDraft: ((text: string) => boolean) | undefined;
  private meterCache: Meter | undefined;
  private saveErrorShown = false;
  /** The role in use (`-r`, `/role`), shown in the header; its `base` is what `/role off` restores. */
  role: ActiveRole | undefined;

  constructor(
    settings: Settings,
    private readonly opts: ControllerOptions,
  ) {
    this.settings = { ...settings };
    this.store = opts.store ?? new SessionStore();
    // The session shares this.settings, so /think and /max-tokens reach its requests and its meter.
    this.session = this.openSession({ system: opts.system, resume: opts.resume });
    this.conversation = this.session.conversation;
    this.columns = opts.columns ?? 80;
    this.rows = opts.rows ?? 24;
    // Incognito or `history: off`: no prompt history file either.
    this.history = new PromptHistory(this.session.persistent ? opts.historyFile : undefined);
    this.commands = opts.commands ?? COMMANDS;
    this.items.push({
      id: nextId(),
      kind: 'header',
      version: opts.demo ? `${opts.version} · DEMO` : opts.version,
      model: settings.model,
      thinking: settings.thinking,
      host: hostOf(settings.baseUrl),
      disclaimer: settings.disclaimer,
      ...(opts.role ? { role: opts.role.name } : {}),
    });
    this.role = opts.role;
    if (opts.demo) {
      this.push({
        kind: 'notice',
        tone: 'warn',
        text: 'DEMO: answers come from a built-in stand-in service, not a medical model, and are not medical advice. Try "vital signs", "long answer", or /retexture demo.png watercolour',
      });
    }
    if (this.session.resumed) this.push(...this.resumedItems());
  }

  /** Load the tokenizer (in the background, after the first paint): the meter is exact from then on. */
  async loadTokenizer(): Promise<void> {
    try {
      await ChatSession.loadTokenizer();
    } catch {
      return; // the rough count stays
    }
    this.invalidateMeter();
  }

  // ---- sessions -----------------------------------------------------------------------------

  private openSession(o: { system?: string; resume?: string }): ChatSession {
    const s = ChatSession.open(this.settings, { system: o.system, resume: o.resume, incognito: this.opts.incognito, store: this.store });
    s.onSaveError = (err) => {
      if (this.saveErrorShown) return;
      this.saveErrorShown = true;
      this.notice(`${err.message}; the conversation goes on, but is not being saved`, 'warn');
    };
    return s;
  }

  private resumedItems(): NewItem[] {
    const s = this.session;
    return [{ kind: 'notice', tone: 'info', text: sanitizeForTerminal(resumedLine(s)) }, ...itemsForTurns(s.conversation.turns, s.compactions, (t) => turnStats(t, undefined))];
  }

  private useSession(s: ChatSession): void {
    this.session.close();
    this.session = s;
    this.conversation = s.conversation;
    this.last = undefined;
    this.invalidateMeter();
  }

  /** `/resume <id|prefix>`: open that session; its turns are printed below what is on screen. */
  resumeSession(ref: string): void {
    const s = this.openSession({ resume: ref });
    if (s.id === this.session.id) return this.notice(`session ${s.id} is the one open`);
    this.useSession(s);
    this.push(...this.resumedItems());
    this.changed();
  }

  /** `/sessions`: the recent saved sessions. */
  sessionsText(): string {
    const list = this.store.list();
    const note = this.session.persistent ? '' : '\n(this conversation is not saved: incognito or history off)';
    return sessionListText(list, this.session.persistent ? this.session.id : undefined) + note;
  }

  /** The numbers behind `/tokens` and the footer meter (with the draft being typed). */
  tokenBreakdown(): TokenBreakdown {
    return this.session.tokenBreakdown(this.draft);
  }

  tokensText(): string {
    return breakdownText(this.tokenBreakdown());
  }

  /** The text in the input box (the meter counts it as the next question). */
  setDraft(text: string): void {
    if (text === this.draft) return;
    this.draft = text;
    if (!this.live) this.invalidateMeter();
  }

  private invalidateMeter(): void {
    this.meterCache = undefined;
    this.changed();
  }

  private meter(): Meter {
    if (this.opts.contextMeter) return this.opts.contextMeter(this.conversation, this.settings);
    // Recounted when something changes outside a streaming answer, not on every streamed chunk.
    this.meterCache ??= meterFrom(this.tokenBreakdown());
    return this.meterCache;
  }

  /** `/compact`: summarise all but the last two exchanges now. */
  async compact(): Promise<void> {
    await this.runJob('Summarising earlier turns…', async (signal) => {
      const r = await this.session.compactNow({ signal });
      this.notice(r ? r.text : 'nothing to summarise yet: the last two exchanges are always kept word for word');
    });
  }

  /** `/retexture <image> <prompt>`: submit, follow the task on one live line, then print the URL and a preview. */
  async retexture(args: string): Promise<void> {
    const { splitImageAndPrompt, runRetextureJob } = await import('../core/retexture/index.js');
    const { image, prompt } = splitImageAndPrompt(args);
    this.push({ kind: 'user', text: sanitizeForTerminal(`/retexture ${image} ${prompt}`) });
    let taskId: string | undefined;
    await this.runJob('retexture · sending the image…', async (signal) => {
      try {
        const r = await runRetextureJob({
          connection: this.settings,
          image,
          prompt,
          signal,
          ...(this.opts.retexturePollMs ? { pollIntervalMs: this.opts.retexturePollMs } : {}),
          preview: { protocol: this.opts.previewProtocol ?? 'blocks', columns: Math.max(8, Math.min(32, this.columns - 4)) },
          onEvent: (e) => {
            if (e.type === 'submitted') {
              taskId = e.taskId;
              this.setJobLabel(`retexture · task ${e.taskId} · submitted`);
            } else if (e.type === 'progress' && e.changed) this.setJobLabel(`retexture · task ${e.taskId} · ${e.label}`);
            else if (e.type === 'retrying') this.setJobLabel(`retexture · task ${e.taskId} · ${e.message}; trying again`);
            else if (e.type === 'downloading') this.setJobLabel(`retexture · task ${e.taskId} · fetching the picture…`);
          },
        });
        this.push({ kind: 'notice', tone: 'info', text: sanitizeForTerminal(`✓ retexture done · task ${r.taskId}`) });
        this.push({ kind: 'notice', tone: 'plain', text: sanitizeForTerminal(r.image?.url ?? r.imageUrl) });
        // The preview is medchat's own drawing (coloured blocks), printed as it is.
        if (r.preview) this.push({ kind: 'notice', tone: 'plain', text: r.preview.text.replace(/\n+$/, '') });
        else if (r.previewProblem) this.push({ kind: 'notice', tone: 'info', text: sanitizeForTerminal(`no preview: ${r.previewProblem}`) });
        this.changed();
      } catch (err) {
        const e = toMedchatError(err);
        if (e.kind === 'interrupted' && taskId) throw Object.assign(e, { message: `stopped waiting; task ${shellQuote(taskId)} goes on: medchat task ${shellQuote(taskId)} --wait` });
        throw e;
      }
    });
  }

  private setJobLabel(label: string): void {
    if (!this.job) return;
    this.job = { ...this.job, label: sanitizeForTerminal(label) };
    this.changed();
  }

  /** Run `work` as the screen's one job: a live line, Esc/Ctrl+C aborts it, failures become a notice. */
  private async runJob(label: string, work: (signal: AbortSignal) => Promise<void>): Promise<void> {
    if (this.busy) return this.notice('wait for the current answer or job to finish (Esc stops it)', 'warn');
    const abort = new AbortController();
    this.jobAbort = abort;
    this.job = { label, startedAt: Date.now() };
    this.changed();
    let done!: () => void;
    this.jobRunning = new Promise<void>((r) => (done = r));
    try {
      await work(abort.signal);
    } catch (err) {
      const e = toMedchatError(err);
      this.notice(e.kind === 'interrupted' && e.message === 'interrupted' ? 'stopped' : e.message, e.kind === 'interrupted' ? 'warn' : 'error');
    } finally {
      this.job = undefined;
      this.jobAbort = undefined;
      this.jobRunning = undefined;
      done();
      this.invalidateMeter();
    }
  }

  /** On exit: stop what runs, wait (briefly) for the last save, flush the session. */
  async close(): Promise<void> {
    this.stop();
    const waits = [this.running, this.jobRunning].filter(Boolean) as Promise<void>[];
    if (waits.length) await Promise.race([Promise.all(waits), new Promise((r) => setTimeout(r, 2000).unref())]);
    this.session.close();
  }

  // ---- subscription -------------------------------------------------------------------------

  /** `fn` runs on every change, told what kind of change it was (see Change). */
  subscribe(fn: (change: Change) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private changed(change: Change = 'any'): void {
    this.snap = undefined;
    for (const fn of this.listeners) fn(change);
  }

  /** The streaming turn as it is now (not a snapshot copy): read it, do not change it. */
  liveTurn(): Readonly<LiveTurn> | undefined {
    return this.live;
  }

  snapshot(): ChatSnapshot {
    this.snap ??= {
      items: this.items,
      epoch: this.epoch,
      live: this.live && { ...this.live },
      showReasoning: this.showReasoning,
      thinking: this.settings.thinking,
      maxTokens: this.settings.maxTokens,
      meter: this.meter(),
      last: this.last,
      columns: this.columns,
      rows: this.rows,
      exitRequested: this.exitRequested,
      job: this.job,
      demo: Boolean(this.opts.demo),
    };
    return this.snap;
  }

  get busy(): boolean {
    return this.live !== undefined || this.job !== undefined;
  }

  /** Resolves when the current answer (if any) has finished. */
  idle(): Promise<void> {
    return this.running ?? Promise.resolve();
  }

  // ---- transcript ---------------------------------------------------------------------------

  private push(...items: NewItem[]): void {
    this.items = [...this.items, ...items.map((i) => ({ ...i, id: nextId() }) as StaticItem)];
  }

  notice(text: string, tone: 'info' | 'warn' | 'error' = 'info'): void {
    this.push({ kind: 'notice', text: sanitizeForTerminal(text), tone });
    this.changed();
  }

  /**
   * Ctrl+L: draw the live region again, where it is. Nothing printed above it is ever erased or
   * printed again: the terminal keeps it, and reflows it on a resize.
   */
  refresh(): void {
    this.pendingRefresh = false;
    this.opts.redraw?.();
    this.changed();
  }

  /** Ctrl+O, /reasoning: the whole conversation with every answer's reasoning, in the transcript viewer. */
  openTranscript(): void {
    if (this.opts.openTranscript) this.opts.openTranscript();
    else this.notice('the transcript viewer needs a terminal', 'warn');
  }

  resize(columns: number, rows: number): void {
    if (columns === this.columns && rows === this.rows) return;
    // Only the live region is laid out again; what is printed, the terminal reflows itself.
    this.columns = columns;
    this.rows = rows;
    this.changed();
  }

  requestExit(): void {
    this.stop();
    this.exitRequested = true;
    this.changed();
  }

  // ---- input --------------------------------------------------------------------------------

  /** Enter: a slash command, or a question. Returns false when nothing was done (keep the draft). */
  submit(text: string): boolean {
    const trimmed = text.trim();
    if (!trimmed) return false;
    // What was typed is leaving the box: it is no longer "the next question" for the meter or /tokens.
    this.draft = '';
    this.meterCache = undefined;
    if (/^\/[\w-]*(\s|$)/.test(trimmed)) {
      this.history.add(trimmed);
      void this.runCommand(trimmed);
      return true;
    }
    if (this.busy) {
      this.notice(this.job ? 'still working on the last command: wait for it, or press Esc to stop it' : 'an answer is still streaming: wait for it, or press Esc to stop it', 'warn');
      return false;
    }
    this.history.add(text);
    this.ask(text);
    return true;
  }

  async runCommand(line: string): Promise<void> {
    const [, name = '', rest = ''] = /^\/(\S*)\s*([\s\S]*)$/.exec(line.trim()) ?? [];
    const cmd = findCommand(this.commands, name);
    if (!cmd) {
      this.notice(`unknown command /${name}; type /help for the list`, 'warn');
      return;
    }
    if (this.job && cmd.idleOnly) {
      this.notice(`/${cmd.name} waits until the current command has finished (Esc stops it)`, 'warn');
      return;
    }
    if (cmd.idleOnly && this.busy) {
      this.notice(`/${cmd.name} waits until the answer has finished (Esc stops it)`, 'warn');
      return;
    }
    try {
      await cmd.run(this, rest.trim());
    } catch (err) {
      this.notice(toMedchatError(err).message, 'error');
    }
  }

  openEditor(draft: string): string | undefined {
    if (!this.opts.openEditor) return undefined;
    const out = this.opts.openEditor(draft);
    // The editor had the terminal (most often on its alternate screen): draw the live region again.
    this.refresh();
    return out;
  }

  rawWrite(data: string): void {
    this.opts.write?.(data);
  }

  // ---- asking -------------------------------------------------------------------------------

  ask(text: string): void {
    const turn = this.session.ask(text);
    this.meterCache = undefined;
    this.push({ kind: 'user', text: sanitizeForTerminal(text) });
    this.live = { turnId: turn.id, phase: 'waiting', startedAt: Date.now(), reasoning: '', reasoningTokens: 0, answerTail: '' };
    this.changed();
    this.running = this.stream(turn).finally(() => {
      this.running = undefined;
    });
  }

  /** `/retry`: ask the last question again (replacing its answer). */
  retry(): boolean {
    const last = this.conversation.lastTurn;
    if (!last || this.busy) return false;
    this.conversation.turns.pop();
    this.ask(last.user);
    return true;
  }

  /** Ctrl+C or Esc while streaming: close the request; the partial answer stays, marked interrupted. */
  stop(): boolean {
    if (this.jobAbort && !this.jobAbort.signal.aborted) {
      this.jobAbort.abort();
      return true;
    }
    if (!this.abort || this.abort.signal.aborted) return false;
    this.abort.abort();
    return true;
  }

  newConversation(): void {
    this.stop();
    this.useSession(this.openSession({ system: this.conversation.system }));
    this.notice(this.session.persistent ? `new conversation (session ${this.session.id}): earlier turns will not be sent` : 'new conversation: earlier turns will not be sent');
  }

  setThinking(on: boolean): void {
    this.settings.thinking = on;
    this.changed();
  }

  setMaxTokens(n: number): void {
    this.settings.maxTokens = n;
    this.invalidateMeter();
  }

  /** `/role`: use what a role sets (worked out in core/roles/active.ts), or `role` undefined to go back. The printed header stays as it was (nothing is reprinted); the transcript viewer's shows the role. */
  setRole(role: ActiveRole | undefined, use: RoleSettings): void {
    this.role = role;
    Object.assign(this.settings, { thinking: use.thinking, maxTokens: use.maxTokens, temperature: use.temperature });
    this.conversation.system = use.system?.trim() ? use.system : undefined;
    this.session.saveNow();
    const header = this.items[0];
    if (header?.kind === 'header') this.items = [{ ...header, role: role?.name, thinking: use.thinking }, ...this.items.slice(1)];
    this.invalidateMeter();
  }

  setSystem(text: string | undefined): void {
    this.conversation.system = text?.trim() ? text : undefined;
    this.session.saveNow();
    this.invalidateMeter();
  }

  /**
   * Finished paragraphs (up to the last blank line outside a code fence) go into the printed
   * transcript as soon as they are finished, so the live region holds only the paragraph being
   * written and each frame lays out and draws little; the view shows the last rows of a very
   * long one. The renderer treats blank-line-separated blocks on their own, so printing them one
   * by one looks the same as printing the answer whole.
   */
  private moveFinishedParagraphs(live: LiveTurn): void {
    const cut = lastSafeSplit(live.answerTail);
    if (cut <= 0) return;
    const done = live.answerTail.slice(0, cut).replace(/\s+$/, '');
    live.answerTail = live.answerTail.slice(cut);
    if (done) this.push({ kind: 'answer', text: done });
  }

  private foldReasoning(live: LiveTurn, turn: Turn): void {
    if (!live.reasoning.trim()) return;
    const ms = turn.reasoningMs ?? Date.now() - (live.reasoningStartedAt ?? live.startedAt);
    turn.reasoningMs = ms;
    this.push({ kind: 'reasoning', text: live.reasoning.trim(), ms, tokens: live.reasoningTokens });
    live.reasoning = '';
  }

  private async stream(turn: Turn): Promise<void> {
    const live = this.live!;
    const abort = new AbortController();
    this.abort = abort;
    turn.status = 'streaming';
    const start = Date.now();
    let firstAny: number | undefined;
    let unsent: TooLong | undefined;
    // The session keeps the turn (answer, reasoning, usage, status) and saves it; this only renders.
    const apply = (e: SessionEvent) => {
      switch (e.type) {
        case 'compacted':
          this.push({ kind: 'notice', text: e.text, tone: 'info' });
          this.meterCache = undefined;
          break;
        case 'reasoning':
          firstAny ??= Date.now();
          if (live.phase === 'waiting') {
            live.phase = 'reasoning';
            live.reasoningStartedAt = Date.now();
          }
          live.retry = undefined;
          live.reasoning += sanitizeForTerminal(e.text);
          live.reasoningTokens++;
          break;
        case 'content':
          firstAny ??= Date.now();
          if (live.phase !== 'answer') {
            if (live.phase === 'reasoning') turn.reasoningMs = Date.now() - (live.reasoningStartedAt ?? start);
            this.foldReasoning(live, turn);
            live.phase = 'answer';
            turn.firstTokenMs = Date.now() - start;
          }
          live.retry = undefined;
          live.answerTail += sanitizeForTerminal(e.text);
          if (e.text.includes('\n')) this.moveFinishedParagraphs(live);
          break;
        case 'retry':
          live.retry = `${e.reason}; trying again in ${Math.ceil(e.delayMs / 1000)}s (attempt ${e.attempt + 1})`;
          break;
        default:
          break;
      }
    };
    try {
      for await (const e of this.session.send(turn, { signal: abort.signal, stream: true })) {
        const { phase, retry } = live;
        const printed = this.items.length;
        apply(e);
        const more = (e.type === 'content' || e.type === 'reasoning') && live.phase === phase && live.retry === retry;
        const paragraphs = () => this.items.slice(printed).every((i) => i.kind === 'answer');
        this.changed(!more ? 'any' : this.items.length === printed ? 'text' : paragraphs() ? 'paragraphs' : 'any');
      }
      turn.status = 'complete';
    } catch (err) {
      const e = toMedchatError(err);
      if (!turn.answer && !turn.reasoning) unsent = tooLong(e);
      turn.status = e.kind === 'interrupted' ? 'interrupted' : e.kind === 'incomplete' && turn.answer ? 'incomplete' : 'failed';
      if (turn.status !== 'interrupted') turn.error = e.message;
    } finally {
      this.abort = undefined;
    }
    if (unsent) return this.giveBack(turn, unsent);
    turn.durationMs = Date.now() - start;
    if (live.phase === 'reasoning') turn.reasoningMs = Date.now() - (live.reasoningStartedAt ?? start);
    this.foldReasoning(live, turn);
    const tail = live.answerTail.replace(/\s+$/, '');
    if (tail) this.push({ kind: 'answer', text: tail });
    const genMs = firstAny !== undefined ? Date.now() - firstAny : undefined;
    const tps = turn.usage && genMs && genMs > 0 ? turn.usage.completion_tokens / (genMs / 1000) : undefined;
    if (turn.status === 'complete') this.last = { firstTokenMs: turn.firstTokenMs, tokensPerSecond: tps, usage: turn.usage };
    this.push({
      kind: 'status',
      status: turn.status,
      error: turn.error && sanitizeForTerminal(turn.error),
      stats: turnStats(turn, tps),
    });
    this.live = undefined;
    this.meterCache = undefined;
    if (this.pendingRefresh) this.refresh();
    else this.changed();
  }

  /** A question that cannot be sent as it is: out of the conversation, back into the input box, and why. */
  private giveBack(turn: Turn, why: TooLong): void {
    const i = this.conversation.turns.lastIndexOf(turn);
    if (i >= 0) this.conversation.turns.splice(i, 1);
    this.session.saveNow();
    const where = this.returnDraft?.(turn.user) ? 'your question is back in the box' : 'your question is in the prompt history (Up)';
    this.push({ kind: 'notice', tone: 'error', text: sanitizeForTerminal(`✗ ${why.reason}\n${where}: ${why.advice}`) });
    this.live = undefined;
    this.meterCache = undefined;
    if (this.pendingRefresh) this.refresh();
    else this.changed();
  }
}

export function turnStats(
turn: Turn, tps: number | undefined): string {
  const parts: string[] = [];
  if (turn.durationMs !== undefined) parts.push(`${(turn.durationMs / 1000).toFixed(1)}s`);
  if (turn.firstTokenMs !== undefined) parts.push(`first token ${(turn.firstTokenMs / 1000).toFixed(1)}s`);
  if (tps !== undefined && Number.isFinite(tps)) parts.push(`${Math.round(tps)} tok/s`);
  if (turn.usage) parts.push(`${turn.usage.prompt_tokens} in · ${turn.usage.completion_tokens} out`);
  return parts.join(' · ');
}

export function defaultMeter(c: Conversation, s: Settings): Meter {
  const withUsage = [...c.turns].reverse().find((t) => t.usage);
  const used = withUsage?.usage ? withUsage.usage.prompt_tokens + withUsage.usage.completion_tokens : 0;
  return { used, window: s.contextWindow };
}

export type ChatActions = ChatController;
