import { Box, Text } from 'ink';
import type { JobState } from '../controller/screen-state.js';
import { formatSeconds } from '../../core/text/format.js';
import { useElapsed } from './use-chat.js';
import { uiScreenText } from '../../core/i18n/messages/ui-screen.js';

/** The one live line of a running command (`/retexture`, `/compact`): updated in place, never a line per poll. */
export function JobLine({ job }: { job: JobState }) {
  const elapsed = useElapsed(job.startedAt, true);
  return (
    <Box marginTop={1}>
      <Text wrap="truncate-end">
        <Text color="cyan">◆ </Text>
        {job.label}
        <Text dimColor> · {formatSeconds(elapsed / 1000)} · {uiScreenText.escStopsWaiting}</Text>
      </Text>
    </Box>
  );
}
