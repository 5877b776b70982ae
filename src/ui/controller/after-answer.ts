import type { NewItem, PendingView, QueuedLine } from './screen-state.js';

export type { PendingView, QueuedLine } from './screen-state.js';

/**
 * What waits for the streaming answer to end: the questions and commands typed
 * while it streams, and lines printed meanwhile (a save warning, what /new did not send), so
 * nothing lands inside the answer. Plain data, no screen.
 */
export class AfterAnswer {
  private queue: QueuedLine[] = [];
  private notes: NewItem[] = [];
  private cached: PendingView | undefined;

  /** Send `line` (a question or a command) once the answer has ended. */
  enqueue(line: QueuedLine): void {
    this.queue.push(line);
    this.cached = undefined;
  }

  /** Esc: take back the last line queued; undefined when none is. */
  cancelLast(): QueuedLine | undefined {
    const line = this.queue.pop();
    if (line !== undefined) this.cached = undefined;
    return line;
  }

  /** The next line to send, now that the screen is free. */
  next(): QueuedLine | undefined {
    const line = this.queue.shift();
    if (line !== undefined) this.cached = undefined;
    return line;
  }

  /** Forget every queued line (the conversation changed, or the answer failed); returns them. */
  dropQueue(): QueuedLine[] {
    const lines = this.queue;
    this.queue = [];
    this.cached = undefined;
    return lines;
  }

  /** Hold a line to print after the answer. */
  hold(item: NewItem): void {
    this.notes.push(item);
  }

  /** The held lines, to print now that the answer has ended. */
  release(): NewItem[] {
    const notes = this.notes;
    this.notes = [];
    return notes;
  }

  /** Undefined when nothing waits. The same object until something changes. */
  view(): PendingView | undefined {
    if (!this.queue.length) return undefined;
    this.cached ??= { queued: [...this.queue] };
    return this.cached;
  }
}
