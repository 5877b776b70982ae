import chalk from 'chalk';
import { formatSeconds } from '../../core/text/format.js';
import type { LiveTurn } from '../controller/chat-controller.js';
import { answerBody, reasoningBody } from '../text/printed-lines.js';
import { uiScreenText } from '../../core/i18n/messages/ui-screen.js';

/**
 * The turn still streaming, as lines for the transcript viewer (Ctrl+O), below the printed items
 * (printed-lines.ts lays those out, as the screen prints them, the reasoning written out): its
 * reasoning so far in full, or the answer's unfinished part.
 */
export function liveLines(live: Readonly<LiveTurn>, width: number, now = Date.now()): string[] {
  const c = chalk;
  if (live.phase === 'waiting') return ['', c.dim(uiScreenText.waiting)];
  if (live.phase === 'reasoning') {
    const s = (now - (live.reasoningStartedAt ?? live.startedAt)) / 1000;
    return ['', c.magenta(`▾ ${uiScreenText.thinking} ${formatSeconds(s)}`), ...reasoningBody(live.reasoning, width)];
  }
  const tail = live.answerTail.trimEnd();
  return tail ? ['', ...answerBody(tail, width, false)] : [];
}
