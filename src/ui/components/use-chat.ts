import { useEffect, useRef, useState } from 'react';
import type { Change, ChatController, ChatSnapshot } from '../controller/chat-controller.js';
import type { LiveDrawing } from '../frames/live-drawing.js';

/** At most one redraw per this many milliseconds while an answer streams (30 to 60 reads as smooth). */
const FRAME_MS = 60;
/** Answer text (characters) from which the frame writer, not Ink, prints it when the answer ends. */
const LONG_ANSWER = 16_384;

/**
 * The only bridge between the chat controller (which consumes core's stream events) and React:
 * every change is coalesced, and the screen gets at most one new frame per `frameMs`. With a
 * `drawing` (a frame writer draws the streaming turn), a frame in which only the streaming text
 * grew, or finished paragraphs were added, is drawn by it alone: no new snapshot, so neither
 * React nor Ink runs.
 */
export function useChat(controller: ChatController, drawing?: LiveDrawing, frameMs = FRAME_MS): ChatSnapshot {
  const [snap, setSnap] = useState(() => controller.snapshot());
  const rendered = useRef(snap);
  rendered.current = snap;
  useEffect(() => {
    let timer: NodeJS.Timeout | undefined;
    let lastFlush = 0;
    let change: Change | undefined = 'any';
    let given = controller.snapshot();
    /** How many printed items React was given or the drawing printed. */
    let taken = given.items.length;
    const render = () => {
      given = controller.snapshot();
      taken = given.items.length;
      setSnap(given);
    };
    /**
     * Print the answer paragraphs printed since `taken` (up to the first other item) through the
     * drawing (`atLeast`: only if they hold that many characters); true when that was all there was to print.
     */
    const printAnswers = (atLeast = 0) => {
      const items = controller.printedSince(taken);
      const n = items.findIndex((i) => i.kind !== 'answer');
      const answers = n < 0 ? items : items.slice(0, n);
      if (!answers.length) return items.length === 0;
      if (atLeast && answers.reduce((sum, i) => sum + (i.kind === 'answer' ? i.text.length : 0), 0) < atLeast) return false;
      if (!drawing!.print(answers)) return false;
      taken += answers.length; // React has nothing more to print for these
      return answers.length === items.length;
    };
    const flush = () => {
      timer = undefined;
      lastFlush = Date.now();
      const c = change;
      change = undefined;
      // Drawn directly only once React has rendered what it was last given (so nothing it is
      // still to print could end up below a paragraph printed here).
      if (!drawing || rendered.current !== given) return render();
      if (c === 'any') {
        // A long last paragraph (all of a line that never broke) is printed here too, before Ink
        // renders the rest: Ink lays out what it prints a character at a time (1 KB or so each),
        // 2 GB for a 2 MB answer. A short one is left to Ink, with the status line, in one frame.
        printAnswers(LONG_ANSWER);
        return render();
      }
      // Only the new items: no snapshot (a copy of every item printed) for a frame that prints a paragraph.
      if (c === 'paragraphs' && !printAnswers()) return render();
      drawing.repaint();
    };
    const unsubscribe = controller.subscribe((c) => {
      change = change === 'any' || c === 'any' ? 'any' : change === 'paragraphs' || c === 'paragraphs' ? 'paragraphs' : 'text';
      if (timer) return;
      timer = setTimeout(flush, Math.max(0, frameMs - (Date.now() - lastFlush)));
    });
    flush();
    return () => {
      unsubscribe();
      if (timer) clearTimeout(timer);
    };
  }, [controller, drawing, frameMs]);
  return snap;
}

/** Seconds since `since`, ticking once a second while `active`. */
export function useElapsed(since: number | undefined, active: boolean): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!active) return;
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, [active]);
  return since === undefined ? 0 : Math.max(0, now - since);
}
