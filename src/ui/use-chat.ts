import { useEffect, useState } from 'react';
import type { ChatController, ChatSnapshot } from './chat-controller.js';

/** At most one redraw per this many milliseconds while an answer streams (issue 3 allows 30–60). */
export const FRAME_MS = 60;

/**
 * The only bridge between the chat controller (which consumes core's stream events) and React:
 * every change is coalesced, and the screen gets at most one new frame per `frameMs`. With
 * `repaint` (a frame writer draws the streaming rows), a frame in which only the streaming text
 * grew is drawn by `repaint` alone: no new snapshot, so neither React nor Ink runs.
 */
export function useChat(controller: ChatController, repaint?: () => void, frameMs = FRAME_MS): ChatSnapshot {
  const [snap, setSnap] = useState(() => controller.snapshot());
  useEffect(() => {
    let timer: NodeJS.Timeout | undefined;
    let lastFlush = 0;
    let structural = false;
    const flush = () => {
      timer = undefined;
      lastFlush = Date.now();
      if (repaint && !structural) return repaint();
      structural = false;
      setSnap(controller.snapshot());
    };
    const unsubscribe = controller.subscribe((textOnly) => {
      if (!textOnly) structural = true;
      if (timer) return;
      timer = setTimeout(flush, Math.max(0, frameMs - (Date.now() - lastFlush)));
    });
    structural = true;
    flush();
    return () => {
      unsubscribe();
      if (timer) clearTimeout(timer);
    };
  }, [controller, repaint, frameMs]);
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
