import { continueLine } from '../controller/session-items.js';
import { keyHelpRows, pasteHelp } from '../text/key-help.js';
import { textWidth, wrapLine } from '../../core/text/width.js';
import type { SlashCommand } from './types.js';
import { uiSlashText } from '../../core/i18n/messages/ui-slash.js';

export const help: SlashCommand = {
  name: 'help',
  aliases: ['?'],
  get help() {
    return uiSlashText.helpHelp;
  },
  run(chat) {
    const saved = chat.session.persistent
      ? continueLine(chat.session.id)
      : uiSlashText.notSaved;
    chat.notice(helpText(chat.commands, chat.snapshot().columns, saved));
  },
};

/** /help laid out for `width` columns: two columns, what wraps hangs under the second. */
function helpText(commands: readonly SlashCommand[], width: number, footer: string): string {
  width = Math.max(20, width);
  return [
    uiSlashText.commands,
    ...twoColumns(commands.map((c) => [`/${c.name}${c.args ? ` ${c.args}` : ''}`, c.help]), width),
    uiSlashText.keys,
    ...twoColumns(keyHelpRows().map((r) => [r.keys, r.does]), width),
    ...wrapLine(pasteHelp(), width),
    ...wrapLine(footer, width),
  ].join('\n');
}

const INDENT = 2;
const GAP = 2;

/**
 * Rows of `left  right`, the right column starting at one place and wrapping under itself. A left
 * text too wide for its column (at most 40% of the width) gets a line of its own.
 */
export function twoColumns(rows: ReadonlyArray<readonly [string, string]>, width: number): string[] {
  const limit = Math.max(8, Math.min(28, Math.floor(width * 0.4)));
  const left = Math.min(limit, Math.max(...rows.map(([l]) => (textWidth(l) <= limit ? textWidth(l) : 0))));
  const hang = ' '.repeat(INDENT + left + GAP);
  const out: string[] = [];
  for (const [l, r] of rows) {
    const w = textWidth(l);
    if (w > left) {
      out.push(...wrapLine(' '.repeat(INDENT) + l, width, ' '.repeat(INDENT + 2)));
      out.push(...wrapLine(hang + r, width, hang));
    } else {
      out.push(...wrapLine(' '.repeat(INDENT) + l + ' '.repeat(left - w + GAP) + r, width, hang));
    }
  }
  return out;
}
