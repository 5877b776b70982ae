import { hitLines, searchSessions } from '../../core/sessions/search.js';
import type { SlashCommand } from './types.js';
import { uiSlashText } from '../../core/i18n/messages/ui-slash.js';

/** How many conversations `/sessions WORDS` shows (the newest that match). */
const SHOWN = 10;

export const sessions: SlashCommand = {
  name: 'sessions',
  args: '[words]',
  get help() {
    return uiSlashText.sessionsHelp;
  },
  run(chat, args) {
    const words = args.trim();
    if (!words) return chat.notice(chat.sessionsText());
    const width = chat.snapshot().columns;
    const result = searchSessions(chat.store, { words: [words], limit: SHOWN, excerptWidth: width });
    if (result.hits.length === 0) return chat.notice(uiSlashText.noneHolds(words.slice(0, 60)));
    const lines = [uiSlashText.holding(words.slice(0, 60))];
    for (const hit of result.hits) lines.push(...hitLines(hit, { width: width - 2 }));
    lines.push(result.more ? uiSlashText.moreHits(SHOWN) : uiSlashText.opensOne);
    chat.notice(lines.join('\n'));
  },
};
