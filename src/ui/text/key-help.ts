/**
 * What each key does, for /help and the manual (docs/manual.md). The labels come from KEY_BINDINGS (keys.ts), so
 * a key the decoder learns shows up here, and a test fails until it is described.
 */
import { PASTE_FOLD_LINES } from './editor.js';
import { KEY_BINDINGS, type NamedKey } from './keys.js';
import { uiKeysText } from '../../core/i18n/messages/ui-keys.js';

type KeyText = Exclude<keyof typeof uiKeysText, 'paste'>;

interface KeyHelp {
  keys: readonly NamedKey[];
  /** Labels that are not one key (`\ then Enter`), by their name in the catalogue. */
  also?: readonly KeyText[];
  /** What it does, by its name in the catalogue (read in the language of the moment). */
  does: KeyText;
}

export const KEY_HELP: readonly KeyHelp[] = [
  { keys: ['enter'], does: 'enter' },
  { keys: ['newline'], also: ['thenEnter'], does: 'newline' },
  { keys: ['left', 'right'], does: 'character' },
  { keys: ['word-left', 'word-right'], does: 'word' },
  { keys: ['home', 'end'], does: 'homeEnd' },
  { keys: ['backspace', 'delete'], does: 'deleteChar' },
  { keys: ['kill-word-before'], does: 'killWordBefore' },
  { keys: ['kill-word-after'], does: 'killWordAfter' },
  { keys: ['kill-line-start'], does: 'killLineStart' },
  { keys: ['kill-line-end'], does: 'killLineEnd' },
  { keys: ['up', 'down'], does: 'upDown' },
  { keys: ['tab', 'shift-tab'], does: 'tab' },
  { keys: ['ctrl-g'], does: 'editor' },
  { keys: ['ctrl-o'], does: 'viewer' },
  { keys: ['ctrl-l'], does: 'redraw' },
  { keys: ['page-up', 'page-down'], does: 'page' },
  { keys: ['escape'], does: 'escape' },
  { keys: ['ctrl-c'], does: 'ctrlC' },
  { keys: ['ctrl-d'], does: 'ctrlD' },
];

/** What /help says about pasting. */
export const pasteHelp = (): string => uiKeysText.paste(PASTE_FOLD_LINES);

/** Each KEY_HELP entry with the labels of every key it covers ("Ctrl+W, Alt+Backspace"). */
export function keyHelpRows(): Array<{ keys: string; does: string }> {
  return KEY_HELP.map((h) => {
    const labels = h.keys.flatMap((k) => KEY_BINDINGS.filter((b) => b.key === k).map((b) => b.label));
    return { keys: [...labels, ...(h.also ?? []).map((k) => uiKeysText[k])].join(', '), does: uiKeysText[h.does] };
  });
}

/** The manual's key table, from the same list (a test checks docs/manual.md holds it). */
export function keyHelpMarkdown(): string {
  const cell = (s: string) => s.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/\$(VISUAL|EDITOR)/g, '`$$$1`');
  return ['| Key | Does |', '|---|---|', ...keyHelpRows().map((r) => `| ${cell(r.keys)} | ${cell(r.does)} |`)].join('\n');
}
