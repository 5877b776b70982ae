/** What a stream can show: colour only on a terminal, and never with NO_COLOR set. */
export function isTty(stream: NodeJS.WriteStream | NodeJS.ReadStream): boolean {
  return Boolean((stream as { isTTY?: boolean }).isTTY);
}

export function colourAllowed(stream: NodeJS.WriteStream, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR === '0') return false;
  return isTty(stream) && env.TERM !== 'dumb';
}

export const dim = (s: string, on: boolean) => (on ? `\x1b[2m${s}\x1b[22m` : s);
export const red = (s: string, on: boolean) => (on ? `\x1b[31m${s}\x1b[39m` : s);
export const yellow = (s: string, on: boolean) => (on ? `\x1b[33m${s}\x1b[39m` : s);
