/**
 * Text grown a piece at a time (an answer as it streams, often a word or a character a piece).
 * `text += piece` is cheap because V8 does not copy: it keeps a rope, a node of about 32 bytes
 * for each piece, until the string is first read whole; a service that sends a million
 * one-character pieces would so hold some 60 MB of nodes for 1 MB of text. Flattening the whole
 * text every so often bounds that, but copies the whole text each time (garbage that grows with
 * the answer). A `GrowingText` keeps the pieces of the last stretch as a rope (young: they die
 * before the garbage collector promotes them) and, every STRETCH pieces, flattens just that
 * stretch (`charCodeAt` makes V8 flatten a rope) onto the text before it: the text is a short
 * rope of flat stretches, a few nodes per STRETCH pieces, and each piece is copied once.
 * test/e2e/resources.test.ts holds medchat to that on answers of a million pieces.
 */
const STRETCH = 1024;

export class GrowingText {
  private head: string;
  private tail = '';
  private pieces = 0;
  /** Kept so the read that flattens is not optimised away as unused. */
  private seen = 0;

  constructor(start = '') {
    this.head = start;
  }

  /** The text so far. */
  get text(): string {
    return this.tail ? this.head + this.tail : this.head;
  }

  /** The text with `piece` added. */
  add(piece: string): string {
    this.tail += piece;
    if (++this.pieces < STRETCH) return this.head + this.tail;
    this.seen = this.tail.charCodeAt(0);
    this.head += this.tail;
    this.tail = '';
    this.pieces = 0;
    return this.head;
  }
}
