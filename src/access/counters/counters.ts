/**
 * Shared counters for rate limits and usage: in-process in the embedded mode, Redis in a cluster.
 * A counter starts at 0, and `incr` (re)sets its expiry; an expired counter reads as 0.
 * Operations are atomic per key.
 */
export interface Counters {
  /** Adds `by` and returns the new value; the counter expires at `expiresAtMs`. */
  incr(key: string, by: number, expiresAtMs: number): Promise<number>;
  get(key: string): Promise<number>;
  /** Sets a counter outright (operators' tools and tests). */
  set(key: string, value: number, expiresAtMs: number): Promise<void>;
  close(): Promise<void>;
}
