import chalk from 'chalk';
import { createElement, type ReactNode } from 'react';
import { render, useStdout } from 'ink';
import { VERSION } from '../version.js';
import { onStopSignals, exitCodeForSignal } from '../core/io/signals.js';
import type { Settings } from '../core/config/settings.js';
import { colourAllowed } from '../core/io/terminal.js';
import { App } from './components/App.js';
import { ChatController } from './controller/chat-controller.js';
import { editInExternalEditor } from './external-editor.js';
import { FrameWriter } from './frames/frame-writer.js';
import { LiveDrawing } from './frames/live-drawing.js';
import { historyFile } from './controller/prompt-history.js';
import { HeldOutput, inkStdout } from './frames/screen-output.js';
import { DISABLE_BRACKETED_PASTE, ENABLE_BRACKETED_PASTE } from './text/keys.js';
import { TranscriptViewer } from './viewer/transcript-viewer.js';

const HIDE_CURSOR = '\x1b[?25l';

/** Opens the chat screen (Ink) and resolves with the exit code when the user leaves. Loaded lazily. */
export interface InteractiveOptions {
  system?: string;
  /** A session id (or unique prefix, or `latest`) to continue. */
  resume?: string;
  /** Write nothing: no session, no prompt history. */
  incognito?: boolean;
  /** `medchat demo`: header and footer say so. */
  demo?: boolean;
  /** `-r NAME`: the role in use from the start (the header shows it; /role off restores its base). */
  role?: import('../core/request/roles/active.js').ActiveRole;
  /** The patient-identifier guard (config `privacy`, --privacy, --shift-dates). */
  privacy?: import('../core/privacy/choice.js').PrivacyChoice;
}

export async function runInteractive(settings: Settings, opts: InteractiveOptions): Promise<number> {
  // Ink styles through chalk, which does not read NO_COLOR: without colour, no styling at all.
  const colour = colourAllowed(process.stdout);
  if (!colour) chalk.level = 0;
  const terminal = process.stdout;
  const columns = () => terminal.columns || 80;
  // Everything for the main screen goes through `held` (the transcript viewer holds it while open).
  const held = new HeldOutput(terminal);
  // Ink's frames go through the frame writer: a line differ (MEDCHAT_PLAIN_FRAMES=1 turns the
  // diffing off) that also erases the live region right after the terminal narrows.
  const plain = process.env.MEDCHAT_PLAIN_FRAMES === '1';
  const writer = new FrameWriter(held, columns, { diff: !plain, homeAfterMs: 250 });
  const stdout = inkStdout(terminal, writer.write);
  /** Ink's own write-around (useStdout().write): erases its live region, writes, draws the region again. */
  let inkWrite: ((data: string) => void) | undefined;
  const viewer = new TranscriptViewer(
    { snapshot: () => controller.snapshot(), subscribe: (fn) => controller.subscribe(fn), liveTurn: () => controller.liveTurn() },
    {
      write: (d) => terminal.write(d),
      columns,
      rows: () => terminal.rows || 24,
      onResize: (fn) => {
        terminal.on('resize', fn);
        return () => void terminal.off('resize', fn);
      },
    },
    {
      enter: () => {
        writer.settle();
        held.hold();
      },
      leave: () => {
        held.release();
        writer.showCaret();
      },
    },
  );
  const controller: ChatController = new ChatController(settings, {
    system: opts.system,
    resume: opts.resume,
    incognito: opts.incognito,
    demo: opts.demo,
    role: opts.role,
    privacy: opts.privacy,
    previewProtocol: colour ? 'blocks' : 'ascii',
    version: VERSION,
    columns: columns(),
    rows: terminal.rows || 24,
    historyFile: settings.history ? historyFile() : undefined,
    // Control strings that print nothing (OSC 52): to the terminal as they are, around nothing.
    // (Through Ink's clear, they cost the lines Ink then erased a second time.)
    write: (d) => {
      writer.settle();
      held.write(d);
    },
    redraw: () => {
      writer.forget();
      inkWrite?.('');
    },
    openTranscript: () => viewer.open(),
    openEditor: (draft) => {
      // The editor takes over the terminal: the cursor must be where Ink expects it first.
      writer.settle();
      const edited = editInExternalEditor(draft);
      // Editors show the cursor and may turn bracketed paste off on their way out.
      held.write(`${HIDE_CURSOR}${ENABLE_BRACKETED_PASTE}`);
      return edited;
    },
  });
  // The streaming turn is drawn by the frame writer between Ink's frames (see LiveDrawing).
  const drawing = plain ? undefined : new LiveDrawing(controller, writer, () => Math.max(20, columns()));
  held.write(ENABLE_BRACKETED_PASTE);
  const app = createElement(App, { controller, drawing, overlay: viewer });
  const instance = render(createElement(InkWriteBridge, { onWrite: (w) => (inkWrite = w) }, app), {
    stdout,
    exitOnCtrlC: false,
    patchConsole: false,
    maxFps: 30,
  });
  // The o200k tables take a moment to load: after the first paint, so the meter becomes exact.
  setImmediate(() => void controller.loadTokenizer());
  // A resize lays out the live region again at once; the terminal reflows what is printed.
  const onResize = () => controller.resize(columns(), terminal.rows || 24);
  terminal.on('resize', onResize);
  // However the process ends, the terminal is not left on the viewer's screen.
  const leaveViewer = () => viewer.close();
  process.once('exit', leaveViewer);
  let code = 0;
  const off = onStopSignals((signal) => {
    code = exitCodeForSignal[signal];
    controller.requestExit();
  });
  try {
    await instance.waitUntilExit();
  } finally {
    off();
    terminal.off('resize', onResize);
    process.off('exit', leaveViewer);
    viewer.close();
    // Stop what runs and let the session save the partial answer before the process ends.
    await controller.close();
    writer.settle();
    held.write(DISABLE_BRACKETED_PASTE);
    // Left on purpose (not by a signal): one line saying how to come back to what was said.
    const said = code === 0 ? controller.exitLine() : undefined;
    if (said) held.write(`${said}\n`);
    await new Promise<void>((r) => queueMicrotask(r));
  }
  return code;
}

/** Hands Ink's `useStdout().write` out of the tree, for redraws of the live region. */
function InkWriteBridge({ onWrite, children }: { onWrite: (write: (data: string) => void) => void; children?: ReactNode }): ReactNode {
  onWrite(useStdout().write);
  return children ?? null;
}
