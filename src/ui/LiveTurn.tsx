import { Box, Text } from 'ink';
import type { LiveTurn } from './chat-controller.js';
import { ThinkingBlock } from './Reasoning.js';
import { wrapPlain } from './text/markdown.js';
import { useElapsed } from './use-chat.js';

/** The turn that is streaming: waiting, then thinking, then the answer's unfinished paragraphs (plain text). */
export function LiveTurnView({ live, width, maxRows }: { live: LiveTurn; width: number; maxRows: number }) {
  const since = live.phase === 'reasoning' ? live.reasoningStartedAt : live.startedAt;
  const elapsed = useElapsed(since, live.phase !== 'answer');
  if (live.phase === 'waiting') {
    return (
      <Box marginTop={1} flexDirection="column">
        <Text dimColor>Waiting for the answer… {Math.floor(elapsed / 1000)}s</Text>
        {live.retry ? <Text color="yellow">{live.retry}</Text> : null}
      </Box>
    );
  }
  if (live.phase === 'reasoning') {
    return (
      <Box marginTop={1} flexDirection="column">
        <ThinkingBlock text={live.reasoning} elapsedMs={elapsed} width={width} />
      </Box>
    );
  }
  // Never taller than allowed: the controller moves finished paragraphs out; one huge paragraph
  // (or code block) is shown by its last rows until it is finished.
  const rows = wrapPlain(live.answerTail.replace(/^\n+/, ''), width).split('\n');
  const shown = rows.length > maxRows ? rows.slice(-maxRows) : rows;
  return (
    <Box marginTop={1}>
      <Text>{shown.join('\n')}</Text>
    </Box>
  );
}
