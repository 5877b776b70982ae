import { Box, Text } from 'ink';
import type { LiveTurn } from '../controller/screen-state.js';
import { ThinkingBlock } from './Reasoning.js';
import type { LiveRows } from '../frames/live-rows.js';
import { answerRows } from '../text/live-rows.js';
import { TurnSeconds } from './turn-seconds.js';
import { uiScreenText } from '../../core/i18n/messages/ui-screen.js';

/**
 * The turn that is streaming: waiting, then thinking, then the answer's unfinished paragraphs
 * (plain text). With `rows` (a frame writer is drawing the changing rows), the text is one marker
 * line here and React does not re-render as the text grows.
 */
export function LiveTurnView({ live, width, maxRows, rows }: { live: LiveTurn; width: number; maxRows: number; rows?: LiveRows }) {
  if (rows) {
    rows.width = width;
    rows.maxRows = maxRows;
  }
  // The seconds are the answer's, from when it was sent: the footer shows the same (one clock).
  if (live.phase === 'waiting') {
    return (
      <Box marginTop={1} flexDirection="column">
        <Text dimColor>
          {uiScreenText.waiting} <TurnSeconds />
        </Text>
        {live.retry ? <Text color="yellow">{live.retry}</Text> : null}
      </Box>
    );
  }
  if (live.phase === 'reasoning') {
    return (
      <Box marginTop={1} flexDirection="column">
        <ThinkingBlock text={live.reasoning} width={width} marker={rows?.marker} />
      </Box>
    );
  }
  // Never taller than allowed: the controller moves finished paragraphs out; one huge paragraph
  // (or code block) is shown by its last rows until it is finished.
  return (
    <Box marginTop={1}>
      <Text>{rows ? rows.marker : answerRows(live.answerTail, width, maxRows).join('\n')}</Text>
    </Box>
  );
}
