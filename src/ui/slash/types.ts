import type { Conversation } from '../../core/context/conversation.js';
import type { ActiveRole, RoleSettings } from '../../core/request/roles/active.js';
import type { ChatSession } from '../../core/sessions/chat-session.js';
import type { SessionStore } from '../../core/sessions/store.js';
import type { Settings } from '../../core/config/settings.js';
import type { ChatSnapshot } from '../controller/screen-state.js';

/**
 * What a slash command may use of the chat screen: a small interface, so the commands do not
 * depend on the controller that runs them (ChatController implements it; a test can too).
 */
export interface ChatCommandHost {
  readonly settings: Settings;
  readonly conversation: Conversation;
  readonly session: ChatSession;
  /** Where the session is saved (what `medchat sessions` reads). */
  readonly store: SessionStore;
  readonly commands: readonly SlashCommand[];
  /** The role in use (`-r`, `/role`); its `base` is what `/role off` restores. */
  readonly role: ActiveRole | undefined;
  /** What `/think` last set in this screen (undefined: never used); a role change keeps it. */
  readonly thinkingChoice: boolean | undefined;
  /** What the screen shows now (its width, for /help). */
  snapshot(): ChatSnapshot;
  /** Print a line in the transcript (after the streaming answer, if one streams). */
  notice(text: string, tone?: 'info' | 'warn' | 'error'): void;
  /** Write to the terminal as is (OSC 52). */
  rawWrite(data: string): void;
  requestExit(): void;
  /** The whole conversation with its reasoning, full screen (Ctrl+O). */
  openTranscript(): void;
  newConversation(): void | Promise<void>;
  resumeSession(ref: string): void;
  /** Ask the last question again; false when there is none. */
  retry(): boolean;
  compact(): Promise<void>;
  retexture(args: string): Promise<void>;
  setThinking(on: boolean): void;
  setMaxTokens(n: number): void;
  setSystem(text: string | undefined): void;
  setRole(role: ActiveRole | undefined, use: RoleSettings): void;
  sessionsText(): string;
  tokensText(): string;
}

/**
 * One slash command. Adding a command is one file exporting one of these, plus one line in
 * `index.ts`. `run` gets the chat screen's actions and the text after the name.
 */
export interface SlashCommand {
  name: string;
  aliases?: string[];
  /** Shown after the name in /help and the hint list, e.g. "on|off". */
  args?: string;
  help: string;
  /** Refused while a job (/retexture, /compact) runs. */
  idleOnly?: boolean;
  /**
   * Runs at once even while an answer streams (/new, /exit). Any other command typed then is
   * queued and runs when the answer ends, so its output follows the answer.
   */
  whileStreaming?: boolean;
  run(chat: ChatCommandHost, args: string): void | Promise<void>;
}
