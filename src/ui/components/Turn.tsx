import { Box, Text } from 'ink';
import { memo } from 'react';
import type { StaticItem } from '../controller/chat-controller.js';
import { SCREEN, itemLines } from '../text/printed-lines.js';
import { textWidth } from '../../core/text/width.js';

/**
 * One printed item of the transcript, printed once: its lines as printed-lines.ts lays them out
 * (the transcript viewer shows the same lines, the reasoning written out). A web address longer
 * than the width keeps a row of its own, uncut: Ink is given room for it (it would cut it again),
 * and the terminal wraps it, so copying or clicking it gets it whole.
 */
export const TranscriptItem = memo(function TranscriptItem({ item, width }: { item: StaticItem; width: number }) {
  const lines = itemLines(item, width, SCREEN);
  const widest = lines.reduce((w, l) => Math.max(w, textWidth(l)), width);
  const text = <Text>{lines.join('\n')}</Text>;
  return widest > width ? (
    <Box width={widest} flexShrink={0}>
      {text}
    </Box>
  ) : (
    text
  );
});
