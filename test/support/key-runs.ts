// The secrets invariant and its seeded case generator: no run of 8 or more consecutive characters
// of the key (case-insensitive, also after URL-decoding) appears in anything a user or a file can see.

/** The seed for this run: MEDCHAT_SEED=<n> replays one, else a fresh one (print it on failure). */
export function runSeed(): number {
  const fromEnv = Number(process.env.MEDCHAT_SEED);
  return Number.isInteger(fromEnv) && process.env.MEDCHAT_SEED ? fromEnv : Math.floor(Math.random() * 2 ** 31);
}

function urlDecoded(text: string): string {
  return text.replace(/%([0-9a-f]{2})/gi, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
}

/** The first run of 8 characters of `key` found in `text` (case-insensitive, also URL-decoded), or undefined. */
export function keyRunIn(key: string, text: string): string | undefined {
  const k = key.toLowerCase();
  const hay = [text.toLowerCase(), urlDecoded(text).toLowerCase()];
  for (let i = 0; i + 8 <= k.length; i++) {
    const run = k.slice(i, i + 8);
    if (hay.some((h) => h.includes(run))) return run;
  }
  return undefined;
}
