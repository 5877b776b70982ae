/**
 * The slash commands in screen-reader mode: every command of the chat screen, with three that speak
 * instead of drawing. /reasoning reads the last answer's reasoning as lines (the chat screen opens
 * the full-screen viewer); /help lists the commands and this mode's keys; /status (this mode's own)
 * says what the chat screen's footer shows: the model, the context window used, the session.
 */
import { screenReaderText as t } from '../../core/i18n/messages/ui-screen-reader.js';
import { formatTokens, formatWindow } from '../../core/text/format.js';
import { continueLine } from '../controller/session-items.js';
import { COMMANDS } from '../slash/index.js';
import { help as screenHelp } from '../slash/help.js';
import type { ChatCommandHost, SlashCommand } from '../slash/types.js';
import { wholeSeconds } from './linear-lines.js';

const reasoning: SlashCommand = {
  name: 'reasoning',
  help: t.reasoningHelp,
  run(chat) {
    const turn = [...chat.conversation.turns].reverse().find((x) => x.reasoning.trim());
    if (!turn) return chat.notice(t.noReasoning);
    chat.notice([t.reasoningOf(wholeSeconds(turn.reasoningMs ?? 0)), ...turn.reasoning.trim().split('\n').filter((l) => l.trim()), t.reasoningEnd].join('\n'));
  },
};

const status: SlashCommand = {
  name: 'status',
  help: t.statusHelp,
  whileStreaming: true,
  run(chat) {
    chat.notice(statusText(chat));
  },
};

/** What /status says: the model and reasoning, the context window used, an answer being written, the session. */
export function statusText(chat: ChatCommandHost): string {
  const snap = chat.snapshot();
  const m = snap.meter;
  const percent = m.window > 0 ? Math.round((m.used / m.window) * 100) : 0;
  return [
    t.status(chat.settings.model, formatTokens(m.used), formatWindow(m.window), percent, snap.thinking),
    ...(snap.live ? [t.streaming] : []),
    chat.session.persistent ? t.sessionSaved(chat.session.id) : t.sessionNotSaved,
  ].join('\n');
}

const help: SlashCommand = {
  ...screenHelp,
  run(chat) {
    const saved = chat.session.persistent ? continueLine(chat.session.id) : t.sessionNotSaved;
    const list = chat.commands.map((c) => `/${c.name}${c.args ? ` ${c.args}` : ''}: ${c.help}`);
    chat.notice([t.helpCommands, ...list, t.helpKeys, saved].join('\n'));
  },
};

const OWN: Record<string, SlashCommand> = { reasoning, help };

/** The chat screen's commands, in its order, /reasoning and /help spoken, and /status before /exit. */
export const LINEAR_COMMANDS: readonly SlashCommand[] = COMMANDS.flatMap((c) => (c.name === 'exit' ? [status, c] : [OWN[c.name] ?? c]));
