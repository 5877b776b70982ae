import { Box, Text } from 'ink';
import { thinkingRows } from '../text/live-rows.js';
import { TurnSeconds } from './turn-seconds.js';
import { uiScreenText } from '../../core/i18n/messages/ui-screen.js';

/**
 * While reasoning streams: `Thinking… 8s` (the answer's seconds since it was sent, the footer's
 * clock) and its last few lines, in a block of fixed height. With `marker`, the frame writer draws
 * those lines (see LiveRows).
 */
export function ThinkingBlock({ text, width, marker }: { text: string; width: number; marker?: string }) {
  return (
    <Box flexDirection="column">
      <Text color="magenta">
        {uiScreenText.thinking} <TurnSeconds />
      </Text>
      {marker ? <Text>{marker}</Text> : <Text dimColor>{thinkingRows(text, width).map((l) => `  ${l}`).join('\n')}</Text>}
    </Box>
  );
}
