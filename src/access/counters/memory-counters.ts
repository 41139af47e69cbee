import type { CounterEntry } from '../../store/counters.ts';
import type { CounterChange, SavedCounters } from './counters.ts';

/** The embedded counters: a Map with expiry times, swept now and then so it cannot grow without end. */
export class MemoryCounters implements SavedCounters {
  private readonly values = new Map<string, { value: number; expiresAt: number }>();
  private readonly dirty = new Set<string>();
  private lastSweep = 0;

  constructor(private readonly now: () => number = Date.now) {}

  incr(key: string, by: number, expiresAtMs: number): number {
    const t = this.now();
    this.sweep(t);
    this.dirty.add(key);
    const cur = this.values.get(key);
    if (cur && cur.expiresAt > t) {
      cur.value += by;
      cur.expiresAt = expiresAtMs;
      return cur.value;
    }
    this.values.set(key, { value: by, expiresAt: expiresAtMs });
    return by;
  }

  get(key: string): number {
    const cur = this.values.get(key);
    return cur && cur.expiresAt > this.now() ? cur.value : 0;
  }

  set(key: string, value: number, expiresAtMs: number): void {
    this.values.set(key, { value, expiresAt: expiresAtMs });
    this.dirty.add(key);
  }

  restore(entries: Iterable<CounterEntry>): void {
    for (const e of entries) this.values.set(e.key, { value: e.value, expiresAt: e.expiresAt });
  }

  /** The whole value, set outright: this process is the only one that counts. */
  takeChanged(): CounterChange[] {
    const out: CounterChange[] = [];
    for (const key of this.dirty) {
      const v = this.values.get(key);
      if (v) out.push({ key, set: v.value, added: 0, expiresAt: v.expiresAt });
    }
    this.dirty.clear();
    return out;
  }

  async close(): Promise<void> {}

  private sweep(t: number): void {
    if (t - this.lastSweep < 60_000) return;
    this.lastSweep = t;
    for (const [k, v] of this.values) if (v.expiresAt <= t) this.values.delete(k);
  }
}
