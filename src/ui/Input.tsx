import { Box, Text } from 'ink';
import { memo } from 'react';
import type { SlashCommand } from './commands/types.js';
import type { EditorState } from './text/editor.js';
import { clusterEnd } from './text/width.js';

const MAX_VISIBLE_LINES = 8;

/** The input box: the draft with a block cursor, and the command hints while typing `/…`. */
/** Memoised: while an answer streams its props do not change, so React skips it every frame. */
export const Input = memo(function Input({ editor, hints, busy, width }: { editor: EditorState; hints: SlashCommand[]; busy: boolean; width: number }) {
  const lines = editor.text.split('\n');
  const before = editor.text.slice(0, editor.cursor).split('\n');
  const cursorLine = before.length - 1;
  const cursorCol = before[cursorLine]!.length;
  const first = Math.max(0, Math.min(cursorLine - MAX_VISIBLE_LINES + 1, lines.length - MAX_VISIBLE_LINES));
  const visible = lines.slice(first, first + MAX_VISIBLE_LINES);
  // While an answer streams and nothing is typed, a one-line prompt: each new line of the answer
  // then moves two short lines down instead of a whole box (fewer bytes, calmer screen).
  if (busy && editor.text === '') {
    return (
      <Box paddingX={1} width={width}>
        <Text dimColor>› </Text>
        <Text inverse> </Text>
      </Box>
    );
  }
  return (
    <Box flexDirection="column" width={width}>
      <Box borderStyle="round" borderColor={busy ? 'gray' : 'cyan'} paddingX={1} flexDirection="column">
        {first > 0 ? <Text dimColor>… {first} more line{first === 1 ? '' : 's'} above</Text> : null}
        {visible.map((line, i) => {
          const n = first + i;
          const prefix = n === 0 ? '› ' : '  ';
          if (n !== cursorLine) return <Text key={n}>{prefix + line}</Text>;
          // The block cursor covers the whole glyph under it (an emoji sequence is one cluster, never split).
          const atEnd = clusterEnd(line, cursorCol);
          return (
            <Text key={n}>
              {prefix + line.slice(0, cursorCol)}
              <Text inverse>{line.slice(cursorCol, atEnd) || ' '}</Text>
              {line.slice(atEnd)}
            </Text>
          );
        })}
      </Box>
      {hints.length > 0 ? (
        <Box flexDirection="column" paddingX={2}>
          {hints.slice(0, 8).map((c) => (
            <Text key={c.name}>
              <Text color="cyan">/{c.name}</Text>
              <Text dimColor>{c.args ? ` ${c.args}` : ''} · {c.help}</Text>
            </Text>
          ))}
        </Box>
      ) : null}
    </Box>
  );
});
