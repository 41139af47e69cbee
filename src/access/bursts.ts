import type { Counters } from './counters/counters.ts';

/** Counts a key's requests per second for the burst ceiling. */
export interface BurstCounter {
  /**
   * Counts one request of the key in `second` (epoch seconds) and returns that second's count so
   * far; `limit` is the key's ceiling (a shared count is exchanged sooner near it).
   */
  hit(keyHash: string, second: number, limit: number): number;
}

/**
 * One process's count, kept out of the counters: an entry per key, reset when its second changes,
 * never saved. What the embedded server runs; on several nodes each would allow the whole ceiling.
 */
export class LocalBursts implements BurstCounter {
  private readonly bursts = new Map<string, { second: number; count: number }>();

  hit(keyHash: string, second: number): number {
    let b = this.bursts.get(keyHash);
    if (!b) {
      if (this.bursts.size >= 100_000) this.bursts.clear();
      b = { second, count: 0 };
      this.bursts.set(keyHash, b);
    }
    if (b.second !== second) {
      b.second = second;
      b.count = 0;
    }
    return ++b.count;
  }
}

const BURST_PREFIX = 'rps:';

/** Whether a counter is a per-second window of `SharedBursts`: shared between nodes, never worth saving. */
export const isBurstCounter = (key: string): boolean => key.startsWith(BURST_PREFIX);

/**
 * Every node's count, through the shared counters (one counter per key and second, gone a second
 * after its window): the ceiling holds for the nodes together, give or take what they count in the
 * time one exchange of the counters takes.
 */
export class SharedBursts implements BurstCounter {
  /** Each key's counter name for its current second: made once a second, not once a request. */
  private readonly names = new Map<string, { second: number; name: string }>();

  constructor(private readonly counters: Counters) {}

  hit(keyHash: string, second: number, limit: number): number {
    let n = this.names.get(keyHash);
    if (!n) {
      if (this.names.size >= 100_000) this.names.clear();
      n = { second: -1, name: '' };
      this.names.set(keyHash, n);
    }
    if (n.second !== second) {
      n.second = second;
      n.name = `${BURST_PREFIX}${keyHash}:${second}`;
    }
    return this.counters.incr(n.name, 1, (second + 2) * 1000, limit);
  }
}
