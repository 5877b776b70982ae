/**
 * What each key does, for /help and the manual (docs/manual.md). The labels come from KEY_BINDINGS (keys.ts), so
 * a key the decoder learns shows up here, and a test fails until it is described.
 */
import { PASTE_FOLD_LINES } from './editor.js';
import { KEY_BINDINGS, type NamedKey } from './keys.js';

interface KeyHelp {
  keys: readonly NamedKey[];
  /** Labels that are not one key (`\ then Enter`). */
  also?: readonly string[];
  does: string;
}

export const KEY_HELP: readonly KeyHelp[] = [
  { keys: ['enter'], does: 'send; with the / menu open, run the selected command' },
  { keys: ['newline'], also: ['\\ then Enter'], does: 'new line' },
  { keys: ['left', 'right'], does: 'move by a character' },
  { keys: ['word-left', 'word-right'], does: 'move by a word' },
  { keys: ['home', 'end'], does: 'go to the start or end of the line' },
  { keys: ['backspace', 'delete'], does: 'delete the character before or under the cursor' },
  { keys: ['kill-word-before'], does: 'delete the word before the cursor' },
  { keys: ['kill-word-after'], does: 'delete the word after the cursor' },
  { keys: ['kill-line-start'], does: 'delete to the start of the line' },
  { keys: ['kill-line-end'], does: 'delete to the end of the line' },
  { keys: ['up', 'down'], does: 'move between the lines of the draft; past its first or last line, earlier prompts; in the / menu, move the selection' },
  { keys: ['tab', 'shift-tab'], does: 'complete a slash command; press again to go through the matches (Shift+Tab goes back)' },
  { keys: ['ctrl-g'], does: 'edit the draft in $VISUAL or $EDITOR' },
  { keys: ['ctrl-o'], does: 'the whole conversation with every answer\'s reasoning, full screen (q back)' },
  { keys: ['ctrl-l'], does: 'redraw the input box and what is below it' },
  { keys: ['page-up', 'page-down'], does: 'in the Ctrl+O viewer: a page up or down (also Space, b, g/G, / to search, q to leave)' },
  { keys: ['escape'], does: 'stop an answer, or stop waiting for /retexture; clear a / command' },
  { keys: ['ctrl-c'], does: 'stop an answer; else clear the box; on an empty box, press twice within 2 s to exit' },
  { keys: ['ctrl-d'], does: 'exit (on an empty box; else delete the character under the cursor)' },
];

export const PASTE_HELP = `Pasting never sends. A paste of more than ${PASTE_FOLD_LINES} lines shows as [pasted N lines] and is sent in full.`;

/** Each KEY_HELP entry with the labels of every key it covers ("Ctrl+W, Alt+Backspace"). */
export function keyHelpRows(): Array<{ keys: string; does: string }> {
  return KEY_HELP.map((h) => {
    const labels = h.keys.flatMap((k) => KEY_BINDINGS.filter((b) => b.key === k).map((b) => b.label));
    return { keys: [...labels, ...(h.also ?? [])].join(', '), does: h.does };
  });
}

/** The manual's key table, from the same list (a test checks docs/manual.md holds it). */
export function keyHelpMarkdown(): string {
  const cell = (s: string) => s.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/\$(VISUAL|EDITOR)/g, '`$$$1`');
  return ['| Key | Does |', '|---|---|', ...keyHelpRows().map((r) => `| ${cell(r.keys)} | ${cell(r.does)} |`)].join('\n');
}
