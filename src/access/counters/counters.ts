/**
 * Usage and rate counters. A counter starts at 0, and `incr` (re)sets its expiry; an expired
 * counter reads as 0. Calls are synchronous because they sit on every request's path: an
 * implementation shared between nodes keeps a local view and exchanges increments in the
 * background rather than making a request wait on a network round trip.
 */
export interface Counters {
  /** Adds `by` and returns the new value; the counter expires at `expiresAtMs`. */
  incr(key: string, by: number, expiresAtMs: number): number;
  get(key: string): number;
  /** Sets a counter outright (operators' tools and tests). */
  set(key: string, value: number, expiresAtMs: number): void;
}
