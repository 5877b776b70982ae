import type { ChatController } from '../chat-controller.js';

/**
 * One slash command. Adding a command is one file exporting one of these, plus one line in
 * `index.ts`. `run` gets the chat controller (plain TS) and the text after the name.
 */
export interface SlashCommand {
  name: string;
  aliases?: string[];
  /** Shown after the name in /help and the hint list, e.g. "on|off". */
  args?: string;
  help: string;
  /** Refuse while an answer streams. */
  idleOnly?: boolean;
  run(chat: ChatController, args: string): void | Promise<void>;
}
