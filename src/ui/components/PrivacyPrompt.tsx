import { Box, Text } from 'ink';
import type { PrivacyAskView } from '../controller/screen-state.js';
import { textWidth, wrapLine } from '../../core/text/width.js';
import { wrapAtSeparators } from '../text/wrap-pieces.js';
import { uiScreenText } from '../../core/i18n/messages/ui-screen.js';

/** Border and padding on each side of the box (as the input box). */
const FRAME = 2;

/**
 * The rows of the box while a question waits for the privacy guard's choice: `choose:` and the
 * keys on one row (cut only between keys, never inside one, on a very narrow screen), then, when
 * something was typed meanwhile, a row saying it was not typed.
 */
export function privacyPromptRows(view: PrivacyAskView, width: number): { choices: string[]; note: string[] } {
  const inner = Math.max(4, width - 2 * FRAME);
  const LABEL = uiScreenText.choose;
  const keys = view.choices.split(' · ');
  // Too narrow for the label and the first key on one row: the label has a row of its own.
  const choices = textWidth(LABEL + keys[0]!) <= inner ? wrapAtSeparators(LABEL + view.choices, ' · ', inner) : [LABEL.trimEnd(), ...wrapAtSeparators(view.choices, ' · ', inner)];
  const note = view.notTyped ? wrapLine(uiScreenText.notTyped(view.notTyped), inner, '  ') : [];
  return { choices, note };
}

/**
 * In place of the input box while a question waits for the privacy guard's choice (warn mode):
 * the box says it is waiting and shows the keys where the user types, and anything typed
 * meanwhile is named, not dropped without a word. What was found is printed under the question.
 */
export function PrivacyPrompt({ view, width }: { view: PrivacyAskView; width: number }) {
  const rows = privacyPromptRows(view, width);
  const label = uiScreenText.choose.length;
  return (
    <Box borderStyle="round" borderColor="yellow" paddingX={1} flexDirection="column" width={width}>
      <Text>
        <Text color="yellow">{rows.choices[0]!.slice(0, label)}</Text>
        {rows.choices.join('\n').slice(label)}
      </Text>
      {rows.note.length ? <Text color="yellow">{rows.note.join('\n')}</Text> : null}
    </Box>
  );
}
