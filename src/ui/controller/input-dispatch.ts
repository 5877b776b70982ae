import { toMedchatError } from '../../core/errors.js';
import { findCommand } from '../slash/index.js';
import type { ChatCommandHost, SlashCommand } from '../slash/types.js';
import type { AfterAnswer, QueuedLine } from './after-answer.js';
import { uiChatText } from '../../core/i18n/messages/ui-chat.js';

/** What the dispatcher needs of the chat screen. */
export interface DispatchHost {
  readonly commands: readonly SlashCommand[];
  readonly history: { add(line: string): void };
  /** An answer is streaming. */
  streaming(): boolean;
  /** A job (/retexture, /compact) holds the screen. */
  working(): boolean;
  /** The screen is closing: nothing new starts. */
  leaving(): boolean;
  ask(text: string): void;
  notice(text: string, tone?: 'info' | 'warn' | 'error'): void;
  changed(): void;
  /** What a command's `run` gets. */
  readonly commandHost: ChatCommandHost;
}

/**
 * What Enter does with a line: a slash command is run, a question is asked, and either is kept
 * in the prompt history. While an answer streams, a question and any command
 * but /new and /exit wait in the queue and go, in order, when the screen is free again; Esc takes
 * back the last one. While a job runs, a question or a command that needs the screen is refused.
 */
export class InputDispatch {
  constructor(
    private readonly host: DispatchHost,
    private readonly after: AfterAnswer,
  ) {}

  /** Returns false when nothing was done (the draft stays in the box). */
  submit(text: string): boolean {
    const trimmed = text.trim();
    if (!trimmed) return false;
    if (/^\/[\w-]*(\s|$)/.test(trimmed)) {
      this.host.history.add(trimmed);
      void this.runCommand(trimmed);
      return true;
    }
    if (this.host.working()) {
      this.host.notice(uiChatText.stillWorking, 'warn');
      return false;
    }
    this.host.history.add(text);
    if (this.host.streaming()) this.enqueue({ text, command: false });
    else this.host.ask(text);
    return true;
  }

  async runCommand(line: string): Promise<void> {
    const [, name = '', rest = ''] = /^\/(\S*)\s*([\s\S]*)$/.exec(line.trim()) ?? [];
    const cmd = findCommand(this.host.commands, name);
    if (!cmd) {
      this.host.notice(uiChatText.unknownCommand(name), 'warn');
      return;
    }
    // While an answer streams, a command runs when it ends (its output would land inside the
    // answer, and /tokens, /copy or /export would see half of it): only /new and /exit act at once.
    if (this.host.streaming() && !cmd.whileStreaming) return this.enqueue({ text: line.trim(), command: true });
    if (this.host.working() && cmd.idleOnly) {
      this.host.notice(uiChatText.waitsForCommand(cmd.name), 'warn');
      return;
    }
    try {
      await cmd.run(this.host.commandHost, rest.trim());
    } catch (err) {
      this.host.notice(toMedchatError(err).message, 'error');
    }
  }

  /** The screen is free: send the next queued question, or run the next queued command. */
  drain(): void {
    if (this.host.streaming() || this.host.working() || this.host.leaving()) return;
    const line = this.after.next();
    if (!line) return;
    this.host.changed();
    if (line.command) void this.runCommand(line.text).then(() => this.drain());
    else this.host.ask(line.text);
  }

  /** Esc: take back the last queued line; undefined when none was queued. */
  cancelLast(): QueuedLine | undefined {
    const line = this.after.cancelLast();
    if (line) this.host.changed();
    return line;
  }

  /** Forget the queue (the conversation changed, the answer failed), saying what was not sent. */
  dropQueued(why: string): void {
    const dropped = this.after.dropQueue();
    if (!dropped.length) return;
    const list = dropped.map((l) => `"${l.text.length > 60 ? `${l.text.slice(0, 59)}…` : l.text}"`).join(', ');
    this.host.notice(uiChatText.dropped(why, list, dropped.length), 'warn');
    this.host.changed();
  }

  private enqueue(line: QueuedLine): void {
    this.after.enqueue(line);
    this.host.changed();
  }
}
