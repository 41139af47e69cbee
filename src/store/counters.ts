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
  /**
   * Adds each entry's value to what is kept (nothing, or a counter expired at `now`, counts as 0)
   * and sets its expiry: how nodes that count the same counters each save their own increments,
   * so that the kept total is every node's, each once, whatever order they save in.
   */
  add(entries: readonly CounterEntry[], now: number): Promise<void>;
  /** Counters whose key starts with `prefix` and that have not expired at `now`. */
  read(prefix: string, now: number): Promise<CounterEntry[]>;
}
