import { Box, Text } from 'ink';
import type { StaticItem } from './chat-controller.js';
import { Markdown } from './Markdown.js';
import { ReasoningFold } from './Reasoning.js';
import { wrapText } from './text/width.js';
import { wrapAtSeparators } from './text/wrap-pieces.js';
import { DISCLAIMER } from './transcript-text.js';

/** One printed item of the transcript, printed once (the transcript viewer shows it again, reasoning and all: transcript-text.ts). */
export function TranscriptItem({ item, width }: { item: StaticItem; width: number }) {
  switch (item.kind) {
    case 'header':
      return (
        <Box flexDirection="column">
          <Text>
            <Text bold color="cyan">medchat {item.version}</Text>
            <Text dimColor> · {item.model} · {item.host}</Text>
            {item.role ? <Text color="magenta"> · role {item.role}</Text> : null}
          </Text>
          {item.disclaimer ? <Text dimColor>{wrapText(DISCLAIMER, width)}</Text> : null}
          <Text dimColor>{wrapText('Type a question and press Enter · /help for commands and keys', width)}</Text>
        </Box>
      );
    case 'user':
      return (
        <Box marginTop={1}>
          <Text color="cyan" bold>{'› '}</Text>
          <Text bold>{wrapText(item.text, width - 2)}</Text>
        </Box>
      );
    case 'reasoning':
      return (
        <Box marginTop={1}>
          <ReasoningFold ms={item.ms} tokens={item.tokens} />
        </Box>
      );
    case 'answer':
      return (
        <Box marginTop={1}>
          <Markdown text={item.text} width={width} />
        </Box>
      );
    case 'status':
      return <StatusLine item={item} width={width} />;
    case 'notice':
      return (
        <Box marginTop={1}>
          <Text color={item.tone === 'error' ? 'red' : item.tone === 'warn' ? 'yellow' : undefined} dimColor={item.tone === 'info'}>
            {item.breakAt ? wrapAtSeparators(item.text, item.breakAt, width, { indent: '  ', keepSeparator: true }).join('\n') : wrapText(item.text, width)}
          </Text>
        </Box>
      );
  }
}

function StatusLine({ item, width }: { item: Extract<StaticItem, { kind: 'status' }>; width: number }) {
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
          <Text color="yellow">{wrapText(`⚠ ${item.error ?? 'the answer is incomplete'}`, width, '  ')}</Text>
          <Text dimColor>/retry asks again</Text>
        </Box>
      );
    default:
      return (
        <Box marginTop={1} flexDirection="column">
          <Text color="red">{wrapText(`✗ ${item.error ?? 'the question failed'}`, width, '  ')}</Text>
          <Text dimColor>your question is kept: /retry sends it again</Text>
        </Box>
      );
  }
}
