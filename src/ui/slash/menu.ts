/**
 * The `/` menu as plain data: which commands match the draft, which one is selected, and which
 * of them fit in its window. The screen keeps a MenuState next to the draft and asks `commandMenu`
 * what to show; the key handlers below return the next state (and the draft, for Tab).
 */
import { matchCommands } from './index.js';
import type { SlashCommand } from './types.js';

export const MENU_ROWS = 8;

export interface MenuState {
  selected: number;
  /** First command in the window. */
  first: number;
  /** While Tab goes through the matches: the draft as typed before the first Tab. */
  typed?: string;
  /** Closed by a draft from history (Up/Down then keep walking it) until the next edit. */
  closed?: boolean;
}

export const menuStart = (): MenuState => ({ selected: 0, first: 0 });

export interface Menu {
  items: SlashCommand[];
  selected: number;
  /** The commands shown, and how many are hidden above and below them. */
  visible: SlashCommand[];
  above: number;
  below: number;
}

/** The menu for `draft`, or undefined when none is open. */
export function commandMenu(commands: readonly SlashCommand[], draft: string, state: MenuState): Menu | undefined {
  if (state.closed) return undefined;
  const items = matchCommands(commands, state.typed ?? draft);
  if (items.length === 0) return undefined;
  const selected = Math.min(state.selected, items.length - 1);
  const first = windowStart(items.length, selected, state.first);
  const visible = items.slice(first, first + MENU_ROWS);
  return { items, selected, visible, above: first, below: items.length - first - visible.length };
}

/** Rows the menu takes on screen (its commands and the "more" marks). */
export const menuHeight = (menu: Menu | undefined): number => (menu ? menu.visible.length + (menu.above ? 1 : 0) + (menu.below ? 1 : 0) : 0);

function windowStart(count: number, selected: number, first: number): number {
  let f = Math.max(0, Math.min(first, count - MENU_ROWS));
  if (selected < f) f = selected;
  if (selected >= f + MENU_ROWS) f = selected - MENU_ROWS + 1;
  return f;
}

/** Up/Down inside the open menu: the selection moves, wrapping at either end. */
export function moveSelection(menu: Menu, state: MenuState, by: 1 | -1): MenuState {
  const selected = (menu.selected + by + menu.items.length) % menu.items.length;
  return { ...state, selected, first: windowStart(menu.items.length, selected, menu.above) };
}

/**
 * Tab (by 1) or Shift+Tab (by -1): the first Tab completes the selected command; each next one
 * the following match. A single match is completed for good (with a space when it takes arguments).
 */
export function cycle(menu: Menu, state: MenuState, draft: string, by: 1 | -1): { state: MenuState; draft: string } {
  if (menu.items.length === 1) {
    const only = menu.items[0]!;
    return { state: menuStart(), draft: `/${only.name}${only.args ? ' ' : ''}` };
  }
  const cycling = state.typed !== undefined;
  const selected = cycling ? (menu.selected + by + menu.items.length) % menu.items.length : menu.selected;
  const next: MenuState = { ...state, selected, first: windowStart(menu.items.length, selected, menu.above), typed: state.typed ?? draft };
  return { state: next, draft: `/${menu.items[selected]!.name}` };
}
