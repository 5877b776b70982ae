import { Box, Text } from 'ink';
import type { StaticItem } from './chat-controller.js';
import { Markdown } from './Markdown.js';
import { ReasoningBlock } from './Reasoning.js';

export const DISCLAIMER = 'medchat gives information, not a diagnosis. For medical decisions see a clinician; in an emergency call your local emergency number.';

/** One printed item of the transcript. Printed once; reprinted only on a fold toggle or a resize. */
export function TranscriptItem({ item, showReasoning, width }: { item: StaticItem; showReasoning: boolean; width: number }) {
  switch (item.kind) {
    case 'header':
      return (
        <Box flexDirection="column">
          <Text>
            <Text bold color="cyan">medchat {item.version}</Text>
            <Text dimColor> · {item.model} · {item.host}</Text>
          </Text>
          {item.disclaimer ? <Text dimColor>{DISCLAIMER}</Text> : null}
          <Text dimColor>Type a question and press Enter · /help for commands and keys</Text>
        </Box>
      );
    case 'user':
      return (
        <Box marginTop={1}>
          <Text color="cyan" bold>{'› '}</Text>
          <Text bold>{item.text}</Text>
        </Box>
      );
    case 'reasoning':
      return (
        <Box marginTop={1}>
          <ReasoningBlock text={item.text} ms={item.ms} tokens={item.tokens} open={showReasoning} width={width} />
        </Box>
      );
    case 'answer':
      return (
        <Box marginTop={1}>
          <Markdown text={item.text} width={width} />
        </Box>
      );
    case 'status':
      return <StatusLine item={item} />;
    case 'notice':
      return (
        <Box marginTop={1}>
          <Text color={item.tone === 'error' ? 'red' : item.tone === 'warn' ? 'yellow' : undefined} dimColor={item.tone === 'info'}>
            {item.text}
          </Text>
        </Box>
      );
  }
}

function StatusLine({ item }: { item: Extract<StaticItem, { kind: 'status' }> }) {
  const stats = item.stats ? <Text dimColor>{item.stats}</Text> : null;
  switch (item.status) {
    case 'complete':
      return <Box marginTop={1}>{stats}</Box>;
    case 'interrupted':
      return (
        <Box marginTop={1}>
          <Text color="yellow">■ interrupted </Text>
          <Text dimColor>· /retry asks again</Text>
        </Box>
      );
    case 'incomplete':
      return (
        <Box marginTop={1} flexDirection="column">
          <Text color="yellow">⚠ {item.error ?? 'the answer is incomplete'}</Text>
          <Text dimColor>/retry asks again</Text>
        </Box>
      );
    default:
      return (
        <Box marginTop={1} flexDirection="column">
          <Text color="red">✗ {item.error ?? 'the question failed'}</Text>
          <Text dimColor>your question is kept: /retry sends it again</Text>
        </Box>
      );
  }
}
