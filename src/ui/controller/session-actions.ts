import type { TokenBreakdown } from '../../core/context/context.js';
import type { Conversation, Turn } from '../../core/context/conversation.js';
import type { MedchatError } from '../../core/errors.js';
import { sanitizeForTerminal } from '../../core/text/sanitize.js';
import { ChatSession } from '../../core/sessions/chat-session.js';
import { SessionStore } from '../../core/sessions/store.js';
import type { Settings } from '../../core/config/settings.js';
import { breakdownText, itemsForTurns, resumedLine, sessionListText } from './session-items.js';
import { statsText } from './live-turn.js';
import type { NewItem } from './screen-state.js';
import { uiChatText } from '../../core/i18n/messages/ui-chat.js';

interface SessionActionsOptions {
  store?: SessionStore;
  /** Write nothing: no session file. */
  incognito?: boolean;
  /** The first failure to save (said once per screen, however many sessions it opens). */
  onSaveError(err: MedchatError): void;
  /** The role in use, recorded in each new conversation (`sessions search --role`). */
  roleName?: () => string | undefined;
}

/**
 * The open conversation and what can be done to it outside of asking: start a new one, resume a
 * saved one, retry the last question, set the system prompt, thinking and max_tokens, summarise
 * now, and the numbers behind /tokens and /sessions. No screen: the caller prints and redraws.
 * `settings` is shared with every session it opens, so /think and /max-tokens reach the next request.
 */
export class SessionActions {
  readonly store: SessionStore;
  session: ChatSession;
  private saveErrorShown = false;

  constructor(
    readonly settings: Settings,
    private readonly opts: SessionActionsOptions,
    first: { system?: string; resume?: string },
  ) {
    this.store = opts.store ?? new SessionStore();
    this.session = this.open(first);
  }

  get conversation(): Conversation {
    return this.session.conversation;
  }

  private open(o: { system?: string; resume?: string; listWith?: string }): ChatSession {
    const s = ChatSession.open(this.settings, { system: o.system, resume: o.resume, incognito: this.opts.incognito, store: this.store, listWith: o.listWith, role: this.opts.roleName?.() });
    s.onSaveError = (err) => {
      if (this.saveErrorShown) return;
      this.saveErrorShown = true;
      this.opts.onSaveError(err);
    };
    return s;
  }

  private use(s: ChatSession): void {
    this.session.close();
    this.session = s;
  }

  /** `/resume`: open that saved session; false when it is the one already open. An unknown one points to `/sessions`. */
  resume(ref: string): boolean {
    const s = this.open({ resume: ref, listWith: '/sessions' });
    if (s.id === this.session.id) return false;
    this.use(s);
    return true;
  }

  /** `/new`: a new conversation with the same system prompt and settings. */
  startNew(): void {
    this.use(this.open({ system: this.conversation.system }));
  }

  /** What a resumed session prints: which session it is, then its turns as they were printed. */
  resumedItems(): NewItem[] {
    const s = this.session;
    return [{ kind: 'notice', tone: 'info', text: sanitizeForTerminal(resumedLine(s)) }, ...itemsForTurns(s.conversation.turns, s.compactions, savedTurnStats)];
  }

  /** The line that says a new conversation started. */
  newConversationLine(): string {
    return uiChatText.newConversation(this.session.persistent ? this.session.id : undefined);
  }

  /** `/retry`: take the last turn off the conversation and return its question (undefined: nothing to retry). */
  takeLastQuestion(): string | undefined {
    const last = this.conversation.lastTurn;
    if (!last) return undefined;
    this.conversation.turns.pop();
    return last.user;
  }

  setSystem(text: string | undefined): void {
    this.conversation.system = text?.trim() ? text : undefined;
    this.session.saveNow();
  }

  setThinking(on: boolean): void {
    this.settings.thinking = on;
  }

  setMaxTokens(n: number): void {
    this.settings.maxTokens = n;
  }

  /** `/compact`: the line to print (what was summarised, or why nothing was). */
  async compact(signal: AbortSignal): Promise<string> {
    const r = await this.session.compactNow({ signal });
    return r ? r.text : uiChatText.nothingToSummarise;
  }

  /** `/sessions`: the recent saved sessions, laid out for `width` columns. */
  sessionsText(width?: number): string {
    const list = this.store.list();
    const note = this.session.persistent ? '' : uiChatText.listNotSaved;
    return sessionListText(list, this.session.persistent ? this.session.id : undefined, width) + note;
  }

  /** The numbers behind `/tokens` and the footer meter, with `draft` as the next question. */
  tokenBreakdown(draft: string): TokenBreakdown {
    return this.session.tokenBreakdown(draft);
  }

  tokensText(draft: string): string {
    return breakdownText(this.tokenBreakdown(draft));
  }

  /** Load the tokenizer so the counts are exact; false when it could not be loaded. */
  static async loadTokenizer(): Promise<boolean> {
    try {
      await ChatSession.loadTokenizer();
      return true;
    } catch {
      return false; // the rough count stays
    }
  }
}

/** The stats line of a turn read back from a session file. */
function savedTurnStats(t: Turn): string {
  return statsText({ durationMs: t.durationMs, firstTokenMs: t.firstTokenMs, usage: t.usage });
}
