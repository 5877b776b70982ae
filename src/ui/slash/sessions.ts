import { hitLines, searchSessions } from '../../core/sessions/search.js';
import type { SlashCommand } from './types.js';

/** How many conversations `/sessions WORDS` shows (the newest that match). */
const SHOWN = 10;

export const sessions: SlashCommand = {
  name: 'sessions',
  args: '[words]',
  help: 'list recent saved conversations; with words, the ones holding them all (case and accents ignored)',
  run(chat, args) {
    const words = args.trim();
    if (!words) return chat.notice(chat.sessionsText());
    const width = chat.snapshot().columns;
    const result = searchSessions(chat.store, { words: [words], limit: SHOWN, excerptWidth: width });
    if (result.hits.length === 0) return chat.notice(`no saved conversation holds all of: ${words.slice(0, 60)}`);
    const lines = [`Conversations holding ${words.slice(0, 60)}, newest first:`];
    for (const hit of result.hits) lines.push(...hitLines(hit, { width: width - 2 }));
    lines.push(result.more ? `(the ${SHOWN} newest shown; medchat sessions search lists more; /resume <id> opens one)` : '(/resume <id> opens one)');
    chat.notice(lines.join('\n'));
  },
};
