import type { ChatEvent, Usage } from '../core/chat-events.js';
import { streamChat } from '../core/chat-client.js';
import { Conversation, type Turn, type TurnStatus } from '../core/conversation.js';
import { toMedchatError } from '../core/errors.js';
import { sanitizeForTerminal } from '../core/sanitize.js';
import type { Settings } from '../core/settings.js';
import type { Meter } from './text/format.js';
import { lastSafeSplit } from './text/split.js';
import { rowsFor } from './text/width.js';
import { PromptHistory } from './prompt-history.js';
import { COMMANDS, findCommand, type SlashCommand } from './commands/index.js';

/**
 * The chat screen's state and actions, in plain TypeScript (no React): it owns the conversation,
 * runs each request through core's `streamChat`, and turns its events into what the screen shows.
 * Components render `snapshot()`; `use-chat` subscribes and batches the redraws.
 *
 * What is printed once (Ink `<Static>`) is `items`, append-only. The streaming turn lives in
 * `live`; as its answer grows past the live limit, finished paragraphs move into `items`.
 */
export type StaticItem =
  | { id: string; kind: 'header'; version: string; model: string; thinking: boolean; host: string; disclaimer: boolean }
  | { id: string; kind: 'user'; text: string }
  | { id: string; kind: 'reasoning'; text: string; ms: number; tokens: number }
  | { id: string; kind: 'answer'; text: string }
  | { id: string; kind: 'status'; status: TurnStatus; error?: string; stats?: string }
  | { id: string; kind: 'notice'; text: string; tone: 'info' | 'warn' | 'error' };

type DistributiveOmit<T, K extends keyof T> = T extends unknown ? Omit<T, K> : never;
type NewItem = DistributiveOmit<StaticItem, 'id'>;

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
}

export interface ControllerOptions {
  system?: string;
  version: string;
  columns?: number;
  rows?: number;
  /** Raw writes to the terminal (screen clear before a reprint, OSC 52). */
  write?: (data: string) => void;
  /** Prompt history file; undefined keeps history in memory only. */
  historyFile?: string;
  /** The footer's context meter. Default: the last answer's prompt + completion tokens against the window. */
  contextMeter?: (c: Conversation, s: Settings) => Meter;
  /** Opens the draft in $VISUAL/$EDITOR; returns the edited text, or undefined. */
  openEditor?: (draft: string) => string | undefined;
  commands?: readonly SlashCommand[];
}

/** The clear used before a reprint: screen, scrollback, cursor home. Never sent while an answer streams. */
export const CLEAR_SCREEN = '\x1b[2J\x1b[3J\x1b[H';

let itemSeq = 0;
const nextId = () => `i${++itemSeq}`;

export class ChatController {
  readonly settings: Settings;
  conversation: Conversation;
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
  private listeners = new Set<() => void>();
  private snap: ChatSnapshot | undefined;

  constructor(
    settings: Settings,
    private readonly opts: ControllerOptions,
  ) {
    this.settings = { ...settings };
    this.conversation = new Conversation(opts.system);
    this.columns = opts.columns ?? 80;
    this.rows = opts.rows ?? 24;
    this.history = new PromptHistory(opts.historyFile);
    this.commands = opts.commands ?? COMMANDS;
    this.items.push({
      id: nextId(),
      kind: 'header',
      version: opts.version,
      model: settings.model,
      thinking: settings.thinking,
      host: hostOf(settings.baseUrl),
      disclaimer: settings.disclaimer,
    });
  }

  // ---- subscription -------------------------------------------------------------------------

  subscribe(fn: () => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private changed(): void {
    this.snap = undefined;
    for (const fn of this.listeners) fn();
  }

  snapshot(): ChatSnapshot {
    this.snap ??= {
      items: this.items,
      epoch: this.epoch,
      live: this.live && { ...this.live },
      showReasoning: this.showReasoning,
      thinking: this.settings.thinking,
      maxTokens: this.settings.maxTokens,
      meter: (this.opts.contextMeter ?? defaultMeter)(this.conversation, this.settings),
      last: this.last,
      columns: this.columns,
      rows: this.rows,
      exitRequested: this.exitRequested,
    };
    return this.snap;
  }

  get busy(): boolean {
    return this.live !== undefined;
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

  /** Reprint the whole transcript (after a fold toggle or a resize). Waits for a streaming answer to end. */
  refresh(): void {
    if (this.live) {
      this.pendingRefresh = true;
      this.changed();
      return;
    }
    this.pendingRefresh = false;
    this.opts.write?.(CLEAR_SCREEN);
    this.epoch++;
    this.changed();
  }

  toggleReasoning(): void {
    this.showReasoning = !this.showReasoning;
    this.refresh();
  }

  get reasoningShown(): boolean {
    return this.showReasoning;
  }

  resize(columns: number, rows: number): void {
    if (columns === this.columns && rows === this.rows) return;
    const widthChanged = columns !== this.columns;
    this.columns = columns;
    this.rows = rows;
    if (widthChanged) this.refresh();
    else this.changed();
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
    if (/^\/[\w-]*(\s|$)/.test(trimmed)) {
      this.history.add(trimmed);
      void this.runCommand(trimmed);
      return true;
    }
    if (this.busy) {
      this.notice('an answer is still streaming: wait for it, or press Esc to stop it', 'warn');
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
    // The editor drew over the screen: reprint what was there.
    this.refresh();
    return out;
  }

  rawWrite(data: string): void {
    this.opts.write?.(data);
  }

  // ---- asking -------------------------------------------------------------------------------

  ask(text: string): void {
    const turn = this.conversation.addTurn(text);
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
    if (!this.abort || this.abort.signal.aborted) return false;
    this.abort.abort();
    return true;
  }

  newConversation(): void {
    this.stop();
    this.conversation = new Conversation(this.conversation.system);
    this.last = undefined;
    this.notice('new conversation: earlier turns will not be sent');
  }

  setThinking(on: boolean): void {
    this.settings.thinking = on;
    this.changed();
  }

  setMaxTokens(n: number): void {
    this.settings.maxTokens = n;
    this.changed();
  }

  setSystem(text: string | undefined): void {
    this.conversation.system = text?.trim() ? text : undefined;
    this.changed();
  }

  private liveLimit(): number {
    // Rows the streaming answer may use: the terminal less the input, footer and margins, and at
    // most 16 so each move into the transcript rewrites little.
    return Math.max(3, Math.min(this.rows - 10, 16));
  }

  private moveFinishedParagraphs(live: LiveTurn): void {
    if (rowsFor(live.answerTail, this.columns) <= this.liveLimit()) return;
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
    const apply = (e: ChatEvent) => {
      switch (e.type) {
        case 'reasoning':
          firstAny ??= Date.now();
          turn.reasoning += e.text;
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
          turn.answer += e.text;
          live.answerTail += sanitizeForTerminal(e.text);
          this.moveFinishedParagraphs(live);
          break;
        case 'usage':
          turn.usage = e.usage;
          break;
        case 'retry':
          live.retry = `${e.reason}; trying again in ${Math.ceil(e.delayMs / 1000)}s (attempt ${e.attempt + 1})`;
          break;
        default:
          break;
      }
    };
    try {
      for await (const e of streamChat(this.settings, this.conversation.toWireMessages(turn), { signal: abort.signal })) {
        apply(e);
        this.changed();
      }
      turn.status = 'complete';
    } catch (err) {
      const e = toMedchatError(err);
      turn.status = e.kind === 'interrupted' ? 'interrupted' : e.kind === 'incomplete' && turn.answer ? 'incomplete' : 'failed';
      if (turn.status !== 'interrupted') turn.error = e.message;
    } finally {
      this.abort = undefined;
    }
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
    if (this.pendingRefresh) this.refresh();
    else this.changed();
  }
}

export function turnStats(turn: Turn, tps: number | undefined): string {
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

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

export type ChatActions = ChatController;
