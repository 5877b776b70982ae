import type { TokenBreakdown } from '../../core/context/context.js';
import type { Conversation, Turn } from '../../core/context/conversation.js';
import type { MedchatError } from '../../core/errors.js';
import type { ActiveRole, RoleSettings } from '../../core/request/roles/active.js';
import type { ChatSession } from '../../core/sessions/chat-session.js';
import { sanitizeForTerminal } from '../../core/text/sanitize.js';
import type { Settings } from '../../core/config/settings.js';
import { AfterAnswer } from './after-answer.js';
import { AnswerRunner } from './answer-stream.js';
import { pose } from '../../core/ask/ask.js';
import { configureAudit } from '../../core/audit/setup.js';
import { ContextMeter } from './context-meter.js';
import { JobRunner } from './job-runner.js';
import type { FinishedTurn, TurnOutcome } from './live-turn.js';
import { retextureJob } from './retexture-job.js';
import type { TurnClock } from './turn-clock.js';
import type { Change, ChatSnapshot, LastStats, LiveTurn, NewItem, StaticItem } from './screen-state.js';
import type { ControllerOptions } from './controller-options.js';
import { PrintedItems } from './printed-items.js';
import { InputDispatch } from './input-dispatch.js';
import { PrivacyGate, type GateHost } from './privacy-gate.js';
import type { KeyInfo, WarnDecision } from '../../core/privacy/warn-prompt.js';
import { SessionActions } from './session-actions.js';
import { PromptHistory } from './prompt-history.js';
import { continueLine, openingItems } from './session-items.js';
import { COMMANDS } from '../slash/index.js';
import { tooLong, type TooLong } from './too-long.js';
import type { ChatCommandHost, SlashCommand } from '../slash/types.js';
import type { SessionStore } from '../../core/sessions/store.js';
import { uiChatText } from '../../core/i18n/messages/ui-chat.js';

export type { ControllerOptions } from './controller-options.js';
export type { Change, ChatSnapshot, JobState, LastStats, LiveTurn, NewItem, PendingView, StaticItem } from './screen-state.js';

/**
 * The chat screen's state and actions, in plain TypeScript (no React): the one object App.tsx,
 * run-interactive and the slash commands talk to. It puts together the pieces that each do one
 * job (see the other files of src/ui/controller/): the live-turn reducer (stream events → screen state), the job runner
 * (/retexture, /compact), the session actions (new, resume, retry, system, think, max-tokens),
 * the context meter and what waits for the streaming answer to end (AfterAnswer); here they
 * meet the printed transcript, the redraws and the keys.
 * Components render `snapshot()`; `use-chat` subscribes and batches the redraws.
 */
export class ChatController implements ChatCommandHost {
  readonly settings: Settings;
  readonly history: PromptHistory;
  readonly commands: readonly SlashCommand[];
  private readonly actions: SessionActions;
  private readonly jobs: JobRunner;
  private readonly meter: ContextMeter;
  private readonly after = new AfterAnswer();
  private readonly answers: AnswerRunner;
  private readonly input: InputDispatch;
  private readonly privacy: PrivacyGate;
  private readonly printed = new PrintedItems();
  private showReasoning = false;
  private columns: number;
  private rows: number;
  private last: LastStats | undefined;
  private exitRequested = false;
  /** The session a question was last sent in: the one `medchat -c` continues after exit. */
  private saidIn: ChatSession | undefined;
  private listeners = new Set<(change: Change) => void>();
  private snap: ChatSnapshot | undefined;
  /** The input box takes back a question that was not sent (set by the screen); false when it is busy. */
  returnDraft: ((text: string) => boolean) | undefined;
  /** The role in use (`-r`, `/role`), shown in the header; its `base` is what `/role off` restores. */
  role: ActiveRole | undefined;

  constructor(
    settings: Settings,
    private readonly opts: ControllerOptions,
  ) {
    this.settings = { ...settings };
    this.role = opts.role;
    this.actions = new SessionActions(
      this.settings,
      {
        store: opts.store,
        incognito: opts.incognito,
        onSaveError: (err) => this.notice(uiChatText.notSaving(err.message), 'warn'),
        roleName: () => this.role?.name,
      },
      { system: opts.system, resume: opts.resume },
    );
    this.jobs = new JobRunner({ changed: () => this.changed(), ended: () => this.invalidateMeter(), notice: (text, tone) => this.notice(text, tone) });
    this.meter = new ContextMeter((draft) => this.actions.tokenBreakdown(draft));
    this.privacy = new PrivacyGate(opts.privacy, () => this.conversation.turns);
    // A failed audit write is said on the screen, not on stderr under it.
    configureAudit({ warn: (line) => this.notice(line, 'warn') });
    this.answers = new AnswerRunner({ step: (print, change) => this.answerStep(print, change), ended: (done, outcome, turn, error) => this.answerEnded(done, outcome, turn, error) });
    this.columns = opts.columns ?? 80;
    this.rows = opts.rows ?? 24;
    // Incognito or `history: off`: no prompt history file either.
    this.history = new PromptHistory(this.session.persistent ? opts.historyFile : undefined);
    this.commands = opts.commands ?? COMMANDS;
    this.input = new InputDispatch(
      {
        commands: this.commands,
        history: this.history,
        streaming: () => this.live !== undefined,
        working: () => this.jobs.state !== undefined,
        leaving: () => this.exitRequested,
        ask: (text) => this.ask(text),
        notice: (text, tone) => this.notice(text, tone),
        changed: () => this.changed(),
        commandHost: this,
      },
      this.after,
    );
    this.push(...openingItems({ version: opts.version, demo: opts.demo, settings, role: opts.role?.name }));
    this.role = opts.role;
    if (this.session.resumed) this.push(...this.actions.resumedItems());
  }

  get session(): ChatSession {
    return this.actions.session;
  }

  get conversation(): Conversation {
    return this.actions.conversation;
  }

  get store(): SessionStore {
    return this.actions.store;
  }

  /** Load the tokenizer (in the background, after the first paint): the meter is exact from then on. */
  async loadTokenizer(): Promise<void> {
    if (await SessionActions.loadTokenizer()) this.invalidateMeter();
  }

  // ---- sessions -----------------------------------------------------------------------------

  /** `/resume <id|prefix>`: open that session; its turns are printed below what is on screen. */
  resumeSession(ref: string): void {
    if (!this.actions.resume(ref)) return this.notice(uiChatText.alreadyOpen(this.session.id));
    this.sessionChanged();
    this.push(...this.actions.resumedItems());
    this.changed();
  }

  private sessionChanged(): void {
    this.privacy.reset();
    this.last = undefined;
    this.invalidateMeter();
  }

  /** `/sessions`: the recent saved sessions, laid out for the screen's width. */
  sessionsText(): string {
    return this.actions.sessionsText(this.columns);
  }

  /** The numbers behind `/tokens` and the footer meter (with the draft being typed). */
  tokenBreakdown(): TokenBreakdown {
    return this.meter.breakdown();
  }

  tokensText(): string {
    return this.actions.tokensText(this.meter.draft);
  }

  /** The text in the input box (the meter counts it as the next question). */
  setDraft(text: string): void {
    if (this.meter.setDraft(text) && !this.live) this.invalidateMeter();
  }

  private invalidateMeter(): void {
    this.meter.invalidate();
    this.changed();
  }

  /** `/compact`: summarise all but the last two exchanges now. */
  async compact(): Promise<void> {
    await this.runJob(uiChatText.summarising, async (signal) => this.notice(await this.actions.compact(signal)));
  }

  /** `/retexture <image> <prompt>`: submit, follow the task on one live line, then print the URL and a preview. */
  async retexture(args: string): Promise<void> {
    const host = {
      settings: this.settings,
      columns: this.columns,
      previewProtocol: this.opts.previewProtocol ?? 'blocks',
      pollMs: this.opts.retexturePollMs,
      print: (...items: NewItem[]) => {
        this.push(...items);
        this.changed();
      },
      runJob: (label: string, work: (signal: AbortSignal) => Promise<void>) => this.runJob(label, work),
      setJobLabel: (label: string) => this.jobs.setLabel(label),
    } as const;
    await retextureJob(host, args);
  }

  /** Run `work` as the screen's one job: a live line, Esc/Ctrl+C aborts it, failures become a notice. */
  private async runJob(label: string, work: (signal: AbortSignal) => Promise<void>): Promise<void> {
    if (this.busy) return this.notice(uiChatText.waitForJob, 'warn');
    await this.jobs.run(label, work);
  }

  /**
   * The line to print once the screen has closed: how to continue the conversation (`medchat -c`).
   * None when nothing was asked, in incognito or with history off, or when saving failed.
   */
  exitLine(): string | undefined {
    const s = this.saidIn;
    return s && s.persistent && !s.saveError && s.conversation.turns.length > 0 ? continueLine(s.id) : undefined;
  }

  /** On exit: stop what runs, wait (briefly) for the last save, flush the session. */
  async close(): Promise<void> {
    this.after.dropQueue();
    this.stopWork();
    const waits = [this.answers.running, this.jobs.running].filter(Boolean) as Promise<void>[];
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
    return this.answers.live;
  }

  /** The streaming answer's seconds (see turn-clock.ts): the waiting and thinking lines and the footer all read this one clock. */
  get clock(): TurnClock {
    return this.answers.clock;
  }

  private get live(): LiveTurn | undefined {
    return this.answers.live;
  }

  /**
   * The items printed after the first `n` (a snapshot's `items.length`), without a snapshot: what a
   * frame that only printed finished paragraphs draws, in the time it takes to draw them.
   */
  printedSince(n: number): StaticItem[] {
    return this.printed.since(n);
  }

  snapshot(): ChatSnapshot {
    this.snap ??= {
      items: this.printed.all,
      live: this.live,
      showReasoning: this.showReasoning,
      thinking: this.settings.thinking,
      maxTokens: this.settings.maxTokens,
      meter: this.meter.value(),
      last: this.last,
      columns: this.columns,
      rows: this.rows,
      exitRequested: this.exitRequested,
      job: this.jobs.state,
      pending: this.after.view(),
      demo: Boolean(this.opts.demo),
      role: this.role?.name,
      privacy: this.privacy.view,
    };
    return this.snap;
  }

  get busy(): boolean {
    return this.live !== undefined || this.jobs.state !== undefined || this.privacy.busy;
  }

  /** Resolves when the current answer (if any) has finished. */
  idle(): Promise<void> {
    return this.answers.running ?? Promise.resolve();
  }

  // ---- transcript ---------------------------------------------------------------------------

  private push(...items: NewItem[]): void {
    this.printed.push(...items);
  }

  /**
   * Print a line. While an answer streams it is held, and printed after the answer (never inside
   * it). `breakAt`: a long line is cut only where this separator stands.
   */
  notice(text: string, tone: 'info' | 'warn' | 'error' = 'info', breakAt?: string): void {
    const item: NewItem = { kind: 'notice', text: sanitizeForTerminal(text), tone, ...(breakAt ? { breakAt } : {}) };
    if (this.live) this.after.hold(item);
    else this.push(item);
    this.changed();
  }

  /**
   * Ctrl+L: draw the live region again, where it is. Nothing printed above it is ever erased or
   * printed again: the terminal keeps it, and reflows it on a resize.
   */
  refresh(): void {
    this.opts.redraw?.();
    this.changed();
  }

  /** Ctrl+O, /reasoning: the whole conversation with every answer's reasoning, in the transcript viewer. */
  openTranscript(): void {
    if (this.opts.openTranscript) this.opts.openTranscript();
    else this.notice(uiChatText.viewerNeedsTerminal, 'warn');
  }

  resize(columns: number, rows: number): void {
    if (columns === this.columns && rows === this.rows) return;
    // Only the live region is laid out again; what is printed, the terminal reflows itself.
    this.columns = columns;
    this.rows = rows;
    this.changed();
  }

  requestExit(): void {
    this.after.dropQueue();
    this.stopWork();
    this.exitRequested = true;
    this.changed();
  }

  // ---- input --------------------------------------------------------------------------------

  /** Enter: a slash command, or a question. Returns false when nothing was done (keep the draft). */
  submit(text: string): boolean {
    // What was typed is leaving the box: it is no longer "the next question" for the meter or /tokens.
    if (text.trim()) {
      this.meter.setDraft('');
      this.meter.invalidate();
    }
    return this.input.submit(text);
  }

  runCommand(line: string): Promise<void> {
    return this.input.runCommand(line);
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
    if (!this.privacy.active) return this.send(text);
    this.privacy.question(text, this.privacyHost);
  }

  /** What the privacy gate does on the screen (see privacy-gate.ts). */
  private readonly privacyHost: GateHost = {
    show: (typed) => this.push({ kind: 'user', text: sanitizeForTerminal(typed) }),
    notice: (text, tone, breakAt) => this.notice(text, tone, breakAt),
    send: (typed, d, shown) => this.send(typed, d, shown),
    giveBack: (text) => this.returnDraft?.(text) ?? false,
    changed: () => this.changed(),
  };

  get privacyAsking(): boolean {
    return this.privacy.asking;
  }

  /**
   * A key while the privacy line asks (Enter send anyway, r redact, e/Esc/Ctrl+C edit); false when
   * not asking. Other text (and a paste) is no choice: the input box says it was not typed.
   */
  privacyKey(input: string, info: KeyInfo, pasted = false): boolean {
    return this.privacy.key(input, info, this.privacyHost, pasted);
  }

  /**
   * Send a question through the question pipeline (core/ask): `typed` is shown; what goes on the
   * wire is the guard's decision when it had a say.
   */
  private send(typed: string, d?: Extract<WarnDecision, { do: 'send' }>, shown = false): void {
    const posed = d ? pose(this.session, d.question, this.privacy.guard) : pose(this.session, typed);
    this.meter.invalidate();
    if (!shown) this.push({ kind: 'user', text: sanitizeForTerminal(typed) });
    this.saidIn = this.session;
    this.answers.start(posed);
    this.changed();
  }

  /** `/retry`: ask the last question again (replacing its answer). */
  retry(): boolean {
    if (this.busy) return false;
    const question = this.actions.takeLastQuestion();
    if (question === undefined) return false;
    this.ask(question);
    return true;
  }

  /**
   * Esc or Ctrl+C: take back the last queued question or command if there is one; else stop the
   * running job, or close the answer's request (the partial answer stays, marked interrupted).
   */
  stop(): boolean {
    return this.takeBack() !== undefined || this.stopWork();
  }

  /**
   * Esc or Ctrl+C with lines queued: the last one is taken back, into the input box if it is empty
   * (`inBox`), else it stays in the prompt history (Up). Undefined when nothing was queued.
   */
  takeBack(): { text: string; inBox: boolean } | undefined {
    const taken = this.input.cancelLast();
    if (!taken) return undefined;
    return { text: taken.text, inBox: this.returnDraft?.(taken.text) ?? false };
  }

  private stopWork(): boolean {
    return this.jobs.stop() || this.answers.stop();
  }

  /**
   * `/new`: start over. A streaming answer is stopped and closed out under the old conversation
   * first (what was queued behind it is not sent), then the new one starts.
   */
  async newConversation(): Promise<void> {
    this.input.dropQueued(uiChatText.notSent);
    this.stopWork();
    if (this.answers.running || this.jobs.running) await Promise.all([this.answers.running, this.jobs.running]);
    this.actions.startNew();
    this.sessionChanged();
    this.notice(this.actions.newConversationLine());
  }

  /** What `/think` last set in this screen (undefined: never used): a role change keeps it (see slash/role.ts). */
  thinkingChoice: boolean | undefined;

  setThinking(on: boolean): void {
    this.thinkingChoice = on;
    this.actions.setThinking(on);
    this.printed.patchHeader({ thinking: on });
    this.changed();
  }

  /** `/role`: use what a role sets (worked out in core/request/roles/active.ts), or `role` undefined to go back. The printed header stays as it was (nothing is reprinted); the transcript viewer's shows the role. */
  setRole(role: ActiveRole | undefined, use: RoleSettings): void {
    this.role = role;
    Object.assign(this.settings, { thinking: use.thinking, maxTokens: use.maxTokens, temperature: use.temperature });
    this.actions.setSystem(use.system);
    this.printed.patchHeader({ role: role?.name, thinking: use.thinking });
    this.invalidateMeter();
  }

  setMaxTokens(n: number): void {
    this.actions.setMaxTokens(n);
    this.invalidateMeter();
  }

  setSystem(text: string | undefined): void {
    this.actions.setSystem(text);
    this.invalidateMeter();
  }

  private answerStep(print: NewItem[], change: Change): void {
    if (print.length) this.push(...print);
    if (print.some((i) => i.kind === 'notice')) this.meter.invalidate(); // earlier turns were summarised
    this.changed(change);
  }

  /** The answer ended: its last lines, then what waited for it (held lines, then the queue). */
  private answerEnded(done: FinishedTurn, outcome: TurnOutcome, turn: Turn, error: MedchatError | undefined): void {
    // The footer shows this answer's figures, or none (never an older answer's beside "interrupted").
    this.last = done.last;
    const unsent = error && !turn.answer && !turn.reasoning ? tooLong(error) : undefined;
    if (unsent) this.push(this.giveBack(turn, unsent), ...this.after.release());
    else this.push(...done.print, ...this.after.release());
    this.meter.invalidate();
    if (outcome.status === 'failed') this.input.dropQueued(uiChatText.notSentFailed);
    this.changed();
    this.input.drain();
  }

  /** A question that cannot be sent as it is: out of the conversation, back into the input box, and why. */
  private giveBack(turn: Turn, why: TooLong): NewItem {
    const i = this.conversation.turns.lastIndexOf(turn);
    if (i >= 0) this.conversation.turns.splice(i, 1);
    this.session.saveNow();
    const where = this.returnDraft?.(turn.user) ? uiChatText.backInBox : uiChatText.inHistory;
    return { kind: 'notice', tone: 'error', text: sanitizeForTerminal(`✗ ${why.reason}\n${where}: ${why.advice}`) };
  }
}
