import type { CounterEntry, CounterStore } from '../../store/counters.ts';
import type { CounterChange, SavedCounters } from './counters.ts';

/**
 * Writes the counters' changes to the CounterStore (compose calls `save` every `counterSaveMs` and
 * at shutdown): values set outright with `save`, increments with `add`. Writes run one at a time;
 * what a failed write held is kept and written with the next, before anything changed since, so
 * a store that was away loses no increment (one that failed after the store applied it may be
 * counted twice: never one lost).
 */
export class CounterSaver {
  private readonly carried = new Map<string, CounterChange>();
  private last: Promise<void> = Promise.resolve();

  constructor(
    private readonly counters: SavedCounters,
    private readonly store: CounterStore,
    private readonly now: () => number,
  ) {}

  save(): Promise<void> {
    const run = this.last.catch(() => {}).then(() => this.write());
    this.last = run;
    return run;
  }

  private async write(): Promise<void> {
    for (const change of this.counters.takeChanged()) merge(this.carried, change);
    if (this.carried.size === 0) return;
    const batch = [...this.carried.values()];
    this.carried.clear();
    const sets: CounterEntry[] = [];
    const adds: CounterEntry[] = [];
    for (const c of batch) {
      if (c.set !== undefined) sets.push({ key: c.key, value: c.set, expiresAt: c.expiresAt });
      if (c.added !== 0) adds.push({ key: c.key, value: c.added, expiresAt: c.expiresAt });
    }
    try {
      // Sets first: an increment made after a set adds to it. A set written twice is the same set.
      if (sets.length > 0) await this.store.save(sets);
      if (adds.length > 0) await this.store.add(adds, this.now());
    } catch (err) {
      // Nothing was taken since (writes run one at a time): the batch waits whole for the next.
      for (const c of batch) this.carried.set(c.key, c);
      throw err;
    }
  }
}

/** A later change of the same counter: a set replaces what came before, an increment adds to it. */
function merge(into: Map<string, CounterChange>, change: CounterChange): void {
  const before = into.get(change.key);
  if (!before || change.set !== undefined) {
    into.set(change.key, { ...change });
    return;
  }
  before.added += change.added;
  before.expiresAt = change.expiresAt;
}
