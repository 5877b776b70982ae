/**
 * Screen-reader mode: the chat screen as append-only lines (`--screen-reader`, INK_SCREEN_READER=true,
 * config `screen-reader`). The same controller as the Ink screen (questions, answers, slash commands,
 * sessions, the privacy guard), but nothing is ever redrawn: no live region, no cursor movement but
 * the newline, no erase, no colour, no spinner. Each item is printed once, when it is finished (an
 * answer paragraph by paragraph, see linear-lines.ts). Input is the terminal's own line editing
 * (cooked mode: the terminal echoes what is typed), read a line at a time.
 */
import readline from 'node:readline';
import { exitCodeForSignal, onStopSignals } from '../../core/io/signals.js';
import { screenReaderText as t } from '../../core/i18n/messages/ui-screen-reader.js';
import type { Settings } from '../../core/config/settings.js';
import { VERSION } from '../../version.js';
import { ChatController } from '../controller/chat-controller.js';
import { historyFile } from '../controller/prompt-history.js';
import type { InteractiveOptions } from '../run-interactive.js';
import { LINEAR_COMMANDS } from './linear-commands.js';
import { linearItemLines } from './linear-lines.js';

/** Two Ctrl+C at the prompt within this long leave medchat (as on the chat screen). */
const DOUBLE_CTRL_C_MS = 2000;

/** Lines closer together than this were pasted, not typed: no one presses Enter twice in 60 ms. */
const PASTE_GAP_MS = 60;

/** Escape sequences a line may hold when arrow or function keys were pressed in cooked mode: not text. */
const KEY_SEQUENCE = /\x1b(?:\[[0-9;?]*[ -/]*[@-~]|O.|.)?/g;

export async function runLinear(settings: Settings, opts: InteractiveOptions, io = { input: process.stdin, output: process.stdout }): Promise<number> {
  const out = io.output;
  const print = (lines: string[]) => {
    if (lines.length) out.write(`${lines.join('\n')}\n`);
  };
  print([t.modeOn]);
  const controller = new ChatController(settings, {
    ...opts,
    version: VERSION,
    columns: out.columns || 80,
    rows: out.rows || 24,
    historyFile: settings.history ? historyFile() : undefined,
    commands: LINEAR_COMMANDS,
    // A picture preview is for the eye: the plainest one (the URL and saved file are said in words).
    previewProtocol: 'ascii',
    write: (d) => out.write(d),
  });
  // A question that was not sent (privacy edit, too long) cannot be put back in a line the terminal
  // edits: it is said, to be typed again.
  controller.returnDraft = (text) => {
    controller.notice(t.privacyEdit(text));
    return true;
  };

  let printed = 0;
  let labelled = false;
  let choicesSaid = false;
  let queuedSaid = 0;
  let jobSaid = false;
  let finish!: () => void;
  const finished = new Promise<void>((r) => (finish = r));
  const onChange = () => {
    const snap = controller.snapshot();
    for (const item of snap.items.slice(printed)) {
      if (item.kind === 'user') labelled = false;
      const first = item.kind === 'answer' && !labelled;
      if (item.kind === 'answer') labelled = true;
      print(linearItemLines(item, first));
    }
    printed = snap.items.length;
    if (controller.privacyAsking && !choicesSaid) print([t.privacyChoices]);
    choicesSaid = controller.privacyAsking;
    // What waits for the answer, each line once when it joins the queue; a job's start, once.
    const queued = snap.pending?.queued ?? [];
    for (const q of queued.slice(queuedSaid)) print([t.queued(q.text)]);
    queuedSaid = queued.length;
    if (snap.job && !jobSaid) print([t.working(snap.job.label)]);
    jobSaid = snap.job !== undefined;
    if (snap.exitRequested) finish();
  };
  const unsubscribe = controller.subscribe(onChange);
  onChange();
  setImmediate(() => void controller.loadTokenizer());

  let lastCtrlC = 0;
  const ctrlC = () => {
    // The terminal echoed `^C` where the cursor was: what follows starts on a line of its own.
    out.write('\n');
    if (controller.privacyAsking) return void controller.privacyKey('c', { ctrl: true });
    if (controller.stop()) return;
    const now = Date.now();
    if (now - lastCtrlC <= DOUBLE_CTRL_C_MS) return controller.requestExit();
    lastCtrlC = now;
    print([t.ctrlCAgain]);
  };
  let code = 0;
  const off = onStopSignals((signal) => {
    if (signal === 'SIGINT') return ctrlC();
    code = exitCodeForSignal[signal];
    controller.requestExit();
  });

  const lines = readline.createInterface({ input: io.input, terminal: false, crlfDelay: Infinity });
  // A paste arrives as several lines at once (the terminal hands them over one read each); typing,
  // one line per Enter. Lines that follow each other within PASTE_GAP_MS are one question (pasting
  // never sends line by line, as on the chat screen).
  let arrived: string[] = [];
  let flush: NodeJS.Timeout | undefined;
  lines.on('line', (raw) => {
    arrived.push(raw);
    clearTimeout(flush);
    flush = setTimeout(() => {
      const together = arrived;
      arrived = [];
      if (together.length === 1) return oneLine(together[0]!);
      controller.submit(together.map((l) => l.replace(KEY_SEQUENCE, '')).join('\n'));
    }, PASTE_GAP_MS);
  });
  const oneLine = (raw: string) => {
    if (raw.includes('\x1b') && !raw.replace(KEY_SEQUENCE, '').trim()) {
      // Esc then Enter: what Esc does on the chat screen (stop an answer, take back a queued line).
      if (/\x1b(?!\[|O)/.test(raw) || raw.trim() === '\x1b') controller.stop();
      return;
    }
    const line = raw.replace(KEY_SEQUENCE, '');
    if (controller.privacyAsking) return choose(line.trim());
    controller.submit(line);
  };
  // Ctrl+D on an empty line (or the end of piped input): leave.
  lines.on('close', () => setTimeout(() => controller.requestExit(), PASTE_GAP_MS + 5));

  const choose = (n: string) => {
    if (n === '1') controller.privacyKey('', { return: true });
    else if (n === '2') controller.privacyKey('r', {});
    else if (n === '3') controller.privacyKey('e', {});
    else print([t.privacyAgain]);
  };

  try {
    await finished;
  } finally {
    off();
    lines.close();
    io.input.pause?.();
    await controller.close();
    onChange();
    unsubscribe();
    const said = code === 0 ? controller.exitLine() : undefined;
    if (said) print([said]);
  }
  return code;
}
