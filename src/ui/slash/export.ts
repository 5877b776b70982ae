import path from 'node:path';
import { defaultExportName, exportSourceFor, formatForFile, renderExport, writeExport } from '../../core/sessions/export.js';
import type { SlashCommand } from './types.js';
import { uiSlashText } from '../../core/i18n/messages/ui-slash.js';

/**
 * `/export [file.md|file.json]`: the conversation with its reasoning, written by the exporter
 * `medchat sessions export --reasoning` uses, so the two files are the same byte for byte.
 */
export const exportCommand: SlashCommand = {
  name: 'export',
  args: '[file.md|file.json]',
  get help() {
    return uiSlashText.exportHelp;
  },
  run(chat, args) {
    if (chat.conversation.turns.length === 0) return chat.notice(uiSlashText.nothingToExport, 'warn');
    const file = path.resolve(args.trim() || defaultExportName());
    writeExport(file, renderExport(exportSourceFor(chat.session, chat.store), formatForFile(file), { reasoning: true }));
    chat.notice(uiSlashText.saved(file));
  },
};
