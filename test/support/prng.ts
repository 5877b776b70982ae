/**
 * A small seeded PRNG (mulberry32) for the property-style tests: the same seed gives the same
 * cases, so a failure printed as `MEDCHAT_SEED=<n>` can be replayed exactly.
 */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The same generator with helpers for picking cases. */
export class Prng {
  private readonly random: () => number;

  constructor(readonly seed: number) {
    this.random = seededRandom(seed);
  }

  /** A float in [0, 1). */
  next(): number {
    return this.random();
  }

  /** An integer in [min, max] (both included). */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /** true with probability p. */
  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }

  /** Pick by weight: `[[weight, value], …]`. */
  weighted<T>(items: ReadonlyArray<readonly [number, T]>): T {
    const total = items.reduce((s, [w]) => s + w, 0);
    let r = this.next() * total;
    for (const [w, v] of items) {
      r -= w;
      if (r < 0) return v;
    }
    return items[items.length - 1]![1];
  }

  /** A new generator whose sequence depends on this seed and `n` only (one per case). */
  fork(n: number): Prng {
    return new Prng(mix(this.seed, n));
  }
}

function mix(a: number, b: number): number {
  let h = (a ^ Math.imul(b + 0x9e3779b9, 0x85ebca6b)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x7feb352d) >>> 0;
  h = Math.imul(h ^ (h >>> 15), 0x846ca68b) >>> 0;
  return (h ^ (h >>> 16)) >>> 0;
}

/** The run's seed: `MEDCHAT_SEED` when set (to replay a failure), else a fresh one. */
export function seedFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  const s = env.MEDCHAT_SEED;
  if (s !== undefined && s.trim() !== '' && Number.isFinite(Number(s))) return Number(s) >>> 0;
  return Math.floor(Math.random() * 2 ** 31);
}

/** A positive integer from the environment, or `fallback`. */
export function countFromEnv(name: string, fallback: number, env: NodeJS.ProcessEnv = process.env): number {
  const n = Number(env[name]);
  return Number.isInteger(n) && n >= 0 && env[name]?.trim() ? n : fallback;
}
