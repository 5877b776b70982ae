import ansiEscapes from 'ansi-escapes';

/**
 * Ink's own "erase the `n` lines I wrote last time", as its log-update writes it before each frame
 * (from the same ansi-escapes Ink uses, never copied by hand): tests that play Ink's frames into the
 * frame writer build them with this, so an Ink upgrade that changes it changes them too, and
 * test/ui/ink-contract.test.ts says whether the writer still recognises it.
 */
export const inkErase = (n: number): string => ansiEscapes.eraseLines(n);
