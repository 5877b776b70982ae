import { Box, Text, useApp, useStdin } from 'ink';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { ChatController } from '../controller/chat-controller.js';
import { commandMenu, cycle, menuHeight, menuStart, moveSelection, type MenuState } from '../slash/menu.js';
import { Footer } from './Footer.js';
import { Input } from './Input.js';
import { JobLine } from './JobLine.js';
import type { LiveDrawing } from '../frames/live-drawing.js';
import { LiveTurnView } from './LiveTurn.js';
import { PendingLines, pendingRows, takenBackLine } from './PendingLines.js';
import { PrivacyPrompt } from './PrivacyPrompt.js';
import { Transcript } from './Transcript.js';
import { TurnSecondsProvider } from './turn-seconds.js';
import * as ed from '../text/editor.js';
import { KeyDecoder, type Key } from '../text/keys.js';
import { useChat } from './use-chat.js';
import { uiScreenText } from '../../core/i18n/messages/ui-screen.js';

const EXIT_WINDOW_MS = 2000;
/** How long the line saying a queued question was taken back stays. */
const TAKE_BACK_MS = 4000;

/** A full-screen view over the chat screen (the transcript viewer): while it is open, it takes every key. */
export interface KeyOverlay {
  handleKey(key: Key): boolean;
}

/**
 * The chat screen. Renders the controller's snapshot and turns keys into editor edits or controller
 * calls. The terminal's size reaches it through the controller (run-interactive calls resize()).
 */
export function App({ controller, drawing, overlay }: { controller: ChatController; drawing?: LiveDrawing; overlay?: KeyOverlay }) {
  const snap = useChat(controller, drawing);
  const { exit } = useApp();
  const { internal_eventEmitter: events, setRawMode, isRawModeSupported } = useStdin();
  const [editor, setEditor] = useState(ed.emptyEditor);
  const [menuState, setMenuState] = useState(menuStart);
  /** A short-lived line under the footer ("press Ctrl+C again to exit", what Esc took back): a row of its own, never cut off. */
  const [message, setMessage] = useState<{ text: string; ms: number } | undefined>();
  const lastCtrlC = useRef(0);
  const decoder = useRef(new KeyDecoder());
  const editorRef = useRef(editor);
  editorRef.current = editor;
  const menuRef = useRef(menuState);
  menuRef.current = menuState;

  /** A new draft; the `/` menu starts over with it unless told otherwise. */
  const setDraft = useCallback((next: ed.EditorState, menu: MenuState = menuStart()) => {
    editorRef.current = next;
    menuRef.current = menu;
    setEditor(next);
    setMenuState(menu);
  }, []);

  // A question too long to send comes back here, unless something else has been typed since.
  useEffect(() => {
    controller.returnDraft = (text) => {
      if (editorRef.current.text.trim()) return false;
      setDraft(ed.insertPaste(ed.emptyEditor(), text));
      return true;
    };
    return () => {
      controller.returnDraft = undefined;
    };
  }, [controller, setDraft]);

  useEffect(() => {
    if (snap.exitRequested) exit();
  }, [snap.exitRequested, exit]);

  // The footer meter counts the draft as the next question.
  useEffect(() => {
    controller.setDraft(ed.expandedText(editor));
  }, [controller, editor]);

  useEffect(() => {
    if (!message) return;
    const t = setTimeout(() => setMessage(undefined), message.ms);
    return () => clearTimeout(t);
  }, [message]);

  const onKey = useCallback(
    (key: Key) => {
      if (overlay?.handleKey(key)) return;
      // The privacy line under a question waits for a choice: Enter send anyway, r redact, e/Esc/Ctrl+C edit.
      // Other text, and a paste, is not typed: the box in place of the input box says so.
      if (controller.privacyAsking) {
        const info = { return: key.name === 'enter', escape: key.name === 'escape', ctrl: key.name === 'ctrl-c' };
        if (key.name === 'paste') controller.privacyKey(key.text, {}, true);
        else controller.privacyKey(key.name === 'text' ? key.text : key.name === 'ctrl-c' ? 'c' : '', info);
        return;
      }
      const e = editorRef.current;
      const set = (next: ed.EditorState) => setDraft(next);
      // A draft from history opens no menu: Up/Down go on through the history.
      const recall = (text: string) => setDraft(ed.fromText(text), { ...menuStart(), closed: true });
      const menu = commandMenu(controller.commands, e.text, menuRef.current);
      if (key.name !== 'ctrl-c') lastCtrlC.current = 0;
      switch (key.name) {
        case 'text':
          controller.history.resetBrowsing();
          return set(ed.insert(e, key.text));
        case 'paste':
          return set(ed.insertPaste(e, key.text));
        case 'newline':
          return set(ed.insert(e, '\n'));
        case 'enter': {
          if (e.text.slice(0, e.cursor).endsWith('\\')) return set(ed.insert(ed.backspace(e), '\n'));
          // With the menu open, Enter runs the selected command.
          const text = menu ? `/${menu.items[menu.selected]!.name}` : ed.expandedText(e);
          if (controller.submit(text)) set(ed.emptyEditor());
          return;
        }
        case 'tab':
        case 'shift-tab': {
          if (!menu) return;
          const next = cycle(menu, menuRef.current, e.text, key.name === 'tab' ? 1 : -1);
          return setDraft(ed.fromText(next.draft), next.state);
        }
        case 'backspace':
          return set(ed.backspace(e));
        case 'delete':
          return set(ed.deleteForward(e));
        case 'left':
          return set(ed.left(e));
        case 'right':
          return set(ed.right(e));
        case 'home':
          return set(ed.home(e));
        case 'end':
          return set(ed.end(e));
        case 'word-left':
          return set(ed.wordLeft(e));
        case 'word-right':
          return set(ed.wordRight(e));
        case 'kill-word-before':
          return set(ed.deleteWordBefore(e));
        case 'kill-word-after':
          return set(ed.deleteWordAfter(e));
        case 'kill-line-start':
          return set(ed.killToLineStart(e));
        case 'kill-line-end':
          return set(ed.killToLineEnd(e));
        case 'up': {
          if (menu) return setDraft(e, moveSelection(menu, menuRef.current, -1));
          const moved = ed.verticalMove(e, -1);
          if (moved) return set(moved);
          const prev = controller.history.previous(ed.expandedText(e));
          if (prev !== undefined) recall(prev);
          return;
        }
        case 'down': {
          if (menu) return setDraft(e, moveSelection(menu, menuRef.current, 1));
          const moved = ed.verticalMove(e, 1);
          if (moved) return set(moved);
          const next = controller.history.next();
          if (next !== undefined) recall(next);
          return;
        }
        case 'escape': {
          const taken = controller.takeBack();
          if (taken) return setMessage({ text: takenBackLine(taken.text, taken.inBox, Math.max(20, controller.snapshot().columns)), ms: TAKE_BACK_MS });
          if (controller.stop()) return;
          if (e.text.startsWith('/')) set(ed.emptyEditor());
          return;
        }
        case 'ctrl-c': {
          const taken = controller.takeBack();
          if (taken) return setMessage({ text: takenBackLine(taken.text, taken.inBox, Math.max(20, controller.snapshot().columns)), ms: TAKE_BACK_MS });
          if (controller.stop()) return;
          if (e.text) {
            lastCtrlC.current = 0;
            return set(ed.emptyEditor());
          }
          const now = Date.now();
          if (now - lastCtrlC.current < EXIT_WINDOW_MS) return controller.requestExit();
          lastCtrlC.current = now;
          setMessage({ text: uiScreenText.ctrlCAgain, ms: EXIT_WINDOW_MS });
          return;
        }
        case 'ctrl-d':
          if (!e.text) return controller.requestExit();
          return set(ed.deleteForward(e));
        case 'ctrl-o':
          return controller.openTranscript();
        case 'ctrl-g': {
          if (isRawModeSupported) setRawMode(false);
          const edited = controller.openEditor(ed.expandedText(e));
          if (isRawModeSupported) setRawMode(true);
          if (edited !== undefined) set(ed.fromText(edited));
          return;
        }
        case 'ctrl-l':
          return controller.refresh();
        default:
          return;
      }
    },
    [controller, overlay, isRawModeSupported, setRawMode, setDraft],
  );

  useEffect(() => {
    if (isRawModeSupported) setRawMode(true);
    const onInput = (data: string) => {
      for (const key of decoder.current.push(data)) onKey(key);
    };
    events.on('input', onInput);
    return () => {
      events.off('input', onInput);
      if (isRawModeSupported) setRawMode(false);
    };
  }, [events, onKey, isRawModeSupported, setRawMode]);

  const width = Math.max(20, snap.columns);
  // The same object while the draft is unchanged, so the memoised Input is skipped on streaming frames.
  const menu = useMemo(() => commandMenu(controller.commands, editor.text, menuState), [controller, editor.text, menuState]);
  const inputRows = Math.min(editor.text.split('\n').length, 8) + 2 + menuHeight(menu);
  const maxLiveRows = Math.max(3, snap.rows - inputRows - 4 - pendingRows(snap.pending, width) - (message ? 1 : 0));
  const busy = snap.live !== undefined || snap.job !== undefined;
  const liveTurn = useCallback(() => controller.liveTurn(), [controller]);
  const printed = useMemo(() => (drawing ? drawing.forStatic(snap.items) : snap.items), [drawing, snap.items]);
  // The streaming answer's seconds reach the waiting/thinking line and the footer from one clock, in one frame.
  return (
    <TurnSecondsProvider clock={controller.clock}>
      <Box flexDirection="column">
        <Transcript items={printed} width={width} />
        {snap.live ? <LiveTurnView live={snap.live} width={width} maxRows={maxLiveRows} rows={drawing?.rows} /> : null}
        {snap.job ? <JobLine job={snap.job} /> : null}
        {snap.pending ? <PendingLines pending={snap.pending} width={width} /> : null}
        <Box marginTop={1} flexDirection="column">
          {snap.privacy ? <PrivacyPrompt view={snap.privacy} width={width} /> : <Input editor={editor} menu={menu} busy={busy} width={width} onCaret={drawing?.setCaret} label={snap.role ? uiScreenText.role(snap.role) : undefined} />}
          <Footer meter={snap.meter} last={snap.last} busy={busy} demo={snap.demo} thinking={snap.thinking} live={liveTurn} width={width} />
          {message ? (
            <Box paddingX={1}>
              <Text color="yellow" wrap="truncate-end">
                {message.text}
              </Text>
            </Box>
          ) : null}
        </Box>
      </Box>
    </TurnSecondsProvider>
  );
}
