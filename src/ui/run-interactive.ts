import chalk from 'chalk';
import { createElement } from 'react';
import { render } from 'ink';
import { VERSION } from '../version.js';
import { onStopSignals, exitCodeForSignal } from '../core/signals.js';
import type { Settings } from '../core/settings.js';
import { colourAllowed } from '../core/terminal.js';
import { App } from './App.js';
import { ChatController } from './chat-controller.js';
import { editInExternalEditor } from './external-editor.js';
import { diffingStdout } from './frame-writer.js';
import { LiveDrawing } from './live-drawing.js';
import { historyFile } from './prompt-history.js';
import { DISABLE_BRACKETED_PASTE, ENABLE_BRACKETED_PASTE } from './text/keys.js';

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
  role?: import('../core/roles/active.js').ActiveRole;
}

export async function runInteractive(settings: Settings, opts: InteractiveOptions): Promise<number> {
  // Ink styles through chalk, which does not read NO_COLOR: without colour, no styling at all.
  const colour = colourAllowed(process.stdout);
  if (!colour) chalk.level = 0;
  // Ink's frames go through a line differ (see frame-writer.ts); MEDCHAT_PLAIN_FRAMES=1 turns it off.
  const diffing = process.env.MEDCHAT_PLAIN_FRAMES === '1' ? undefined : diffingStdout(process.stdout);
  const stdout = diffing ? diffing.stream : process.stdout;
  let write: (data: string) => void = (d) => stdout.write(d);
  const controller = new ChatController(settings, {
    system: opts.system,
    resume: opts.resume,
    incognito: opts.incognito,
    demo: opts.demo,
    role: opts.role,
    previewProtocol: colour ? 'blocks' : 'ascii',
    version: VERSION,
    columns: stdout.columns || 80,
    rows: stdout.rows || 24,
    historyFile: settings.history ? historyFile() : undefined,
    write: (d) => write(d),
    openEditor: (draft) => {
      // The editor takes over the terminal: the cursor must be where Ink expects it first.
      diffing?.writer.settle();
      return editInExternalEditor(draft);
    },
  });
  // The streaming turn is drawn by the frame writer between Ink's frames (see LiveDrawing).
  const drawing = diffing && new LiveDrawing(controller, diffing.writer, () => Math.max(20, process.stdout.columns || 80));
  stdout.write(ENABLE_BRACKETED_PASTE);
  const instance = render(createElement(App, { controller, drawing }), {
    stdout,
    exitOnCtrlC: false,
    patchConsole: false,
    maxFps: 30,
  });
  // The o200k tables take a moment to load: after the first paint, so the meter becomes exact.
  setImmediate(() => void controller.loadTokenizer());
  // Writes outside the tree (screen clear, OSC 52) go through Ink, so its live region stays right.
  write = (d) => {
    instance.clear();
    stdout.write(d);
  };
  let code = 0;
  const off = onStopSignals((signal) => {
    code = exitCodeForSignal[signal];
    controller.requestExit();
  });
  try {
    await instance.waitUntilExit();
  } finally {
    off();
    // Stop what runs and let the session save the partial answer before the process ends.
    await controller.close();
    stdout.write(DISABLE_BRACKETED_PASTE);
    await new Promise<void>((r) => queueMicrotask(r));
  }
  return code;
}
