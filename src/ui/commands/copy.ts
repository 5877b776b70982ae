import { copyWithTool, osc52 } from '../clipboard.js';
import type { SlashCommand } from './types.js';

export const copy: SlashCommand = {
  name: 'copy',
  help: 'copy the last answer to the clipboard',
  run(chat) {
    const answer = [...chat.conversation.turns].reverse().find((t) => t.answer)?.answer;
    if (!answer) return chat.notice('no answer to copy yet', 'warn');
    chat.rawWrite(osc52(answer));
    const tool = copyWithTool(answer);
    chat.notice(`copied the last answer (${answer.length} characters)${tool ? ` with ${tool}` : ' by OSC 52: if nothing arrived, your terminal may not allow it'}`);
  },
};
