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

export interface CounterEntry {
  key: string;
  value: number;
  expiresAt: number;
}

/**
 * Where counters are kept beyond the process: loaded at start, changed counters saved every second,
 * read by `oddsbase keys show` (another process). Storage, so it returns Promises (house rule 9);
 * the request path never waits on it. Contract: test/contract/counter-store.contract.ts.
 */
export interface CounterStore {
  /** Every counter not expired at `now` (expired ones may be dropped). */
  load(now: number): Promise<CounterEntry[]>;
  /** Upserts the entries: the value and expiry given replace what was kept. */
  save(entries: readonly CounterEntry[]): Promise<void>;
  /** Counters whose key starts with `prefix` and that have not expired at `now`. */
  read(prefix: string, now: number): Promise<CounterEntry[]>;
}
