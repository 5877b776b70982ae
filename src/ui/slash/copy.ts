import { codeBlocks } from '../../core/text/markdown/code-blocks.js';
import { copyText, describeCopy, systemClipboard } from './clipboard.js';
import { exportSourceFor, sessionToMarkdown } from '../../core/sessions/export.js';
import type { SlashCommand } from './types.js';

/**
 * `/copy`: the last answer; `/copy code [N]`: its last (or Nth) fenced code block, exactly as the
 * service sent it (no wrapping marks, no colour, no closing newline); `/copy all`: the whole
 * conversation as Markdown (as /export writes it).
 */
export const copy: SlashCommand = {
  name: 'copy',
  args: '[code [N]|all]',
  help: 'copy the last answer, its last (or Nth) code block, or the whole conversation',
  run(chat, args) {
    const m = /^(?:(code)(?:\s+(\S+))?|(all))?$/i.exec(args.trim());
    if (!m) return chat.notice('/copy takes nothing (the last answer), code [N] (a code block of it) or all (the conversation)', 'warn');
    const send = (what: string, text: string, note = '') => {
      const r = describeCopy(what, text, copyText(text, systemClipboard((d) => chat.rawWrite(d))));
      chat.notice(r.text + note, r.tone);
    };
    if (m[3]) {
      if (chat.conversation.turns.length === 0) return chat.notice('nothing to copy yet', 'warn');
      return send('the conversation as Markdown', sessionToMarkdown(exportSourceFor(chat.session, chat.store), { reasoning: true }));
    }
    // With the privacy guard's redact mode, the answer as shown (the values put back), not as sent.
    const last = [...chat.conversation.turns].reverse().find((t) => t.answer);
    const answer = last && (last.privacy?.shown ?? last.answer);
    if (!answer) return chat.notice('no answer to copy yet', 'warn');
    if (!m[1]) return send('the last answer', answer);
    const blocks = codeBlocks(answer);
    if (blocks.length === 0) return chat.notice('the last answer has no code block; /copy copies the whole answer', 'warn');
    const n = m[2] === undefined ? blocks.length : /^\d+$/.test(m[2]) ? Number(m[2]) : NaN;
    if (!(n >= 1 && n <= blocks.length)) {
      const which = blocks.length === 1 ? '/copy code 1' : `/copy code 1 to ${blocks.length}`;
      return chat.notice(`the last answer has ${blocks.length} code block${blocks.length === 1 ? '' : 's'}: ${which}`, 'warn');
    }
    const block = blocks[n - 1]!;
    if (block.code === '') return chat.notice(`code block ${n} of the last answer is empty`, 'warn');
    const what = `code block ${n} of ${blocks.length}${block.lang ? ` (${block.lang})` : ''}`;
    send(what, block.code, block.closed ? '' : ' (the answer ended before the block was closed)');
  },
};
