import type { CounterEntry } from '../../store/counters.ts';

/**
 * Usage and rate counters. A counter starts at 0, and `incr` (re)sets its expiry; an expired
 * counter reads as 0. Calls are synchronous because they sit on every request's path: an
 * implementation shared between nodes keeps a local view and exchanges increments in the
 * background rather than making a request wait on a network round trip.
 */
export interface Counters {
  /**
   * Adds `by` and returns the new value; the counter expires at `expiresAtMs`. `ceiling`: the value
   * at which the caller refuses or bills otherwise, when there is one; a shared implementation
   * tells the other nodes of a change near it sooner than of others.
   */
  incr(key: string, by: number, expiresAtMs: number, ceiling?: number): number;
  get(key: string): number;
  /** Sets a counter outright (operators' tools and tests). */
  set(key: string, value: number, expiresAtMs: number): void;
}

/**
 * What one node changed in a counter since the last take, for the CounterStore (CounterSaver): a
 * value it set outright, then what it added. A shared implementation gives only its own increments,
 * so that every node saves what it counted, once, and the kept total is every node's.
 */
export interface CounterChange {
  key: string;
  /** The value this node set, when it set one. */
  set: number | undefined;
  /** What this node added, after `set` when there is one. */
  added: number;
  expiresAt: number;
}

/**
 * The counters a server runs on: loaded from the CounterStore at start (`restore`), their changes
 * taken every second to be saved there (`takeChanged`, CounterSaver), so usage outlives the process
 * and `oddsbase keys show` reads it. A shared implementation also seeds its peers with what it restores.
 * Contract: test/contract/counters.contract.ts.
 */
export interface SavedCounters extends Counters {
  /** Loads saved counters; they do not count as changes. */
  restore(entries: Iterable<CounterEntry>): void;
  /** What this node changed since the last call, one entry per counter. */
  takeChanged(): CounterChange[];
  /** Stops background work (a shared implementation's exchange); the values stay readable. */
  close(): Promise<void>;
}
