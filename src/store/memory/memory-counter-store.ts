import type { CounterEntry, CounterStore } from '../counters.ts';

/**
 * The CounterStore of a server run without a data directory, and of tests: it lives in the process,
 * with the same load, save and read as the SQLite one.
 */
export class MemoryCounterStore implements CounterStore {
  private readonly entries = new Map<string, { value: number; expiresAt: number }>();

  /** Drops the expired counters as it goes, so the map holds only what a load could still return. */
  async load(now: number): Promise<CounterEntry[]> {
    const out: CounterEntry[] = [];
    for (const [key, e] of this.entries) {
      if (e.expiresAt <= now) this.entries.delete(key);
      else out.push({ key, value: e.value, expiresAt: e.expiresAt });
    }
    return out;
  }

  async save(entries: readonly CounterEntry[]): Promise<void> {
    for (const e of entries) this.entries.set(e.key, { value: e.value, expiresAt: e.expiresAt });
  }

  async add(entries: readonly CounterEntry[], now: number): Promise<void> {
    for (const e of entries) {
      const kept = this.entries.get(e.key);
      const base = kept && kept.expiresAt > now ? kept.value : 0;
      this.entries.set(e.key, { value: base + e.value, expiresAt: e.expiresAt });
    }
  }

  /** A scan: reads by prefix are an operator's look at one key's usage, not a request path. */
  async read(prefix: string, now: number): Promise<CounterEntry[]> {
    const out: CounterEntry[] = [];
    for (const [key, e] of this.entries) {
      if (key.startsWith(prefix) && e.expiresAt > now) {
        out.push({ key, value: e.value, expiresAt: e.expiresAt });
      }
    }
    return out;
  }
}
