import { Box, Text } from 'ink';
import { memo } from 'react';
import { liveFigures } from '../controller/live-turn.js';
import type { LastStats, LiveTurn } from '../controller/screen-state.js';
import { formatDuration, formatTokens } from '../../core/text/format.js';
import { meterText, type Meter } from '../text/format.js';
import { useTurnSeconds } from './turn-seconds.js';
import { uiScreenText } from '../../core/i18n/messages/ui-screen.js';
import { textWidth } from '../../core/text/width.js';

/**
 * One line under the input: context used, thinking on/off and the last answer's figures; or,
 * while an answer streams, its live figures alone (elapsed, tokens, a stall sign): the next
 * request is not known until the answer ends (the meter comes back then, counting it), and the
 * line is rewritten below every finished paragraph, so it stays short. Then key hints (a transient
 * message such as "press Ctrl+C again to exit" has a row of its own, under it). `meter` is a prop
 * so the context module can supply it. Memoised: while an answer streams its props do not change, so React
 * skips it every frame; the live figures update on the turn clock's tick.
 */
export const Footer = memo(function Footer({
  meter,
  last,
  busy,
  pendingReprint,
  demo,
  thinking,
  live,
  width,
}: {
  meter: Meter;
  last?: LastStats;
  busy: boolean;
  pendingReprint?: boolean;
  /** `medchat demo`: a badge first, so a screenshot cannot pass for real output. */
  demo?: boolean;
  /** Whether the next question asks for reasoning first (follows /think). */
  thinking?: boolean;
  /** The streaming answer now (read on each tick, so the figures are fresh between frames). */
  live?: () => Readonly<LiveTurn> | undefined;
  /** The screen's width: the key hints shorten, then the last answer's figures go, before the line is cut. */
  width?: number;
}) {
  const m = meterText(meter);
  const streaming = busy ? live?.() : undefined;
  const parts: string[] = [];
  if (!busy) {
    if (last?.firstTokenMs !== undefined) parts.push(uiScreenText.firstToken(formatDuration(last.firstTokenMs)));
    if (last?.tokensPerSecond !== undefined && Number.isFinite(last.tokensPerSecond)) parts.push(`${Math.round(last.tokensPerSecond)} tok/s`);
    if (last?.usage) parts.push(uiScreenText.inOut(formatTokens(last.usage.prompt_tokens), formatTokens(last.usage.completion_tokens)));
  }
  let hints = busy ? uiScreenText.hintsBusy + (pendingReprint ? uiScreenText.reprintAfter : '') : uiScreenText.hintsIdle;
  if (!busy && width !== undefined) {
    // What always shows: the demo badge, the meter, thinking on/off, the bar; the padding is a cell each side.
    const fixed = (demo ? textWidth(uiScreenText.demoBadge) + 1 : 0) + textWidth(m.text) + (thinking !== undefined ? textWidth(uiScreenText.thinkingState(thinking)) : 0) + 3;
    const fits = (h: string, figures: string[]) => fixed + (figures.length ? 3 + textWidth(figures.join(' · ')) : 0) + textWidth(h) <= width - 2;
    const choices = [uiScreenText.hintsIdle, uiScreenText.hintsIdleMedium, uiScreenText.hintsIdleShort, '/help'];
    const chosen = choices.find((h) => fits(h, parts)) ?? choices.find((h) => fits(h, []));
    if (chosen && !fits(chosen, parts)) parts.length = 0;
    hints = chosen ?? hints;
  }
  return (
    <Box paddingX={1}>
      <Text wrap="truncate-end">
        {demo ? <Text inverse bold color="yellow">{uiScreenText.demoBadge}</Text> : null}
        {demo ? ' ' : null}
        {streaming ? null : <Text color={m.level === 'full' ? 'red' : m.level === 'warn' ? 'yellow' : 'green'}>{m.text}</Text>}
        {thinking !== undefined && !busy ? <Text dimColor>{uiScreenText.thinkingState(thinking)}</Text> : null}
        {streaming && live ? <LiveFigures live={live} /> : null}
        {parts.length ? <Text dimColor> · {parts.join(' · ')}</Text> : null}
        <Text dimColor> │ </Text>
        <Text dimColor>{hints}</Text>
      </Text>
    </Box>
  );
});

/**
 * `14s · 320 tokens`, then `no data for 12s` in yellow once the service has gone quiet. Re-read on
 * every tick of the turn clock (once a second, on the second), the same tick and the same second
 * as the waiting or thinking line above, so the two never disagree; the tokens are the ones
 * streamed by then.
 */
function LiveFigures({ live }: { live: () => Readonly<LiveTurn> | undefined }) {
  const seconds = useTurnSeconds();
  const l = live();
  if (!l) return null;
  const f = liveFigures(l, Date.now(), seconds);
  return (
    <Text>
      <Text dimColor>{f.text}</Text>
      {f.stall ? <Text color="yellow"> · {f.stall}</Text> : null}
    </Text>
  );
}
