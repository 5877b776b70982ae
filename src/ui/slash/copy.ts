import { codeBlocks } from '../../core/text/markdown/code-blocks.js';
import { copyText, describeCopy, systemClipboard } from './clipboard.js';
import { exportSourceFor, sessionToMarkdown } from '../../core/sessions/export.js';
import type { SlashCommand } from './types.js';
import { uiSlashText } from '../../core/i18n/messages/ui-slash.js';

/**
 * `/copy`: the last answer; `/copy code [N]`: its last (or Nth) fenced code block, exactly as the
 * service sent it (no wrapping marks, no colour, no closing newline); `/copy all`: the whole
 * conversation as Markdown (as /export writes it).
 */
export const copy: SlashCommand = {
  name: 'copy',
  args: '[code [N]|all]',
  get help() {
    return uiSlashText.copyHelp;
  },
  run(chat, args) {
    const m = /^(?:(code)(?:\s+(\S+))?|(all))?$/i.exec(args.trim());
    if (!m) return chat.notice(uiSlashText.copyUsage, 'warn');
    const send = (what: string, text: string, note = '') => {
      const r = describeCopy(what, text, copyText(text, systemClipboard((d) => chat.rawWrite(d))));
      chat.notice(r.text + note, r.tone);
    };
    if (m[3]) {
      if (chat.conversation.turns.length === 0) return chat.notice(uiSlashText.nothingToCopy, 'warn');
      return send(uiSlashText.theConversation, sessionToMarkdown(exportSourceFor(chat.session, chat.store), { reasoning: true }));
    }
    // With the privacy guard's redact mode, the answer as shown (the values put back), not as sent.
    const last = [...chat.conversation.turns].reverse().find((t) => t.answer);
    const answer = last && (last.privacy?.shown ?? last.answer);
    if (!answer) return chat.notice(uiSlashText.noAnswerToCopy, 'warn');
    if (!m[1]) return send(uiSlashText.theLastAnswer, answer);
    const blocks = codeBlocks(answer);
    if (blocks.length === 0) return chat.notice(uiSlashText.noCodeBlock, 'warn');
    const n = m[2] === undefined ? blocks.length : /^\d+$/.test(m[2]) ? Number(m[2]) : NaN;
    if (!(n >= 1 && n <= blocks.length)) {
      return chat.notice(uiSlashText.whichBlock(blocks.length), 'warn');
    }
    const block = blocks[n - 1]!;
    if (block.code === '') return chat.notice(uiSlashText.emptyBlock(n), 'warn');
    const what = uiSlashText.codeBlock(n, blocks.length, block.lang);
    send(what, block.code, block.closed ? '' : uiSlashText.unclosedBlock);
  },
};
