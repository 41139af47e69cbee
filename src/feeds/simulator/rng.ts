/**
 * Seeded randomness. Everything the simulator decides comes from here, so one seed always gives
 * the same teams, strengths, schedule and ids. Hash-based draws (`hashUnit`) are for facts that
 * must not depend on the order of computation; `Rng` streams are for sequences of game events.
 */

/** 32-bit FNV-1a over the parts joined with '|'. */
export function hash32(...parts: readonly (string | number)[]): number {
  const text = parts.join('|');
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  // Final avalanche so that nearby inputs give unrelated outputs.
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** A uniform number in [0, 1) fixed by its parts. */
export function hashUnit(...parts: readonly (string | number)[]): number {
  return hash32(...parts) / 4294967296;
}

/** A standard normal number fixed by its parts. */
export function hashNormal(...parts: readonly (string | number)[]): number {
  const u = Math.max(1e-12, hashUnit(...parts, 'u'));
  const v = hashUnit(...parts, 'v');
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

/** mulberry32: a small, fast, seeded generator with good enough statistics for a simulation. */
export class Rng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  static of(...parts: readonly (string | number)[]): Rng {
    return new Rng(hash32(...parts));
  }

  /** Uniform in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  /** Integer in [lo, hi] inclusive. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }

  between(lo: number, hi: number): number {
    return lo + this.next() * (hi - lo);
  }

  normal(): number {
    const u = Math.max(1e-12, this.next());
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * this.next());
  }

  /** One of `items`, uniformly; the list must not be empty. */
  pick<T>(items: readonly T[]): T {
    const item = items[Math.floor(this.next() * items.length)];
    if (item === undefined) throw new Error('pick from an empty list');
    return item;
  }

  /** Index drawn with probability proportional to its weight. */
  weighted(weights: readonly number[]): number {
    let total = 0;
    for (const w of weights) total += w;
    let x = this.next() * total;
    for (let i = 0; i < weights.length; i++) {
      x -= weights[i]!;
      if (x < 0) return i;
    }
    return weights.length - 1;
  }

  /** One of `items`, drawn with probability proportional to `weight`; the list must not be empty. */
  pickWeighted<T>(items: readonly T[], weight: (item: T) => number): T {
    const item = items[this.weighted(items.map(weight))];
    if (item === undefined) throw new Error('pick from an empty list');
    return item;
  }

  /** Fisher-Yates shuffle into a new array. */
  shuffle<T>(items: readonly T[]): T[] {
    const out = items.slice();
    for (let i = out.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1));
      // j <= i < out.length: both elements exist.
      [out[i], out[j]] = [out[j]!, out[i]!];
    }
    return out;
  }
}
