import { Box, Text } from 'ink';
import { memo } from 'react';
import type { LastStats } from './chat/screen-state.js';
import { formatSeconds, meterText, type Meter } from './text/format.js';

/**
 * One line under the input: context used, the last answer's speed, and key hints (or a transient
 * message such as "press Ctrl+C again to exit"). `meter` is a prop so the context module can supply it.
 * Memoised: while an answer streams its props do not change, so React skips it every frame.
 */
export const Footer = memo(function Footer({
  meter,
  last,
  busy,
  message,
  pendingReprint,
  demo,
}: {
  meter: Meter;
  last?: LastStats;
  busy: boolean;
  message?: string;
  pendingReprint?: boolean;
  /** `medchat demo`: a badge first, so a screenshot cannot pass for real output. */
  demo?: boolean;
}) {
  const m = meterText(meter);
  const parts: string[] = [];
  if (last?.firstTokenMs !== undefined) parts.push(`first token ${formatSeconds(last.firstTokenMs)}`);
  if (last?.tokensPerSecond !== undefined && Number.isFinite(last.tokensPerSecond)) parts.push(`${Math.round(last.tokensPerSecond)} tok/s`);
  if (last?.usage) parts.push(`${last.usage.prompt_tokens} in · ${last.usage.completion_tokens} out`);
  const hints = busy ? 'Esc stop' + (pendingReprint ? ' · reprint after this answer' : '') : 'Enter send · Ctrl+J new line · Ctrl+O reasoning · /help';
  return (
    <Box paddingX={1}>
      <Text wrap="truncate-end">
        {demo ? <Text inverse bold color="yellow"> demo </Text> : null}
        {demo ? ' ' : null}
        <Text color={m.level === 'full' ? 'red' : m.level === 'warn' ? 'yellow' : 'green'}>{m.text}</Text>
        {parts.length ? <Text dimColor> · {parts.join(' · ')}</Text> : null}
        <Text dimColor> │ </Text>
        {message ? <Text color="yellow">{message}</Text> : <Text dimColor>{hints}</Text>}
      </Text>
    </Box>
  );
});
