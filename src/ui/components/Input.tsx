import { Box, Text, type DOMElement } from 'ink';
import { memo, useLayoutEffect, useRef } from 'react';
import { caretAt } from '../frames/caret.js';
import type { Menu } from '../slash/menu.js';
import type { Caret } from '../frames/frame-writer.js';
import { layoutDraft } from '../text/draft-layout.js';
import type { EditorState } from '../text/editor.js';
import { shorten } from '../text/format.js';
import { textWidth } from '../../core/text/width.js';
import { uiScreenText } from '../../core/i18n/messages/ui-screen.js';

const MAX_VISIBLE_ROWS = 8;
const PROMPT = '› ';
/** Border and padding on each side of the box. */
const FRAME = 2;

/**
 * The input box: the draft, cut into rows here (so the caret's row and column are known), and the
 * `/` menu under it. With `onCaret` the terminal's own cursor is put on the caret (input methods
 * open their candidate window there); without it a block is drawn in its place.
 * Memoised: while an answer streams its props do not change, so React skips it every frame.
 */
export const Input = memo(function Input({
  editor,
  menu,
  busy,
  width,
  onCaret,
  label,
}: {
  editor: EditorState;
  menu: Menu | undefined;
  busy: boolean;
  width: number;
  onCaret?: (caret: Caret | undefined) => void;
  /** Named on the box's top edge (`╭─ role ddx ───╮`): what the next question goes out with. */
  label?: string;
}) {
  const caretRow = useRef<DOMElement>(null);
  // While an answer streams and nothing is typed, a one-line prompt: each new line of the answer
  // then moves two short lines down instead of a whole box (fewer bytes, calmer screen). The
  // terminal's cursor stays with the streaming text meanwhile (moving it costs bytes every frame).
  const idlePrompt = busy && editor.text === '';
  const textWidthInBox = Math.max(4, width - 2 * FRAME - textWidth(PROMPT) - 1); // one cell kept for the caret at a row's end
  const layout = layoutDraft(editor.text, editor.cursor, textWidthInBox, MAX_VISIBLE_ROWS);
  const caretCol = textWidth(PROMPT) + layout.caretCol;
  useLayoutEffect(() => {
    if (!onCaret) return;
    onCaret(idlePrompt ? undefined : caretAt(caretRow.current, caretCol));
  });
  useLayoutEffect(() => () => onCaret?.(undefined), [onCaret]);
  const drawCaret = !onCaret;
  if (idlePrompt) {
    return (
      <Box paddingX={1} width={width}>
        <Text dimColor>{PROMPT}</Text>
        <Text inverse> </Text>
      </Box>
    );
  }
  const border = busy ? 'gray' : 'cyan';
  return (
    <Box flexDirection="column" width={width}>
      {label ? <TopEdge label={label} width={width} color={border} /> : null}
      <Box borderStyle="round" borderColor={border} borderTop={!label} paddingX={1} flexDirection="column">
        {layout.above > 0 ? <Text dimColor>{uiScreenText.moreAbove(layout.above)}</Text> : null}
        {layout.rows.map((row, i) => {
          const prefix = row.first ? PROMPT : ' '.repeat(textWidth(PROMPT));
          if (i !== layout.caretRow) return <Text key={i}>{prefix + row.text}</Text>;
          const before = row.text.slice(0, layout.caretIndex);
          const after = row.text.slice(layout.caretIndex + layout.atCaret.length);
          return (
            <Box key={i} ref={caretRow}>
              <Text>
                {prefix + before}
                {drawCaret ? <Text inverse>{layout.atCaret || ' '}</Text> : layout.atCaret}
                {after}
              </Text>
            </Box>
          );
        })}
      </Box>
      {menu ? <MenuView menu={menu} /> : null}
    </Box>
  );
});

/** The box's top edge with a label in it, drawn here because Ink's border has no title: `╭─ role ddx ───╮`. */
function TopEdge({ label, width, color }: { label: string; width: number; color: string }) {
  const shown = shorten(label, Math.max(1, width - 6));
  return (
    <Text>
      <Text color={color}>╭─ </Text>
      <Text color="magenta">{shown}</Text>
      <Text color={color}> {'─'.repeat(Math.max(0, width - 5 - textWidth(shown)))}╮</Text>
    </Text>
  );
}

/** The `/` menu: a window of the matching commands, the selected one marked, "more" marks when some are hidden. */
function MenuView({ menu }: { menu: Menu }) {
  return (
    <Box flexDirection="column" paddingX={1}>
      {menu.above ? <Text dimColor>  ↑ {uiScreenText.menuMore(menu.above)}</Text> : null}
      {menu.visible.map((c, i) => {
        const selected = menu.above + i === menu.selected;
        return (
          <Text key={c.name} wrap="truncate-end">
            <Text color="cyan" bold={selected}>
              {selected ? '› ' : '  '}/{c.name}
            </Text>
            <Text dimColor>{c.args ? ` ${c.args}` : ''} · {c.help}</Text>
          </Text>
        );
      })}
      {menu.below ? <Text dimColor>  ↓ {uiScreenText.menuMore(menu.below)}</Text> : null}
    </Box>
  );
}
